"""A run against an endpoint that refuses: no retries of 4xx, an early stop with the server's
message, a non-zero exit when infra errors remain, the most common reasons with counts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mock_openai import Reply, completion, serve_chat, write_capital_bench
from typer.testing import CliRunner

from robustcall.cli.main import app
from robustcall.core import (
    PredictionRecord,
    read_jsonl,
)

runner = CliRunner()
VLLM_400 = '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set'


@pytest.fixture()
def bench(tmp_path: Path) -> Path:
    d = tmp_path / "bench"
    return write_capital_bench(d, 8)


def _run(bench: Path, out: Path, url: str, *extra: str) -> Any:
    args = ["run", "--bench", str(bench), "--out", str(out), "--types", "clean", "--mode", "fc"]
    return runner.invoke(app, [*args, "--model", f"openai:mock@{url}", "--concurrency", "1", *extra])


def _refusing(messages: list[str], seen: list[dict[str, Any]], status: int = 400) -> Any:
    async def handler(body: dict[str, Any]) -> Reply:
        seen.append(body)
        message = messages[(len(seen) - 1) % len(messages)]
        return status, {"error": {"message": message, "type": "BadRequestError"}}, {}

    return handler


@pytest.mark.parametrize("status", [400, 401, 403, 404, 422])
def test_identical_4xx_are_not_retried_and_stop_the_run_with_the_servers_message(
    bench: Path, tmp_path: Path, status: int
) -> None:
    seen: list[dict[str, Any]] = []
    out = tmp_path / "run"
    with serve_chat(_refusing([VLLM_400], seen, status)) as url:
        result = _run(bench, out, url)
    assert result.exit_code == 3, result.output
    assert len(seen) == 5  # one request per record (no retries), then the run stopped: 3 samples never asked
    assert f"stopped after 5 identical failures in a row: HTTP {status}" in result.output
    assert "--enable-auto-tool-choice" in result.output
    assert f"5 x HTTP {status}" in result.output  # the summary's most common reason, with its count
    assert "Traceback" not in result.output
    recs = read_jsonl(out / "predictions.jsonl", PredictionRecord)
    assert len(recs) == 5 and all(r.prediction.error_kind == "infra" for r in recs)


def test_a_run_that_ends_with_infra_errors_exits_3_unless_allowed(bench: Path, tmp_path: Path) -> None:
    seen: list[dict[str, Any]] = []
    # two messages in turn: never five identical ones in a row, so the run goes to the end
    with serve_chat(_refusing(["context too long", "context too long", "bad enum"], seen)) as url:
        result = _run(bench, tmp_path / "a", url)
        assert result.exit_code == 3, result.output
        assert len(seen) == 8
        assert "8 of 8 requests ended in infrastructure errors" in result.output
        lines = result.output.splitlines()
        first = next(i for i, ln in enumerate(lines) if "x HTTP 400" in ln)
        assert lines[first].strip().startswith("6 x HTTP 400") and "context too long" in lines[first]
        assert lines[first + 1].strip().startswith("2 x HTTP 400") and "bad enum" in lines[first + 1]

        allowed = _run(bench, tmp_path / "b", url, "--max-infra-errors", "8")
        assert allowed.exit_code == 0, allowed.output


def test_resume_from_another_spelling_of_the_endpoint_is_the_same_run(bench: Path, tmp_path: Path) -> None:
    async def answer(body: dict[str, Any]) -> dict[str, Any]:
        return completion("[capital_0(country='C0')]")

    out = tmp_path / "run"
    with serve_chat(answer) as url:
        first = _run(bench, out, url, "--limit", "2")
        assert first.exit_code == 0, first.output
        local = url.replace("127.0.0.1", "localhost")
        again = _run(bench, out, local, "--resume")
        assert again.exit_code == 0, again.output
        assert "already done 2" in again.output
        meta = json.loads((out / "run.json").read_text())
        assert meta["endpoint_history"] == [url, local] and meta["model_name"] == "mock"
        assert len(read_jsonl(out / "predictions.jsonl", PredictionRecord)) == 8

        other = _run(bench, out, url, "--resume", "--model", f"openai:other@{url}")
        assert other.exit_code == 1 and "different model_name" in other.output, other.output
        prompt = _run(bench, out, url, "--resume", "--mode", "prompt")
        assert prompt.exit_code == 1 and "different mode" in prompt.output, prompt.output
        settings = tmp_path / "settings.yaml"
        settings.write_text("mock:\n  temperature: 0.7\n")
        hot = _run(bench, out, url, "--resume", "--settings", str(settings))
        assert hot.exit_code == 1 and "different answer_settings" in hot.output, hot.output
