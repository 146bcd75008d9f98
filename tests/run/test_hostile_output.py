"""Model text is hostile input (issue 22, items 5-7): whatever an endpoint on 127.0.0.1 answers,
the run writes a record, scores it (a model-format error is a wrong answer, never an infra error),
does not stall the other requests, and resumes."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from mock_openai import serve_chat

from robustcall.core import (
    EvalConfig,
    GoldenAnswer,
    Message,
    PredictionRecord,
    Sample,
    SourceInfo,
    ToolSpec,
    read_checkpoint,
    write_jsonl,
)
from robustcall.formats import MAX_NESTING, parse_tool_calls
from robustcall.models import make_model
from robustcall.run import parse_types, plan_work, run_items
from robustcall.score import score_run

NINES = "9" * 400
BIG = "9" * 5000


def _sample(i: int) -> Sample:
    tool = ToolSpec(
        name="f",
        description="f.",
        parameters={"type": "dict", "properties": {"a": {"type": "integer", "description": "a"}}, "required": ["a"]},
    )
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


def _deep(levels: int) -> Any:
    value: Any = 1
    for _ in range(levels):
        value = [value]
    return value


def _fc_reply(arguments: str) -> dict[str, Any]:
    call = {"id": "c0", "type": "function", "function": {"name": "f", "arguments": arguments}}
    msg = {"role": "assistant", "content": None, "tool_calls": [call]}
    return {"id": "x", "object": "chat.completion", "choices": [{"index": 0, "message": msg, "finish_reason": "stop"}]}


def _text_reply(text: str) -> dict[str, Any]:
    msg = {"role": "assistant", "content": text}
    return {"id": "x", "object": "chat.completion", "choices": [{"index": 0, "message": msg, "finish_reason": "stop"}]}


PROMPT_ANSWERS = [
    "[f(a=0)]",  # the one right answer (sample 0)
    f"[f(a={NINES}/1)]",  # OverflowError in arithmetic
    f"[f(a={BIG})]",  # past Python's 4,300-digit int limit
    '{"name": "f", "arguments": {"a": ' + BIG + "}}",
    "[f(a=" + "[" * 300 + "]" * 300 + ")]",  # nested 300 levels (pydantic serialises at most 255)
    '{"name": "f", "arguments": ' + json.dumps(json.dumps({"a": _deep(300)})) + "}",  # deep JSON in a string
    "[f(" * 10_000,  # quadratic on old main (about 30 s)
]
FC_ARGUMENTS = [
    json.dumps({"a": 0}),
    '{"a": ' + BIG + "}",
    json.dumps({"a": _deep(300)}),
    '{"a": ' + "[" * 3000 + "1" + "]" * 3000 + "}",  # past json's own recursion limit
]


def _bench(tmp_path: Path, n: int) -> Path:
    d = tmp_path / "bench"
    write_jsonl(d / "clean.jsonl", [_sample(i) for i in range(n)])
    (d / "manifest.json").write_text("{}\n")  # what marks a finished build
    return d


@pytest.mark.parametrize("mode", ["prompt", "fc"])
def test_hostile_answers_are_scored_model_format_errors_and_resume(tmp_path: Path, mode: str) -> None:
    answers = PROMPT_ANSWERS if mode == "prompt" else FC_ARGUMENTS
    bench = _bench(tmp_path, len(answers))
    asked: list[int] = []

    async def reply(body: dict[str, Any]) -> dict[str, Any]:
        i = int(body["messages"][-1]["content"].rsplit(" ", 1)[1])
        asked.append(i)
        return _text_reply(answers[i]) if mode == "prompt" else _fc_reply(answers[i])

    items = plan_work(bench, parse_types("clean"))
    out = tmp_path / "run"
    with serve_chat(reply) as url:
        model = make_model(f"openai:m@{url}", mode=mode)  # type: ignore[arg-type]
        stats = asyncio.run(run_items(items, model, out, concurrency=4))
        assert stats.answered == len(answers) and stats.infra_errors == 0
        records = {r.id: r for r in read_checkpoint(out / "predictions.jsonl", PredictionRecord)}
        assert len(records) == len(answers)
        for i in range(1, len(answers)):
            pred = records[f"bfcl_v3__simple__{i}"].prediction
            assert pred.error_kind == "model_format", (i, pred.error)
            assert all(c.arguments == {} for c in pred.tool_calls)  # fc keeps a call whose arguments failed
        assert records["bfcl_v3__simple__0"].prediction.error_kind is None
        verdicts, summary = score_run(out, resamples=0)
        assert summary.infra_error_ids == []
        assert sorted((v.id, v.correct) for v in verdicts) == sorted(
            (f"bfcl_v3__simple__{i}", i == 0) for i in range(len(answers))
        )
        # a resume keeps every record: nothing is asked again, nothing crashes
        before = len(asked)
        stats2 = asyncio.run(run_items(items, model, out, concurrency=4, resume=True))
        assert stats2.already_done == len(answers) and stats2.answered == 0 and len(asked) == before


def test_parse_entry_never_raises_and_says_why() -> None:
    for text in PROMPT_ANSWERS[1:]:
        for fmt in ("bfcl", "json", "tool_call", "react"):
            got = parse_tool_calls(text, fmt)  # type: ignore[arg-type]
            assert got.calls == [] and got.refused is not None and got.refused.startswith("unreadable: ")
    deep = "[f(a=" + "[" * (MAX_NESTING - 3) + "]" * (MAX_NESTING - 3) + ")]"
    assert parse_tool_calls(deep, "bfcl").refused is None  # within the bound: read
    assert "nested" in (parse_tool_calls("[f(a=" + "[" * 200 + "]" * 200 + ")]", "bfcl").refused or "")
    assert "characters" in (parse_tool_calls("[f(a=1)] " + " " * 100_000, "bfcl").refused or "")


def test_repeated_openers_parse_in_linear_time() -> None:
    # old main: 28.6 s for 30 KB (every opener rescanned the rest of the text); the bound here is
    # generous for a shared machine, the point is the ratio of 30 KB to 90 KB staying linear
    t0 = time.perf_counter()
    for fmt in ("bfcl", "json", "tool_call", "react"):
        assert parse_tool_calls("[f(" * 10_000, fmt).calls == []  # type: ignore[arg-type]
    assert time.perf_counter() - t0 < 10.0


@pytest.mark.parametrize("long", [False, True])
def test_answers_are_parsed_off_the_event_loop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, long: bool) -> None:
    """While an answer, short or long, is being parsed, the event loop keeps serving the run's other tasks."""
    import robustcall.run._answer as answer_mod

    ticked, started = threading.Event(), threading.Event()
    seen: list[bool] = []
    real = answer_mod.read_calls

    def slow_read(response: Any, *rest: Any) -> Any:
        started.set()
        seen.append(ticked.wait(10))  # only set if the loop runs meanwhile
        return real(response, *rest)

    monkeypatch.setattr(answer_mod, "read_calls", slow_read)
    long_text = "[f(a=1)]" + " " * (50_000 if long else 10)

    async def reply(body: dict[str, Any]) -> dict[str, Any]:
        return _text_reply(long_text)

    async def main(url: str) -> None:
        async def heartbeat() -> None:
            while not ticked.is_set():
                await asyncio.sleep(0.01)
                if started.is_set():  # the loop turns while the parse is under way
                    ticked.set()

        model = make_model(f"openai:m@{url}", mode="prompt")
        items = plan_work(_bench(tmp_path, 1), parse_types("clean"))
        await asyncio.gather(run_items(items, model, tmp_path / "run"), heartbeat())

    with serve_chat(reply) as url:
        asyncio.run(main(url))
    assert seen == [True]
    rec = read_checkpoint(tmp_path / "run" / "predictions.jsonl", PredictionRecord)[0]
    assert [c.name for c in rec.prediction.tool_calls] == ["f"]


def test_an_unrecordable_prediction_is_written_as_a_model_format_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The record writer's own failure (whatever a bound missed) cannot stop the run."""
    import robustcall.run._engine as engine

    real = engine.prediction_line

    def picky(sample: Any, pred: Any, model: str, trial: int | None = None) -> str:
        if pred.tool_calls:
            raise ValueError("Maximum serialization depth exceeded")
        return real(sample, pred, model, trial)

    monkeypatch.setattr(engine, "prediction_line", picky)
    items = plan_work(_bench(tmp_path, 2), parse_types("clean"))
    stats = asyncio.run(run_items(items, make_model("scripted:oracle"), tmp_path / "run"))
    assert stats.answered == 2 and stats.infra_errors == 0
    recs = read_checkpoint(tmp_path / "run" / "predictions.jsonl", PredictionRecord)
    assert [r.prediction.error_kind for r in recs] == ["model_format", "model_format"]
    assert all("could not be recorded" in (r.prediction.error or "") for r in recs)
