"""A retry waiting out its backoff lends its place; output budgets from the gold calls."""

from __future__ import annotations

import asyncio
from pathlib import Path

from robustcall.core import (
    EvalConfig,
    GoldenAnswer,
    Message,
    PredictionRecord,
    Sample,
    SourceInfo,
    ToolSpec,
    read_checkpoint,
)
from robustcall.models import ModelRequest, ModelResponse, backoff_lender
from robustcall.run import GoldBudget, WorkItem, gold_tokens, run_items


def _sample(i: int, category: str = "simple", args: dict[str, object] | None = None) -> Sample:
    tool = ToolSpec(name="f", description="f.", parameters={"type": "dict", "properties": {"a": {"type": "integer"}}})
    return Sample(
        id=f"s{i}",
        benchmark="bfcl_v3",
        category=category,
        source=SourceInfo(original_id=str(i), benchmark="bfcl_v3"),
        conversation=[Message(role="user", content="q")],
        tools=[tool],
        golden_answers=[] if args is None else [GoldenAnswer(name="f", parameters=args)],
        eval_config=EvalConfig(method="bfcl_ast", output_format="bfcl"),
    )


class Backoffs:
    """s0 fails once and waits out a backoff until s1 and s2 are answered; records who is in flight."""

    name = "scripted:backoffs"
    mode = "prompt"

    def __init__(self) -> None:
        self.others_done = asyncio.Event()
        self.answered: list[str] = []
        self.in_flight = 0
        self.most_in_flight = 0

    async def complete(self, req: ModelRequest) -> ModelResponse:
        sid = req.sample.id
        self.in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)
        await asyncio.sleep(0)
        self.in_flight -= 1
        if sid == "s0":
            lend = backoff_lender.get()
            assert lend is not None
            async with lend():  # without lending, C = 1 would wait here for ever
                await asyncio.wait_for(self.others_done.wait(), timeout=5)
            self.in_flight += 1
            self.most_in_flight = max(self.most_in_flight, self.in_flight)
            await asyncio.sleep(0)
            self.in_flight -= 1
        self.answered.append(sid)
        if len(self.answered) == 2 and sid != "s0":
            self.others_done.set()
        return ModelResponse(text="[f(a=1)]", tool_calls=None)

    async def aclose(self) -> None:
        return None


def test_a_retry_in_backoff_lends_its_place(tmp_path: Path) -> None:
    model = Backoffs()
    items = [WorkItem(_sample(i, args={"a": 1}), "clean") for i in range(3)]
    stats = asyncio.run(run_items(items, model, tmp_path, concurrency=1))
    assert stats.answered == 3 and stats.infra_errors == 0
    assert model.answered == ["s1", "s2", "s0"]  # the others went while s0 waited
    assert model.most_in_flight == 1  # never more requests in flight than C
    recs = read_checkpoint(tmp_path / "predictions.jsonl", PredictionRecord)
    assert sorted(r.id for r in recs) == ["s0", "s1", "s2"]


def test_gold_budget_per_group() -> None:
    short = _sample(0, args={"a": 1})  # "[f(a=1)]": 8 chars -> ceil(8 / 2.5) = 4 tokens
    long = _sample(1, args={"a": 123456789012345678})  # "[f(a=123456789012345678)]": 25 chars -> 10
    other = _sample(2, category="parallel", args={"a": 1})
    none = _sample(3, category="irrelevance")
    assert gold_tokens(short) == 4 and gold_tokens(long) == 10 and gold_tokens(none) == 0
    budget = GoldBudget.from_samples([short, long, other, none], cap=1024)
    assert budget(short) == budget(long) == 64 + 2 * 10  # the group's longest
    assert budget(other) == 64 + 2 * 4
    assert budget(none) == 64 + 2 * 10  # no gold in the group: the benchmark's longest
    assert GoldBudget.from_samples([long], cap=50)(long) == 50  # never above the settings


class SlotHeld:
    """Like the local model: one slot, held through the request's retries and their backoffs."""

    name = "scripted:slot"
    mode = "prompt"

    def __init__(self) -> None:
        self.slot = asyncio.Semaphore(1)
        self.answered: list[str] = []

    async def complete(self, req: ModelRequest) -> ModelResponse:
        async with self.slot:
            if req.sample.id == "s0":
                lend = backoff_lender.get()
                assert lend is not None
                async with lend():  # the borrowing worker now waits for our slot
                    await asyncio.sleep(0.01)
            self.answered.append(req.sample.id)
            return ModelResponse(text="[f(a=1)]", tool_calls=None)

    async def aclose(self) -> None:
        return None


def test_a_retry_done_waiting_never_waits_for_its_place(tmp_path: Path) -> None:
    model = SlotHeld()
    items = [WorkItem(_sample(i, args={"a": 1}), "clean") for i in range(3)]

    async def go() -> None:
        await asyncio.wait_for(run_items(items, model, tmp_path, concurrency=1), timeout=10)

    asyncio.run(go())  # a retry that queued for its place would wait for ever here
    assert model.answered == ["s0", "s1", "s2"]


def test_llama_server_threads_are_the_cpus_not_busy() -> None:
    from robustcall.models.local._model import free_threads

    assert free_threads(2, busy=0.0) == 2  # a quiet machine: every CPU
    assert free_threads(2, busy=0.4) == 2
    assert free_threads(2, busy=1.7) == 1  # another job holds a core: one thread, not two at a barrier
    assert free_threads(2, busy=14.0) == 1  # never fewer than one
    assert free_threads(8, busy=3.0) == 5
