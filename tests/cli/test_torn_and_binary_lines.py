"""Issue 43 item 12: ``score`` and ``report`` say so when they cut a torn last line of
predictions.jsonl (as ``validate`` does), and a line that is not UTF-8 (a binary last line) is
refused in one line naming the file and line ("not UTF-8 text"), never a codec JSON guessed from
the bytes (``utf-16-le``) or a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from robustcall.cli.main import app
from robustcall.core import EvalConfig, GoldenAnswer, Message, Sample, SourceInfo, ToolSpec, write_jsonl

runner = CliRunner()
BINARY = b"\xff\xfe\x00\x01binary\x00\x00"


def _sample(i: int) -> Sample:
    tool = ToolSpec(name="f", description="f.", parameters={"type": "dict", "properties": {"a": {"type": "integer"}}})
    return Sample(
        id=f"bfcl_v3__simple__{i}",
        benchmark="bfcl_v3",
        category="simple",
        source=SourceInfo(original_id=f"simple_{i}", benchmark="bfcl_v3"),
        conversation=[Message(role="user", content=f"call f with {i}")],
        tools=[tool],
        golden_answers=[GoldenAnswer(name="f", parameters={"a": i}, acceptable={"a": [i]})],
        eval_config=EvalConfig(method="bfcl_ast", output_format="bfcl"),
    )


def _run(tmp_path: Path) -> Path:
    bench, run = tmp_path / "bench", tmp_path / "run"
    write_jsonl(bench / "clean.jsonl", [_sample(i) for i in range(3)])
    (bench / "manifest.json").write_text("{}\n")
    got = runner.invoke(
        app, ["run", "--bench", str(bench), "--model", "scripted:oracle", "--types", "clean", "--out", str(run)]
    )
    assert got.exit_code == 0, got.output
    return run


def _append(path: Path, data: bytes) -> None:
    with open(path, "ab") as fh:
        fh.write(data)


@pytest.mark.parametrize("command", ["score", "report"])
def test_a_torn_last_line_is_cut_and_said(tmp_path: Path, command: str) -> None:
    run = _run(tmp_path)
    predictions = run / "predictions.jsonl"
    _append(predictions, b'{"id": "bfcl_v3__simple__9", "predic')
    args = ["score", str(run), "--bootstrap", "0"] if command == "score" else ["report", str(run), "--out"]
    got = runner.invoke(app, [*args, str(tmp_path / "report")] if command == "report" else args)
    assert got.exit_code == 0, got.output
    note = f"note: {predictions}:4: torn last line (a run killed mid-write) cut, not scored; `--resume` asks it again"
    assert note in got.stderr.splitlines()
    assert len((run / "scores.jsonl").read_text().splitlines()) == 3
    assert predictions.read_bytes().endswith(b"\n")  # cut, as a resume cuts it
    again = runner.invoke(app, ["score", str(run), "--bootstrap", "0"])  # nothing torn now: nothing said
    assert again.exit_code == 0 and "torn last line" not in again.output


@pytest.mark.parametrize("torn", [False, True])
def test_a_binary_last_line_is_not_utf8_text(tmp_path: Path, torn: bool) -> None:
    run = _run(tmp_path)
    predictions = run / "predictions.jsonl"
    _append(predictions, BINARY + (b"" if torn else b"\n"))
    got = runner.invoke(app, ["report", str(run), "--out", str(tmp_path / "report")])
    if torn:  # a binary tail without a newline is a torn line like any other
        assert got.exit_code == 0, got.output
        assert f"note: {predictions}:4: torn last line" in got.stderr
        return
    assert got.exit_code == 1
    assert got.output == f"error: {predictions}:4: not UTF-8 text (byte 0xff at column 1)\n"
    scored = runner.invoke(app, ["score", str(run)])
    assert (scored.exit_code, scored.output) == (1, got.output)
    problems = runner.invoke(app, ["validate", str(run)])
    assert f"{predictions}:4: not UTF-8 text (byte 0xff at column 1)" in problems.stdout.splitlines()


def test_report_on_scores_with_a_binary_line_says_which(tmp_path: Path) -> None:
    run = _run(tmp_path)
    assert runner.invoke(app, ["score", str(run), "--bootstrap", "0"]).exit_code == 0
    _append(run / "scores.jsonl", BINARY + b"\n")
    got = runner.invoke(app, ["report", str(run), "--out", str(tmp_path / "report")])
    assert (got.exit_code, got.output) == (
        1,
        f"error: {run / 'scores.jsonl'}:4: not UTF-8 text (byte 0xff at column 1)\n",
    )
