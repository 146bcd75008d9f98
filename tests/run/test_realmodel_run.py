"""The whole loop through the real embedded model: CLI run (incl. a real two-pass transition) + score.

Three requests at most; skipped when the model is not set up (`robustcall model setup`).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from robustcall.cli.main import app
from robustcall.core import PredictionRecord, Verdict, read_jsonl, write_jsonl
from robustcall.models.local import check
from robustcall.sources import load_source

pytestmark = [
    pytest.mark.realmodel,
    pytest.mark.skipif(not check().ready, reason="embedded model not set up: run `robustcall model setup`"),
    pytest.mark.timeout(400),
]


def test_local_model_run_with_a_real_transition(tmp_path: Path) -> None:
    bfcl = load_source("bfcl")
    sample = next(s for s in bfcl.samples if s.id == "bfcl_v3__BFCL_v3_simple__simple_python_0")
    bench = tmp_path / "bench"
    write_jsonl(bench / "clean.jsonl", [sample])
    (bench / "manifest.json").write_text("{}\n")  # what marks a finished build
    out = tmp_path / "run"
    runner = CliRunner()
    res = runner.invoke(
        app,
        ["run", "--bench", str(bench), "--out", str(out), "--types", "clean,transient_server_error"],
    )
    assert res.exit_code == 0, res.output
    recs = {r.perturbation.type: r for r in read_jsonl(out / "predictions.jsonl", PredictionRecord)}
    assert set(recs) == {"clean", "transient_server_error"}
    assert all(r.prediction.error_kind != "infra" for r in recs.values())
    clean, trans = recs["clean"], recs["transient_server_error"]
    assert clean.prediction.raw_output.strip()
    assert trans.prediction.pass1_raw_output is not None or trans.prediction.transition_injected is False
    if trans.prediction.transition_injected:
        # pass 1 is the same prompt as clean at temperature 0: it called a tool, so pass 2 ran
        assert trans.prediction.pass1_tool_calls
        # ... and the local model answered that identical request once (LocalModel.reuse_answers)
        assert trans.prediction.pass1_raw_output == clean.prediction.raw_output
        assert trans.prediction.raw_output != "" or trans.prediction.tool_calls == []
    res = runner.invoke(app, ["score", str(out), "--bootstrap", "0"])
    assert res.exit_code == 0, res.output
    verdicts = read_jsonl(out / "scores.jsonl", Verdict)
    assert {v.type for v in verdicts} == {"clean", "transient_server_error"}
    assert all(v.correct is not None for v in verdicts)
