"""Issue 43 item 9: an answer longer than the parser reads is kept cut in predictions.jsonl (its
first MAX_PARSE_CHARS characters, with its whole length and sha256 in ``raw_output_cut``), and the
record scores, re-parses and replays as the whole answer did. Files without the field read as
before (their ``raw_output`` is whole)."""

from __future__ import annotations

import asyncio
import hashlib
import json
from pathlib import Path
from typing import Any

from mock_openai import serve_chat
from test_hostile_output import _bench, _text_reply

from robustcall.core import (
    MAX_PARSE_CHARS,
    OutputCut,
    Prediction,
    PredictionRecord,
    Sample,
    cut_output,
    prediction_line,
    read_checkpoint,
    read_jsonl,
)
from robustcall.models import make_model
from robustcall.run import parse_types, plan_work, run_items
from robustcall.score import reparse, score_run

LONG = "[f(a=1)]" + "é" * 300_000 + "\ud800"
"""Longer than the parser reads (it refuses it unread, though it starts with a right call); a
non-ASCII character and a lone surrogate, as JSON decoding may give one."""
ANSWER = LONG[:-1]
"""What the mock endpoint answers (its JSON client reads no lone surrogate)."""


def test_a_text_past_the_parse_bound_is_kept_cut_with_its_length_and_sha256() -> None:
    kept, cut = cut_output(LONG)
    assert kept == LONG[:MAX_PARSE_CHARS] and len(kept) == 100_000
    assert cut == OutputCut(chars=300_009, sha256=hashlib.sha256(LONG.encode("utf-8", "surrogatepass")).hexdigest())
    assert cut_output("x" * MAX_PARSE_CHARS) == ("x" * MAX_PARSE_CHARS, None)  # at the bound: whole
    short = Prediction(raw_output="[f(a=1)]")
    assert short.kept() is short
    both = Prediction(raw_output=LONG, pass1_raw_output="y" * 100_001).kept()
    assert (len(both.raw_output), both.raw_output_cut, len(both.pass1_raw_output or "")) == (100_000, cut, 100_000)
    assert both.pass1_raw_output_cut is not None and both.pass1_raw_output_cut.chars == 100_001


def test_a_run_keeps_a_long_answer_cut_and_scores_it_as_the_whole_one(tmp_path: Path) -> None:
    async def reply(body: dict[str, Any]) -> dict[str, Any]:
        i = int(body["messages"][-1]["content"].rsplit(" ", 1)[1])
        return _text_reply(ANSWER if i == 1 else f"[f(a={i})]")

    out = tmp_path / "run"
    items = plan_work(_bench(tmp_path, 2), parse_types("clean"))
    with serve_chat(reply) as url:
        stats = asyncio.run(run_items(items, make_model(f"openai:m@{url}", mode="prompt"), out, concurrency=2))
    assert stats.answered == 2
    lines = (out / "predictions.jsonl").read_text(encoding="utf-8").splitlines()
    assert max(len(line) for line in lines) < 110_000  # it was one line of 300 KB
    records = {r.id: r for r in read_checkpoint(out / "predictions.jsonl", PredictionRecord)}
    pred = records["bfcl_v3__simple__1"].prediction
    assert pred.raw_output == ANSWER[:MAX_PARSE_CHARS] and pred.tool_calls == []
    assert pred.raw_output_cut == cut_output(ANSWER)[1]
    assert pred.error == "unreadable: the answer is 300,008 characters; the parser reads at most 100,000"
    assert pred.error_kind == "model_format"
    assert records["bfcl_v3__simple__0"].prediction.raw_output_cut is None
    assert sum('"raw_output_cut"' in line for line in lines) == 1  # absent where the text is whole
    # scored, re-parsed and replayed as the whole answer: wrong, no calls (the kept part alone,
    # 100,000 characters, would be read as the right call f(a=1))
    verdicts, _ = score_run(out, resamples=0)
    assert {v.id: v.correct for v in verdicts} == {"bfcl_v3__simple__0": True, "bfcl_v3__simple__1": False}
    assert reparse(records["bfcl_v3__simple__1"]).prediction.tool_calls == []
    replayed = tmp_path / "replayed"
    asyncio.run(run_items(items, make_model(f"replay:{out / 'predictions.jsonl'}", mode="prompt"), replayed))
    again = {r.id: r.prediction for r in read_checkpoint(replayed / "predictions.jsonl", PredictionRecord)}
    assert again["bfcl_v3__simple__1"].tool_calls == [] and again["bfcl_v3__simple__1"].error == pred.error
    assert [c.arguments for c in again["bfcl_v3__simple__0"].tool_calls] == [{"a": 0}]


def test_a_record_without_the_field_reads_as_before(tmp_path: Path) -> None:
    """A format-1 file: ``raw_output`` is whole, whatever its length (no ``raw_output_cut``)."""
    line = json.loads(prediction_line(_sample0(tmp_path), Prediction(raw_output="[f(a=0)]"), "m"))
    line["prediction"]["raw_output"] = "[f(a=0)]" + " " * 150_000
    path = tmp_path / "old.jsonl"
    path.write_text(json.dumps(line) + "\n")
    (rec,) = read_checkpoint(path, PredictionRecord)
    assert rec.prediction.raw_output_cut is None and len(rec.prediction.raw_output) == 150_008
    assert reparse(rec).prediction.tool_calls == []  # the parser refuses the whole text for its length


def _sample0(tmp_path: Path) -> Sample:
    return read_jsonl(_bench(tmp_path, 1) / "clean.jsonl", Sample)[0]
