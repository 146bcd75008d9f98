"""RoTBench's three stages (ToolRM's Table 3) for Best-of-n picks: exact values, real data, the CLI table."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from robustcall.cli.main import app
from robustcall.core import EvalConfig, GoldenAnswer, Message, Sample, SourceInfo, ToolCall, ToolSpec
from robustcall.report import bon_rotbench_table
from robustcall.rewards import BonRecord
from robustcall.score import rotbench_stages


def _sample(golden: list[GoldenAnswer], mode: str = "all") -> Sample:
    return Sample(
        id="rotbench__clean_0",
        benchmark="rotbench",
        category="clean",
        source=SourceInfo(original_id="0", benchmark="rotbench", extra={"golden_mode": mode}),
        conversation=[Message(role="user", content="q")],
        tools=[ToolSpec(name="f", parameters={"type": "object", "properties": {"a": {}, "b": {}}})],
        golden_answers=golden,
        eval_config=EvalConfig(method="rotbench", output_format="react"),
    )


def test_stages_are_nested_name_keys_values() -> None:
    s = _sample([GoldenAnswer(name="f", parameters={"a": 1, "b": "x"})])
    assert rotbench_stages(s, [ToolCall(name="f", arguments={"a": 1, "b": "x"})]) == (True, True, True)
    assert rotbench_stages(s, [ToolCall(name="f", arguments={"a": 1, "b": "y"})]) == (True, True, False)
    assert rotbench_stages(s, [ToolCall(name="f", arguments={"a": 1})]) == (True, False, False)
    assert rotbench_stages(s, [ToolCall(name="g", arguments={"a": 1, "b": "x"})]) == (False, False, False)
    assert rotbench_stages(s, []) == (False, False, False)
    alts = _sample([GoldenAnswer(name="g", parameters={}), GoldenAnswer(name="f", parameters={"a": 2})], mode="any")
    assert rotbench_stages(alts, [ToolCall(name="f", arguments={"a": 3})]) == (True, True, False)
    none = _sample([])
    assert rotbench_stages(none, []) == (True, True, True)
    assert rotbench_stages(none, [ToolCall(name="f", arguments={})]) == (False, False, False)


def _record(split: str, greedy: list[bool], rm: list[bool]) -> BonRecord:
    return BonRecord(
        id=f"r_{split}",
        benchmark="rotbench",
        category=split,
        greedy="",
        draws=["x"],
        logprobs=[None],
        picks={"greedy": -1, "rm:toolrm": 0},
        stages={"greedy": greedy, "rm:toolrm": rm},
    )


def test_table_3_layout() -> None:
    records = [
        _record("clean", [True, False, False], [True, True, True]),
        _record("clean", [False, False, False], [True, True, False]),
        _record("union", [True, True, False], [True, True, True]),
    ]
    table = bon_rotbench_table(records, 32)
    assert table is not None
    assert table.header == ["Method", "TS clean", "TS union", "PI clean", "PI union", "CF clean", "CF union"]
    assert table.rows == [
        ["greedy", "50.0", "100.0", "0.0", "100.0", "0.0", "0.0"],
        ["rm:toolrm", "100.0", "100.0", "100.0", "100.0", "50.0", "100.0"],
    ]
    assert bon_rotbench_table([r.model_copy(update={"stages": {}}) for r in records], 32) is None


def test_best_of_n_on_rotbench_prints_the_stages(shared_data: Path, tmp_path: Path) -> None:
    if not (shared_data / "rotbench" / "First_Turn" / "clean.json").is_file():
        pytest.skip("RoTBench not found under ../shared/data/rotbench")
    args = ["rm", "best-of-n", "--source", "rotbench", "--data-dir", str(shared_data), "-g", "scripted:oracle"]
    res = CliRunner().invoke(app, [*args, "-s", "schema", "--n", "2", "--limit", "12", "-o", str(tmp_path)])
    assert res.exit_code == 0, res.output
    assert "RoTBench stages (%) of the Best-of-2 picks" in res.output
    table = (tmp_path / "best_of_n_rotbench.md").read_text()
    # the oracle generator answers the gold: every stage of every pick passes
    rows = [ln for ln in table.splitlines() if ln.startswith(("| greedy", "| rm:schema", "| oracle"))]
    assert len(rows) == 3
    for line in rows:
        assert set(line.strip("| ").split(" | ")[1:]) == {"100.0"}, line
