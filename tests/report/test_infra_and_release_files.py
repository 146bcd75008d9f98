"""Runs with infrastructure-error records go through score and report; release files with
``tool_calls: null`` replay; a predictions file that repeats a record is refused by score."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from robustcall.cli.main import app

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "run"))
from mock_openai import Reply, capital_sample, completion, serve_chat, write_capital_bench

runner = CliRunner()


@pytest.fixture()
def bench(tmp_path: Path) -> Path:
    d = tmp_path / "bench"
    return write_capital_bench(d, 6)


def _ok(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def test_report_on_a_run_with_infra_errors(bench: Path, tmp_path: Path) -> None:
    async def half_refused(body: dict[str, Any]) -> Reply:
        i = int(body["messages"][-1]["content"].rsplit(" ", 1)[1].rstrip("?"))
        if i % 2:  # samples 1, 3, 5: the endpoint fails (a different message each: the run goes on)
            return 503, {"error": {"message": f"overloaded {i}"}}, {}
        return completion(f"[capital_{i}(country='C{i}')]")

    settings = tmp_path / "settings.yaml"
    settings.write_text("m:\n  max_retries: 0\n")
    run = tmp_path / "run"
    with serve_chat(half_refused) as url:
        _ok(
            "run", "--bench", str(bench), "--out", str(run), "--types", "clean", "--model", f"openai:m@{url}",
            "--settings", str(settings), "--max-infra-errors", "3",
        )  # fmt: skip
    scored = _ok("score", str(run), "--bootstrap", "200")
    assert "infra" in scored
    lines = (run / "scores.jsonl").read_text().splitlines()
    assert sum('"correct"' not in ln for ln in lines) == 3  # infra lines carry no `correct`
    out = tmp_path / "report"
    _ok("report", str(run), "--out", str(out), "--resamples", "200")
    (only,) = json.loads((out / "report.json").read_text()).values()
    assert only["infra_errors"] == 3
    assert only["accuracy"]["clean"]["value"] == 1.0  # the 3 answered are right; the refused are excluded
    assert "3 infrastructure errors" in (out / "report.html").read_text()


def _release_file(tmp_path: Path, lines: list[dict[str, Any]]) -> Path:
    path = tmp_path / "release.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return path


def test_replay_reads_null_tool_calls_as_not_given(bench: Path, tmp_path: Path) -> None:
    release = _release_file(
        tmp_path,
        [
            {
                "id": capital_sample(i).id,
                "prediction": {"raw_output": f"[capital_{i}(country='C{i}')]", "tool_calls": None},
            }
            for i in range(6)
        ],
    )
    run = tmp_path / "run"
    _ok("run", "--bench", str(bench), "--out", str(run), "--types", "clean", "--model", f"replay:{release}")
    _ok("score", str(run), "--bootstrap", "0")
    summary = json.loads((run / "summary.json").read_text())
    assert summary["clean"]["accuracy"] == 1.0  # the text was parsed: every call right


def test_score_refuses_a_record_given_twice(bench: Path, tmp_path: Path) -> None:
    run = tmp_path / "run"
    _ok("run", "--bench", str(bench), "--out", str(run), "--types", "clean", "--model", "scripted:oracle")
    preds = run / "predictions.jsonl"
    lines = preds.read_text().splitlines()
    preds.write_text("\n".join([*lines, lines[1]]) + "\n")
    result = runner.invoke(app, ["score", str(run)])
    assert result.exit_code == 1, result.output
    assert f"predictions.jsonl:7: duplicate record {capital_sample(1).id!r} (clean), first on line 2" in result.output
    assert "Traceback" not in result.output
