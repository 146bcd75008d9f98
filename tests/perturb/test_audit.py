"""`robustcall audit`: automatic checks catch a lost golden value; the judge gives Table 6 stats."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from robustcall.cli.main import app
from robustcall.core import Sample, read_jsonl, write_jsonl
from robustcall.perturb import build_benchmark
from robustcall.perturb.audit import audit

sys.path.insert(0, str(Path(__file__).parents[1] / "run"))
from mock_openai import mock_openai


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
