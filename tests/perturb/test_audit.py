"""`robustcall audit`: automatic checks catch a lost golden value; the judge gives Table 6 stats."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from robustcall.cli.main import app
from robustcall.core import Sample, read_jsonl, write_jsonl
from robustcall.perturb import audit, build_benchmark, parse_score

sys.path.insert(0, str(Path(__file__).parents[1] / "run"))
from mock_openai import Reply, completion, mock_openai, serve_chat


def test_audit_checks_and_judge(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ROBUSTCALL_CACHE", str(tmp_path / "cache"))
    bench = tmp_path / "bench"
    build_benchmark(["bfcl"], None, 0, bench, per_source={"bfcl": 6}, types=["realistic_typos"])
    assert audit(bench)["realistic_typos"]["check_failures"] == {}
    # sabotage one typo sample: drop its golden values from the query
    rows = read_jsonl(bench / "realistic_typos.jsonl", Sample)
    victim = next(r for r in rows if r.golden_answers and r.golden_answers[0].parameters)
    conv = [m.model_copy(update={"content": "something else entirely"}) for m in victim.conversation]
    rows = [r.model_copy(update={"conversation": conv}) if r.id == victim.id else r for r in rows]
    write_jsonl(bench / "realistic_typos.jsonl", rows)
    failures = audit(bench)["realistic_typos"]["check_failures"]
    assert list(failures) == [victim.id] and "golden values lost" in failures[victim.id][0]
    with mock_openai(reply="4\nSame intent, minor loss.") as url:
        out = tmp_path / "audit.json"
        res = CliRunner().invoke(
            app, ["audit", str(bench), "--judge-model", "m", "--judge-base-url", url, "--n", "3", "--json", str(out)]
        )
        assert res.exit_code == 0, res.output
    row = json.loads(out.read_text())["realistic_typos"]
    assert (row["n"], row["mean"], row["median"], row["std"], row["frac_le_2"]) == (3, 4.0, 4, 0.0, 0.0)


def test_judge_scores_are_read_strictly() -> None:
    assert [parse_score(a) for a in ("4\nSame intent.", "  5  \n", "\n3\nok", "1")] == [4, 5, 3, 1]
    # no score in the asked format: unparseable, never the first digit found
    for answer in ("ANSWER: 42", "Score: 4", "**4**", "4/5", "I would say 4.", "42", "0", "6", ""):
        assert parse_score(answer) is None, answer


def test_unparseable_judge_answers_are_counted_not_guessed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ROBUSTCALL_CACHE", str(tmp_path / "cache"))
    bench = tmp_path / "bench"
    build_benchmark(["bfcl"], None, 0, bench, per_source={"bfcl": 4}, types=["realistic_typos"])
    row = audit(bench, judge=lambda prompt: "ANSWER: 42", n=3)["realistic_typos"]
    assert (row["n"], row["unparseable"], row["mean"]) == (0, 3, None)
    assert row["unparseable_answers"] == ["ANSWER: 42"] * 3


def test_judge_goes_through_the_model_client(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A model spec and settings file (temperature left out, as the paper's judge ran), retries on 503."""
    monkeypatch.setenv("ROBUSTCALL_CACHE", str(tmp_path / "cache"))
    bench = tmp_path / "bench"
    build_benchmark(["bfcl"], None, 0, bench, per_source={"bfcl": 4}, types=["realistic_typos"])
    settings = tmp_path / "judge.yaml"
    settings.write_text("judge:\n  temperature: null\n  backoff_base_s: 0.01\n  backoff_max_s: 0.02\n")
    answers: list[Reply] = [(503, {"error": {"message": "busy"}}, {}), completion("2\nIntent shifted.")]
    log: list[dict[str, object]] = []

    async def handle(body: dict[str, object]) -> Reply:
        log.append(body)
        return answers.pop(0) if answers else completion("5\nIdentical.")

    with serve_chat(handle) as url:
        out = tmp_path / "audit.json"
        res = CliRunner().invoke(
            app,
            ["audit", str(bench), "--judge-model", f"openai:judge@{url}", "--judge-settings", str(settings),
             "--n", "3", "--json", str(out)],
        )  # fmt: skip
        assert res.exit_code == 0, res.output
    row = json.loads(out.read_text())["realistic_typos"]
    assert (row["n"], row["unparseable"], row["mean"], row["frac_le_2"]) == (3, 0, 4.0, 1 / 3)
    assert len(log) == 4 and all("temperature" not in b and b["model"] == "judge" for b in log)
