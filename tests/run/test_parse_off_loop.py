"""Parsing never runs on the event loop (issue 34): against a mock endpoint answering in 20 ms, a
run whose answers include some of the slowest texts known keeps every other record's recorded
latency (the request's own time, which a blocked loop inflates) under 1 s, and its records right.

Before: twelve 16 KB answers of the shape below in a 16-record run took 125 s and the normal
records' latencies were 12-32 s, parsing ran on the loop. The real slow text costs about 1 s of
CPU per answer before the parser's work account made it linear; a scripted parse that holds the
interpreter for 1.5 s in pure Python stands in for whatever is slowest after that.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest
from mock_openai import serve_chat
from test_hostile_output import _sample, _text_reply

from robustcall.core import PredictionRecord, read_checkpoint, write_jsonl
from robustcall.models import make_model
from robustcall.run import _answer as answer_mod
from robustcall.run import _episode as episode_mod
from robustcall.run import parse_types, plan_work, run_episode, run_items

SLOW_TEXT = "'" + "{" * 3000 + "}" * 3000
"""An open quote, then deeply nested braces: quadratic in the parser before issue 34."""
SCRIPTED_SLOW = "scripted slow answer"
RECORDS = 16
SLOW = {1, 5, 9, 13}


def _busy(seconds: float) -> None:
    """Pure-Python work holding the interpreter as a slow reader would."""
    end = time.process_time() + seconds
    n = 0
    while time.process_time() < end:
        n += 1


@pytest.mark.parametrize("slow_text", [SLOW_TEXT, SCRIPTED_SLOW])
def test_slow_answers_delay_only_their_own_records(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, slow_text: str
) -> None:
    real = answer_mod.read_calls

    def scripted(response: Any, *rest: Any) -> Any:
        if response.text == SCRIPTED_SLOW:
            _busy(1.5)
        return real(response, *rest)

    monkeypatch.setattr(answer_mod, "read_calls", scripted)
    bench = tmp_path / "bench"
    write_jsonl(bench / "clean.jsonl", [_sample(i) for i in range(RECORDS)])
    (bench / "manifest.json").write_text("{}\n")

    async def reply(body: dict[str, Any]) -> dict[str, Any]:
        i = int(body["messages"][-1]["content"].rsplit(" ", 1)[1])
        await asyncio.sleep(0.02)
        return _text_reply(slow_text if i in SLOW else f"[f(a={i})]")

    out = tmp_path / "run"
    with serve_chat(reply) as url:
        model = make_model(f"openai:m@{url}", mode="prompt")
        stats = asyncio.run(run_items(plan_work(bench, parse_types("clean")), model, out, concurrency=4))
    assert stats.answered == RECORDS and stats.infra_errors == 0
    records = {
        int(r.id.rsplit("__", 1)[1]): r.prediction for r in read_checkpoint(out / "predictions.jsonl", PredictionRecord)
    }
    assert sorted(records) == list(range(RECORDS))
    for i, pred in records.items():
        if i in SLOW:
            assert pred.raw_output == slow_text and pred.tool_calls == []
            continue
        assert [(c.name, c.arguments) for c in pred.tool_calls] == [("f", {"a": i})]
        assert pred.latency_s is not None and pred.latency_s < 1.0, (i, pred.latency_s)


def test_an_episode_parses_its_answers_off_the_event_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    """`faults run`, `pipe run` and `rm best-of-n --env` step through ``run_episode``: while one of its
    answers is read (a scripted 1.5 s parse), the loop keeps turning for the other episodes."""
    from robustcall.envs import make_env

    real = episode_mod.parse_tool_calls

    def slow(text: str, *rest: Any) -> Any:
        _busy(1.5)
        return real(text, *rest)

    monkeypatch.setattr(episode_mod, "parse_tool_calls", slow)
    env = make_env("maze")
    gaps: list[float] = []

    async def main() -> None:
        done = asyncio.Event()

        async def heartbeat() -> None:
            last = time.perf_counter()
            while not done.is_set():
                await asyncio.sleep(0.01)
                now = time.perf_counter()
                gaps.append(now - last)
                last = now

        beat = asyncio.create_task(heartbeat())
        await run_episode(make_model(f"openai:m@{url}", mode="prompt"), env, env.task_ids()[0], max_steps=1)
        done.set()
        await beat

    async def reply(body: dict[str, Any]) -> dict[str, Any]:
        return _text_reply("I will not call anything.")

    with serve_chat(reply) as url:
        asyncio.run(main())
    assert sum(gaps) > 1.4 and max(gaps) < 0.5, max(gaps)
