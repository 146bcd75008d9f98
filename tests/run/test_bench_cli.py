"""``robustcall bench`` end to end with a scripted policy: order, budgets, and what the table rests on."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from robustcall.cli.main import app
from robustcall.core import PredictionRecord, read_checkpoint
from robustcall.run import clean_id_of

runner = CliRunner()


def test_bench_orders_by_sample_and_says_what_the_table_rests_on(tmp_path: Path) -> None:
    out = tmp_path / "b"
    result = runner.invoke(app, ["bench", "--model", "scripted:oracle", "--limit", "2", "--out", str(out)])
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert "2 clean samples (paired across types); 95% intervals" in text
    meta = json.loads((out / "run" / "run.json").read_text())
    assert (meta["limit"], meta["max_tokens"]) == (2, "gold")
    recs = read_checkpoint(out / "run" / "predictions.jsonl", PredictionRecord)
    owners = [clean_id_of(r) for r in recs]
    assert len(set(owners)) == 2
    first = owners.index(owners[-1])
    assert owners[:first] == [owners[0]] * first and owners[first:] == [owners[-1]] * (len(owners) - first)


def test_run_refuses_an_unknown_budget(tmp_path: Path) -> None:
    result = runner.invoke(
        app, ["run", "--bench", str(tmp_path), "--model", "scripted:oracle", "--max-tokens", "lots", "--out", "x"]
    )
    assert result.exit_code != 0
    assert "--max-tokens must be settings or gold" in " ".join(result.output.split())
