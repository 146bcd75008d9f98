"""The LLM rewriter through local fake endpoints: the Appendix F prompt, the cache, the guard, and the
one model client (``robustcall.models``: retries with Retry-After, settings, one model per family)."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from robustcall.cli.main import app
from robustcall.core import Sample, seeded_rng
from robustcall.models import TextModelError, _openai
from robustcall.perturb import REGISTRY, GuardStats, LLMRewriter, PerturbContext, build_benchmark
from robustcall.perturb._llm import TYPO_PROMPT, fill, model_specs
from robustcall.sources import load_source

sys.path.insert(0, str(Path(__file__).parents[1] / "run"))
from mock_openai import Reply, completion, mock_openai, serve_chat

TYPOED = "Find teh type of gene mutaiton based on SNP (Single Nucleotide Polymorphism) ID rs6034464."
FAST = "mock:\n  backoff_base_s: 0.01\n  backoff_max_s: 0.02\n  max_retries: 3\n"


@pytest.fixture(scope="module")
def m110() -> Sample:
    return next(s for s in load_source("bfcl").samples if s.id == "bfcl_v3__BFCL_v3_multiple__multiple_110")


@pytest.fixture()
def waits(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """Every backoff wait of the model client."""
    seen: list[float] = []
    real = asyncio.sleep

    async def record(delay: float) -> None:
        seen.append(delay)
        await real(min(delay, 0.05))

    monkeypatch.setattr(_openai, "_sleep", record)
    return seen


@contextmanager
def scripted(*replies: Reply, then: str = TYPOED) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """A chat endpoint answering ``replies`` in turn, then ``then``; yields its URL and the request log."""
    queue = list(replies)
    log: list[dict[str, Any]] = []

    async def handle(body: dict[str, Any]) -> Reply:
        log.append(body)
        return queue.pop(0) if queue else completion(then)

    with serve_chat(handle) as url:
        yield url, log


def _typos(sample: Sample, rewriter: LLMRewriter, guard: GuardStats) -> Sample | None:
    ctx = PerturbContext(seeded_rng(0, sample.id, "realistic_typos"), rewriter, guard, "realistic_typos")
    return REGISTRY["realistic_typos"].apply(sample, ctx)


def test_llm_typos_are_used_and_cached(m110: Sample, tmp_path: Path) -> None:
    guard = GuardStats()
    with mock_openai(reply=TYPOED) as url:
        rw = LLMRewriter(f"openai:mock@{url}", cache_path=tmp_path / "cache.sqlite")
        out = _typos(m110, rw, guard)
        assert out is not None and out.conversation[-1].content == TYPOED
        assert rw.requests == 1
        rw.close()
    # the server is gone: a rebuild is answered from the cache
    again = LLMRewriter("openai:mock@http://127.0.0.1:9/v1", cache_path=tmp_path / "cache.sqlite")
    assert _typos(m110, again, guard) == out
    assert again.requests == 0 and again.cache_hits == 1
    assert guard.as_dict()["realistic_typos"]["passed"] == 2


def test_guard_rejects_a_rewrite_that_loses_the_golden_value(m110: Sample, tmp_path: Path) -> None:
    guard = GuardStats()
    with mock_openai(reply="Find the type of gene mutation for this SNP.") as url:
        rw = LLMRewriter(f"openai:mock@{url}", cache_path=tmp_path / "cache.sqlite")
        out = _typos(m110, rw, guard)
        rw.close()
    assert out is not None and "rs6034464" in out.conversation[-1].content
    stats = guard.as_dict()["realistic_typos"]
    assert stats["fallback"] == 1 and stats["violations"] >= 3 and rw.requests == 3


def test_prompt_is_appendix_f_verbatim() -> None:
    prompt = fill(TYPO_PROMPT, query="hello")
    assert prompt.startswith(
        "Add realistic typing errors to the following query, simulating natural human typos. hello"
    )
    assert prompt.endswith("output the perturbed query only.")
    assert json.dumps(prompt)


def test_rate_limits_are_retried_after_the_requested_wait(m110: Sample, tmp_path: Path, waits: list[float]) -> None:
    settings = tmp_path / "settings.yaml"
    settings.write_text(FAST)
    limited = (429, {"error": {"message": "slow down"}}, {"Retry-After": "0.2"})
    with scripted(limited, (503, {"error": {"message": "busy"}}, {})) as (url, log):
        rw = LLMRewriter(f"openai:mock@{url}", settings_file=settings, cache_path=tmp_path / "c.sqlite")
        out = _typos(m110, rw, GuardStats())
        rw.close()
    assert out is not None and out.conversation[-1].content == TYPOED
    assert len(log) == 3 and waits[0] >= 0.2 and len(waits) == 2


def test_temperature_is_sent_unless_the_settings_leave_it_out(m110: Sample, tmp_path: Path) -> None:
    settings = tmp_path / "settings.yaml"
    settings.write_text("mock:\n  temperature: null\n")
    with scripted() as (url, log):
        with LLMRewriter(f"openai:mock@{url}", cache_path=tmp_path / "a.sqlite") as plain:
            plain.complete("one", 0)
            plain.complete("one", 1)  # a second try asks again at a higher temperature
        with LLMRewriter(f"openai:mock@{url}", settings_file=settings, cache_path=tmp_path / "b.sqlite") as bare:
            bare.complete("two", 0)
            bare.complete("two", 1)  # the attempt is in the cache key: asked again, still without one
    assert [b.get("temperature", "absent") for b in log] == [0.0, 0.3, "absent", "absent"]
    assert bare.settings()["temperature"] == {"typos": None, "paraphrases": None, "tools": None}


def test_each_family_can_have_its_own_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ROBUSTCALL_CACHE", str(tmp_path / "cache"))

    async def by_model(body: dict[str, Any]) -> Reply:
        prompt = body["messages"][-1]["content"]
        query = prompt.split("typos. ", 1)[-1].split(" Requirements:", 1)[0]
        query = query if "typos. " in prompt else prompt.split("intent. ", 1)[-1].split(" Requirements:", 1)[0]
        return completion(f"{query} ({body['model']})")

    with serve_chat(by_model) as url:
        specs = model_specs([f"openai:para@{url}", f"typos=openai:typer@{url}"])
        assert specs == (f"openai:para@{url}", {"typos": f"openai:typer@{url}"})
        with LLMRewriter(specs[0], family_models=specs[1]) as rw:
            manifest = build_benchmark(
                ["bfcl"], None, 0, tmp_path / "b", per_source={"bfcl": 3}, rewriter=rw,
                types=["realistic_typos", "query_paraphrase"],
            )  # fmt: skip
    assert manifest["rewriter"]["models"] == {"typos": "typer", "paraphrases": "para", "tools": "para"}
    for code, model in (("realistic_typos", "typer"), ("query_paraphrase", "para")):
        rows = [json.loads(line) for line in (tmp_path / "b" / f"{code}.jsonl").read_text().splitlines()]
        assert rows and all(r["conversation"][-1]["content"].endswith(f"({model})") for r in rows)


def test_model_specs() -> None:
    assert model_specs(["gpt-5-mini", "typos=gpt-4o-mini"], "https://api.example/v1") == (
        "openai:gpt-5-mini@https://api.example/v1",
        {"typos": "openai:gpt-4o-mini@https://api.example/v1"},
    )
    assert model_specs(["local"]) == ("local", {})
    assert model_specs(["openai/m"], "http://127.0.0.1:8000/v1")[0] == "openai:m@http://127.0.0.1:8000/v1"
    assert model_specs(["openai/m"]) == ("openai/m", {})  # then OPENAI_BASE_URL or OpenAI's API
    with pytest.raises(ValueError, match="unknown rewriter family 'typo'"):
        model_specs(["typo=local"])
    with pytest.raises(ValueError, match="needs --llm-model"):
        model_specs(["typos=local"])


def test_a_refused_request_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ROBUSTCALL_CACHE", str(tmp_path / "cache"))
    refused = (400, {"error": {"message": "Unsupported value: 'temperature' does not support 0"}}, {})
    with scripted(*[refused] * 10) as (url, log):
        with LLMRewriter(f"openai:mock@{url}") as rw, pytest.raises(TextModelError, match="HTTP 400: Unsupported"):
            rw.complete("hello", 0)
        assert len(log) == 1  # a 400 is the request's fault: not retried
        res = CliRunner().invoke(
            app,
            ["build", "--out", str(tmp_path / "b"), "--per-source", "bfcl=2", "--rewriter", "llm",
             "--llm-model", "mock", "--llm-base-url", url],
        )  # fmt: skip
    assert res.exit_code == 1
    assert "model error: openai:mock@" in res.output and "HTTP 400" in res.output
    assert "Traceback" not in res.output


def test_dr_data_takes_the_llm_rewriter(shared_data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    parquet = shared_data / "toolrl/dataset/rlla_4k/test.parquet"
    if not parquet.is_file():
        pytest.skip("ToolRL rlla data not found")
    monkeypatch.setenv("ROBUSTCALL_CACHE", str(tmp_path / "cache"))

    async def echo(body: dict[str, Any]) -> Reply:
        prompt = body["messages"][-1]["content"]
        return completion(prompt.split(". ", 1)[-1].split(" Requirements:", 1)[0] + " (llm)")

    with serve_chat(echo) as url:
        res = CliRunner().invoke(
            app,
            ["train", "dr-data", str(parquet), "--out", str(tmp_path / "dr"), "--format", "jsonl",
             "--rewriter", "llm", "--llm-model", f"openai:m@{url}"],
        )  # fmt: skip
    assert res.exit_code == 0, res.output
    manifest = json.loads((tmp_path / "dr" / "manifest.json").read_text())
    assert manifest["rewriter"]["rewriter"] == "llm" and manifest["rewriter"]["models"]["typos"] == "m"
    rows = (tmp_path / "dr" / "dr_full" / "test.jsonl").read_text()
    assert "(llm)" in rows
