"""Answers that stalled the parser (issue 30, item 1): replayed through ``robustcall run`` in every
output format, each run finishes in seconds with every record written and scored.

On old main the first answer alone (a ``#`` rule inside a call) never finished: the colon-rewrite
pattern backtracked exponentially in the run of ``#``; the 100 KB answers tokenized in quadratic
time (minutes each)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from mock_openai import capital_sample

from robustcall.core import Prediction, PredictionRecord, dump_record, write_jsonl

ROOT = Path(__file__).resolve().parents[2]
KB100 = 100_000

STALLS = {
    "hash_rule": "I will call it: [f(" + "#" * 40 + ")]",
    "hash_rule_spaced": "[f(" + "# " * 40 + ")]",
    "cut_off_comment": "[capital_0(country='C0', # ####",
    "hash_100k": "[f(" + "#" * (KB100 - 5) + ")]",
    "comment_lines_100k": "[f(" + "# ####\n" * ((KB100 - 5) // 7) + ")]",
    "comma_comments_100k": "[f(a" + ",#" * ((KB100 - 6) // 2) + ")]",
    "colon_args_100k": "[f(" + ",".join(f"a{i}: {i}" for i in range(KB100 // 12)),
    "quote_then_brackets_100k": '"' + "[" * (KB100 - 1),
    "open_strings_100k": "[f(a=" + "'\\" * ((KB100 - 6) // 2),
    "action_blanks_100k": "Action: f" + " " * (KB100 - 30) + "x\nAction Input: {}",
    "function_blanks_100k": "Function: f" + " " * (KB100 - 30) + "x\nParameters: {}",
}
FORMATS = ("bfcl", "tool_call", "react", "json")


def _records(tmp_path: Path) -> tuple[Path, Path, dict[str, str]]:
    """A benchmark of one sample per (answer, format), a replay file answering each, and the right
    answer on one extra sample per format."""
    samples, lines, kinds = [], [], {}
    for fmt in FORMATS:
        answers = {**STALLS, "right": "[capital_0(country='C0')]"}
        for k, (name, text) in enumerate(answers.items()):
            base = capital_sample(0)
            sid = f"bfcl_v3__stall__{fmt}_{k}"
            config = base.eval_config.model_copy(update={"output_format": fmt})
            sample = base.model_copy(update={"id": sid, "eval_config": config})
            samples.append(sample)
            kinds[sid] = name
            text = text if name != "right" or fmt == "bfcl" else _rendered(fmt)
            rec = PredictionRecord(**sample.model_dump(), prediction=Prediction(raw_output=text), model="m")
            lines.append(dump_record(rec))
    bench = tmp_path / "bench"
    write_jsonl(bench / "clean.jsonl", samples)
    (bench / "manifest.json").write_text(json.dumps({"counts": {"clean": len(samples)}}) + "\n")
    replay = tmp_path / "replay.jsonl"
    replay.write_text("\n".join(lines) + "\n")
    return bench, replay, kinds


def _rendered(fmt: str) -> str:
    from robustcall.core import ToolCall
    from robustcall.formats import render_calls

    return render_calls([ToolCall(name="capital_0", arguments={"country": "C0"})], fmt)  # type: ignore[arg-type]


def _cli(*args: str, timeout: float) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src") + os.pathsep + os.environ.get("PYTHONPATH", "")}
    cmd = [sys.executable, "-m", "robustcall.cli.main", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env, check=False)


@pytest.mark.filterwarnings("ignore::SyntaxWarning")
def test_stalling_answers_replay_through_run_in_seconds_and_are_scored(tmp_path: Path) -> None:
    bench, replay, kinds = _records(tmp_path)
    run = tmp_path / "run"
    t0 = time.perf_counter()
    try:  # old main: the first record never finishes
        got = _cli("run", "--bench", str(bench), "--out", str(run), "--types", "clean", "--model", f"replay:{replay}",
                   timeout=120)  # fmt: skip
    except subprocess.TimeoutExpired:
        pytest.fail("robustcall run stalled on a hostile answer")
    took = time.perf_counter() - t0
    assert got.returncode == 0, got.stderr
    assert took < 60, took  # about 3 s on the 2-core test machine, interpreter start included
    scored = _cli("score", str(run), "--bootstrap", "0", timeout=60)
    assert scored.returncode == 0, scored.stderr
    rows = [json.loads(line) for line in (run / "scores.jsonl").read_text().splitlines()]
    assert len(rows) == len(kinds)
    for row in rows:
        assert "correct" in row, row  # scored, never an infrastructure error
        assert row["correct"] == (kinds[row["id"]] == "right"), (kinds[row["id"]], row)
