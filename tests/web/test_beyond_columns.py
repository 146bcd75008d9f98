"""Appendix N's axes (beyond the paper) on the leaderboard: extra columns, never in the ranking numbers."""

from __future__ import annotations

from pathlib import Path

from starlette.testclient import TestClient
from typer.testing import CliRunner

from robustcall.cli.main import app
from robustcall.web import create_app


def _invoke(*args: str) -> None:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.output


def test_beyond_records_are_optional_extra_columns(tmp_path: Path) -> None:
    bench = tmp_path / "bench"
    _invoke("build", "--sources", "bfcl", "--per-source", "bfcl=6", "--types", "all", "--out", str(bench))
    paper, both = tmp_path / "paper", tmp_path / "both"
    args = ["--types", "static,transition", "--out", str(paper)]
    _invoke("run", "--bench", str(bench), "--model", "scripted:obey_instructions", *args)
    # the default --types all runs every type the benchmark holds, the beyond ones too
    _invoke("run", "--bench", str(bench), "--model", "scripted:obey_instructions", "--out", str(both))
    with TestClient(create_app(bench, f"sqlite:///{tmp_path / 'lb.db'}")) as client:
        only = client.post("/api/submissions?model=paper-only", content=(paper / "predictions.jsonl").read_bytes())
        full = client.post("/api/submissions?model=with-beyond", content=(both / "predictions.jsonl").read_bytes())
        assert only.status_code == 201 and full.status_code == 201, (only.text, full.text)
        a, b = only.json(), full.json()
        assert a["partial"] is False and b["partial"] is False  # the beyond types are never expected
        assert a["expected"] == b["expected"] and a["pert_acc"] == b["pert_acc"]  # nor counted in Pert. Acc.
        assert a["beyond"] == {"accuracy": None, "attack_success": None}
        assert b["beyond"]["attack_success"] == 1.0 and 0 < b["beyond"]["accuracy"] < 1
        page = client.get("/").text
        assert "Beyond Acc." in page and "Inject ASR" in page and "1.000" in page  # fractions, as in the report
        detail = client.get(f"/submissions/{b['id']}").text
        assert "Beyond the paper: Inject (prompt_injection)" in detail
