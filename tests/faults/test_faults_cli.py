"""`robustcall faults run / sweep / report / export-sft` end to end, against an OpenAI-compatible mock
endpoint whose model repeats the same call forever."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from typer.testing import CliRunner

from robustcall.cli.main import app
from robustcall.core import read_jsonl
from robustcall.faults._sft import RecoveryExample
from robustcall.run import read_trajectories

sys.path.insert(0, str(Path(__file__).parents[1] / "run"))
from mock_openai import mock_openai

SEARCH_FOREVER = '<tool_call>\n{"name": "search", "parameters": {"query": "lamp"}}\n</tool_call>'


def _invoke(*args: str) -> str:
    result = CliRunner().invoke(app, ["faults", *args])
    assert result.exit_code == 0, result.output
    return result.output


def test_run_sweep_report_export(tmp_path: Path) -> None:
    with mock_openai(reply=SEARCH_FOREVER) as url:
        model = f"openai:mock@{url}"
        common = ["--env", "shop_env:ShopEnv", "--model", model, "--mode", "prompt", "--max-steps", "4"]
        ran = _invoke(
            "run", *common, "--profile", "permanent", "--sticky", "--delta", "1", "--out", str(tmp_path / "run")
        )
        per_call = _invoke(
            "run", *common, "--profile", "execution", "--per-call", "--delta", "1", "--out", str(tmp_path / "pc")
        )
        out = _invoke("sweep", *common, "--profile", "transient", "--deltas", "0,0.5,1", "--seeds", "0,1",
                      "--out", str(tmp_path / "sweep"))  # fmt: skip
    # δ beside the effective rate: repeats of persisting faults make it exceed the share of fresh draws
    rate = "δ = 1: effective injection rate 1.000 (8 of 8 calls met a fault: {} fresh draws, {} repeats of persisting"
    assert rate.format(2, 6) in ran and rate.format(8, 0) in per_call
    assert "δ = 0.5: effective injection rate" in out
    run = read_trajectories(tmp_path / "run")
    assert [t.task_id for t in run] == ["lamp", "mug"] and all(t.termination == "step_limit" for t in run)
    assert all(s.fault is not None for t in run for s in t.steps)
    assert len(read_trajectories(tmp_path / "sweep")) == 12
    assert "Table 3: RASR vs Fault Injection Rate" in out and "| δ = 0.5 | δ = 1 |" in out

    rep = _invoke("report", str(tmp_path / "run"), "--delta", "1")
    row = next(line for line in rep.splitlines() if line.startswith("| openai:mock"))
    assert row.split(" | ")[1:6] == ["—", "0.0", "0.0", "100.0", "0.0"]  # no δ=0 run; RASR, RR, UFR, EIA
    assert "| Infinite Loop | 2 | 100.0% | 100.0% |" in rep

    assert "identical" in _invoke("replay", str(tmp_path / "sweep"), "--out", str(tmp_path / "replayed"))
    meta = json.loads((tmp_path / "sweep" / "run.json").read_text())
    meta["profile"]["seed"] = 99  # other faults: the recorded outputs no longer meet the same observations
    (tmp_path / "sweep" / "run.json").write_text(json.dumps(meta))
    differs = CliRunner().invoke(app, ["faults", "replay", str(tmp_path / "sweep"), "--out", str(tmp_path / "r2")])
    assert differs.exit_code == 1 and "DIFFERENT" in differs.output

    _invoke("export-sft", str(tmp_path / "run"), "--out", str(tmp_path / "sft.jsonl"))
    records = read_jsonl(tmp_path / "sft.jsonl", RecoveryExample)
    assert len(records) == 2 and all(r.messages[-1]["role"] == "assistant" for r in records)
    first = json.loads((tmp_path / "sft.jsonl").read_text().splitlines()[0])
    assert first["messages"][0]["role"] == "system" and first["messages"][-2]["role"] == "user"


def test_bad_arguments_are_reported_clearly(tmp_path: Path) -> None:
    bad = CliRunner().invoke(app, ["faults", "run", "--env", "nowhere:Env", "--out", str(tmp_path)])
    assert bad.exit_code != 0 and "cannot load environment" in bad.output
    bad = CliRunner().invoke(
        app, ["faults", "run", "--env", "shop_env:ShopEnv", "--tasks", "sofa", "--out", str(tmp_path)]
    )
    assert bad.exit_code != 0 and "unknown task(s) sofa" in bad.output


def test_registered_environment_with_data_runs_and_replays(tmp_path: Path, shared_data: Path) -> None:
    guess = '<tool_call>\n{"name": "guess", "parameters": {"word": "crane"}}\n</tool_call>'
    with mock_openai(reply=guess) as url:
        _invoke("run", "--env", "wordle", "--data", str(shared_data / "wordle"), "--model", f"openai:mock@{url}",
                "--mode", "prompt", "--limit", "2", "--max-steps", "3", "--delta", "0.5",
                "--out", str(tmp_path / "run"))  # fmt: skip
    run = read_trajectories(tmp_path / "run")
    assert [t.id for t in run] == ["wordle/wordle-0/d0.5/s0", "wordle/wordle-1/d0.5/s0"]
    assert all(s.action is not None and s.action.name == "guess" for t in run for s in t.steps)
    assert "identical" in _invoke("replay", str(tmp_path / "run"), "--out", str(tmp_path / "replayed"))


def test_registered_environment_without_its_data_is_refused() -> None:
    result = CliRunner().invoke(app, ["faults", "run", "--env", "dbbench", "--model", "scripted:oracle"])
    assert result.exit_code != 0 and "dbbench needs --data" in result.output
