"""``report`` reads what ``score`` wrote and scores nothing itself; the ``report`` command scores a run
that has not been scored first, as ``robustcall score RUN --bootstrap 0`` would."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from robustcall.cli.main import app
from robustcall.core import MissingInputError
from robustcall.report import load_run

runner = CliRunner()


def _ok(*args: str) -> None:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output


def test_an_unscored_run_is_scored_by_the_command_not_by_report(tmp_path: Path) -> None:
    bench, run, scored = tmp_path / "bench", tmp_path / "run", tmp_path / "scored"
    _ok("build", "--sources", "bfcl", "--seed", "0", "--out", str(bench), "--per-source", "bfcl=3", "--types", "CD")
    for d in (run, scored):
        _ok(
            "run",
            "--bench",
            str(bench),
            "--model",
            "scripted:always_first_tool",
            "--types",
            "clean,CD",
            "--out",
            str(d),
        )
    with pytest.raises(MissingInputError, match=re.escape(f"{run} has no scores.jsonl: score it first")):
        load_run(run, resamples=0, seed=0)
    assert not (run / "scores.jsonl").exists()  # report wrote nothing

    _ok("score", str(scored), "--bootstrap", "0")
    _ok("report", str(run), "--out", str(tmp_path / "r"), "--resamples", "0")
    # what the command wrote first is what `score --bootstrap 0` writes
    for name in ("scores.jsonl", "summary.json"):
        assert (run / name).read_text() == (scored / name).read_text()
    assert load_run(run, resamples=0, seed=0).stats == load_run(scored, resamples=0, seed=0).stats
