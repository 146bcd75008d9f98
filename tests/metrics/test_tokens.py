"""metrics.fault_tokens: tokens per δ and the paired steps / token overheads over δ = 0, exactly."""

from __future__ import annotations

import pytest

from robustcall.core import Step, Trajectory, Usage
from robustcall.metrics import Price, Prices, fault_tokens


def _episode(task: str, delta: float, tokens: list[int], success: bool = True) -> Trajectory:
    steps = [Step(index=i, usage=Usage(prompt_tokens=t, completion_tokens=1)) for i, t in enumerate(tokens)]
    return Trajectory(
        id=f"maze/{task}@{delta}", env="maze", task_id=task, model="m", config={"delta": delta}, steps=steps,
        success=success,
    )  # fmt: skip


def test_fault_tokens_per_delta_with_paired_overheads() -> None:
    episodes = [
        _episode("a", 0.0, [9, 9]),  # 20 tokens, 2 steps
        _episode("b", 0.0, [4]),  # 5 tokens, 1 step
        _episode("a", 0.3, [9, 9, 9, 9]),  # 40 tokens, 4 steps
        _episode("b", 0.3, [4, 4], success=False),  # not completed: out of the pairing
    ]
    prices = Prices(models={"m": Price(input=1_000_000, output=0)})  # a dollar a prompt token
    (rows,) = fault_tokens(episodes, lambda t: t.model, prices).values()
    zero, faulty = rows
    assert (zero.delta, zero.row.records, zero.row.steps, zero.row.total_tokens) == (0.0, 2, 3, 25)
    assert zero.row.cost_usd == 22.0 and zero.row.timed == 0 and zero.row.mean_latency_s is None  # no step time
    assert (faulty.row.records, faulty.row.steps, faulty.row.total_tokens, faulty.row.requests) == (2, 6, 50, 6)
    assert faulty.paired_tasks == 1  # only task a completed in both conditions
    assert faulty.steps_overhead == pytest.approx(4 / 2 - 1)
    assert faulty.token_overhead == pytest.approx(40 / 20 - 1)
    assert zero.steps_overhead is None and zero.token_overhead is None


def test_episodes_without_usage_count_but_carry_no_tokens() -> None:
    bare = Trajectory(id="maze/a", env="maze", task_id="a", config={"delta": 0.0}, steps=[Step(index=0)], success=True)
    (rows,) = fault_tokens([bare], lambda t: "x").values()
    assert (rows[0].row.records, rows[0].row.with_usage, rows[0].row.mean_tokens) == (1, 0, None)


def test_usage_is_read_as_the_server_gives_it() -> None:
    from robustcall.models._convert import read_usage

    openai = {"usage": {"prompt_tokens": 9, "completion_tokens": 3, "prompt_tokens_details": {"cached_tokens": 4}}}
    assert read_usage(openai) == Usage(prompt_tokens=9, completion_tokens=3, cached_tokens=4)
    llama = {"usage": {"prompt_tokens": 9, "completion_tokens": 3, "total_tokens": 12}, "timings": {"cache_n": 7}}
    assert read_usage(llama) == Usage(prompt_tokens=9, completion_tokens=3, cached_tokens=7)
    assert read_usage({"usage": {"prompt_tokens": 9, "completion_tokens": 3}}).cached_tokens is None  # type: ignore[union-attr]
    for bad in (
        {},
        {"usage": None},
        {"usage": {"prompt_tokens": -1, "completion_tokens": 3}},
        {"usage": {"prompt_tokens": True, "completion_tokens": 1}},
    ):
        assert read_usage(bad) is None  # nothing estimated: no usable count, no usage


def test_usage_adds_over_requests() -> None:
    a = Usage(prompt_tokens=5, completion_tokens=2)
    b = Usage(prompt_tokens=7, completion_tokens=1, cached_tokens=5)
    assert a + b == Usage(prompt_tokens=12, completion_tokens=3, cached_tokens=5, requests=2)
    assert (a + a).cached_tokens is None and (a + b).total_tokens == 15
