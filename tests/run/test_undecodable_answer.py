"""An answer whose text is not Unicode (issue 30, item 11): a lone surrogate escape (``"\\ud800"``)
is the model's own output, so the record is a scored model-format error, never an infrastructure
error that every resume asks again."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from mock_openai import capital_sample, completion, serve_chat, write_capital_bench

from robustcall.core import PredictionRecord, read_checkpoint
from robustcall.models import make_model
from robustcall.run import parse_types, plan_work, run_items
from robustcall.score import score_run


def test_a_lone_surrogate_answer_is_a_scored_format_error_and_is_not_asked_again(tmp_path: Path) -> None:
    bench = write_capital_bench(tmp_path / "bench", 3)
    asked: list[int] = []
    answers = {
        0: "[capital_0(country='C0')]",
        1: "[capital_1(country='C1')] \ud800",  # sent as the JSON escape \ud800 (ensure_ascii)
        2: "[capital_2(country='C\udc002')]",
    }

    async def reply(body: dict[str, Any]) -> dict[str, Any]:
        i = int(body["messages"][-1]["content"].rsplit(" ", 1)[1].rstrip("?"))
        asked.append(i)
        return completion(answers[i])

    items = plan_work(bench, parse_types("clean"))
    out = tmp_path / "run"
    with serve_chat(reply) as url:
        model = make_model(f"openai:m@{url}")
        stats = asyncio.run(run_items(items, model, out))
        assert stats.answered == 3 and stats.infra_errors == 0
        records = {r.id: r.prediction for r in read_checkpoint(out / "predictions.jsonl", PredictionRecord)}
        ok, lone, inside = (records[capital_sample(i).id] for i in range(3))
        assert ok.error_kind is None
        for pred in (lone, inside):
            assert pred.error_kind == "model_format", pred.error
            assert pred.error is not None and "lone surrogate" in pred.error
            assert "\ufffd" in pred.raw_output
        assert [c.name for c in lone.tool_calls] == ["capital_1"]  # the rest of the text is still read
        verdicts, summary = score_run(out, resamples=0)
        assert summary.infra_error_ids == []
        assert {v.id: v.correct for v in verdicts} == {
            capital_sample(0).id: True,
            capital_sample(1).id: True,  # the call is right; the stray character is outside it
            capital_sample(2).id: False,
        }
        before = len(asked)
        again = asyncio.run(run_items(items, model, out, resume=True))
        assert again.already_done == 3 and len(asked) == before
