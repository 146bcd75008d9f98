"""Issue 43 item 1: a stop is a recovery only after a fault the episode offers no way past.

Three registered scripted agents that all name the fault they meet (EIA 1) and differ only in what they
do next, on the shop environment with exactly one fault, injected at the first call (the search):

- ``scripted:stopper`` stops at once;
- ``scripted:retrier`` (the namer-adapter) retries, adapts to a changed interface, re-queries after an
  anomaly, and stops when the tool it needs is gone;
- ``scripted:naming_repeater`` repeats the failed call unchanged.

What each does after each type is fixed, so R_i and task success are known per type (``EXPECTED``),
and RR / RASR per class follow by counting.
"""

from __future__ import annotations

import asyncio
from functools import cache
from pathlib import Path

import pytest
from shop_env import ShopEnv
from typer.testing import CliRunner

from robustcall.cli.main import app
from robustcall.core import KNOWN_FAULT_TYPES, Step, ToolCall, Trajectory
from robustcall.faults import FAULT_TYPES, TAXONOMY_TYPES, CustomFault, FaultProfile, FaultyEnv
from robustcall.metrics import analyse, fault_metrics, recovered
from robustcall.models import make_model
from robustcall.run import read_trajectories, run_episode

DEAD_ENDS = {"tool_deprecated", "http_404", "http_401", "http_403"}
"""The types whose persisting fault leaves no way on (``FaultType.dead_end``); the docs/faults.md table."""
STICKY_ONLY = {"http_404", "http_401", "http_403"}
"""Of those, the ones that persist only under a sticky profile (drawn per call otherwise)."""
AGENTS = ("stopper", "retrier", "naming_repeater")


def _dead_end(code: str, sticky: bool) -> bool:
    return code in DEAD_ENDS and (sticky or code not in STICKY_ONLY)


def expected(agent: str, code: str, sticky: bool) -> tuple[bool, bool]:
    """(R_i, task solved) for ``agent`` after one ``code`` fault on the first call of a shop task."""
    ftype = FAULT_TYPES[code]
    if _dead_end(code, sticky):
        # no way on: only the stop counts; the retrier stops only when the tool is gone (it retries a refused
        # search forever), the naming repeater meets the same fault again and again
        return {
            "stopper": True,
            "retrier": code == "tool_deprecated",
            "naming_repeater": False,
        }[agent], False
    if agent == "stopper":
        return False, False  # it named the fault, but a retry / adaptation / re-query was there to take
    if agent == "naming_repeater" and ftype.fault_class == "nonstationary":
        return False, False  # the repeat is written against the old interface and is refused again
    return True, True  # a clean retry, re-query or adapted call, then the task


@cache
def _episodes(agent: str, code: str, sticky: bool) -> tuple[Trajectory, ...]:
    profile = FaultProfile(name=f"one-{code}", delta=1.0, faults={code: 1.0}, at_calls=[0], sticky=sticky)
    model = make_model(f"scripted:{agent}")

    async def play() -> list[Trajectory]:
        return [
            await run_episode(model, FaultyEnv(ShopEnv(), profile), task, seed=0, max_steps=6)
            for task in ("lamp", "mug")
        ]

    return tuple(asyncio.run(play()))


def test_the_dead_ends_are_the_deprecated_tool_and_the_refusals_that_persist() -> None:
    assert {code for code, t in KNOWN_FAULT_TYPES.items() if t.dead_end} == DEAD_ENDS
    assert all(not FAULT_TYPES[c].transient for c in DEAD_ENDS)


@pytest.mark.parametrize("sticky", [False, True])
@pytest.mark.parametrize("agent", AGENTS)
@pytest.mark.parametrize("code", TAXONOMY_TYPES)
def test_each_agent_recovers_exactly_where_its_reaction_fits_the_fault(agent: str, code: str, sticky: bool) -> None:
    want_r, want_solved = expected(agent, code, sticky)
    for t in _episodes(agent, code, sticky):
        _, faults = analyse(t)
        assert [f.fault_type for f in faults] in ([code], ["empty_result"]), t.id  # an anomaly may fall back
        (f,) = faults
        assert f.identified and f.in_rr, t.id
        assert (f.recovered, bool(t.success)) == (want_r, want_solved), (t.id, [s.raw_output for s in t.steps])
        if agent == "stopper":  # a stop that names the fault is Graceful Failure either way; only a dead end recovers
            assert f.mode == "graceful_failure" and t.termination == "no_action"


# RR and RASR per class (one fault per attempt, two attempts per type), worked out from EXPECTED:
# execution 7 types (3 dead ends when sticky), semantic 5, non-stationarity 3 (1 dead end: the removal)
RR_BY_CLASS = {
    ("stopper", False): {"execution": 0 / 7, "semantic": 0 / 5, "nonstationary": 1 / 3},
    ("stopper", True): {"execution": 3 / 7, "semantic": 0 / 5, "nonstationary": 1 / 3},
    ("retrier", False): {"execution": 7 / 7, "semantic": 5 / 5, "nonstationary": 3 / 3},
    ("retrier", True): {"execution": 4 / 7, "semantic": 5 / 5, "nonstationary": 3 / 3},
    ("naming_repeater", False): {"execution": 7 / 7, "semantic": 5 / 5, "nonstationary": 0 / 3},
    ("naming_repeater", True): {"execution": 4 / 7, "semantic": 5 / 5, "nonstationary": 0 / 3},
}
RASR_BY_CLASS = {
    ("stopper", False): {"execution": 0 / 7, "semantic": 0 / 5, "nonstationary": 0 / 3},
    ("stopper", True): {"execution": 0 / 7, "semantic": 0 / 5, "nonstationary": 0 / 3},
    ("retrier", False): {"execution": 7 / 7, "semantic": 5 / 5, "nonstationary": 2 / 3},
    ("retrier", True): {"execution": 4 / 7, "semantic": 5 / 5, "nonstationary": 2 / 3},
    ("naming_repeater", False): {"execution": 7 / 7, "semantic": 5 / 5, "nonstationary": 0 / 3},
    ("naming_repeater", True): {"execution": 4 / 7, "semantic": 5 / 5, "nonstationary": 0 / 3},
}


@pytest.mark.parametrize("sticky", [False, True])
@pytest.mark.parametrize("agent", AGENTS)
def test_rr_and_rasr_per_class_are_the_known_ones(agent: str, sticky: bool) -> None:
    for cls in ("execution", "semantic", "nonstationary"):
        trajs = [t for c in TAXONOMY_TYPES if FAULT_TYPES[c].fault_class == cls for t in _episodes(agent, c, sticky)]
        m = fault_metrics(trajs)
        assert m.rr_faults == len(trajs) and m.eia == 1.0
        assert m.recovery_rate == pytest.approx(RR_BY_CLASS[agent, sticky][cls]), cls
        assert m.success_rate == pytest.approx(RASR_BY_CLASS[agent, sticky][cls]), cls
    # the stopper never recovers more than the agent that adapts, on any class
    if agent == "stopper":
        for cls, rr in RR_BY_CLASS[agent, sticky].items():
            assert rr <= RR_BY_CLASS["retrier", sticky][cls]


def _stop_after(fault: dict[str, object], text: str) -> Trajectory:
    call = ToolCall(name="search", arguments={"query": "lamp"})
    steps = [Step(index=0, action=call, executed=call, observation="x", fault=fault), Step(index=1, raw_output=text)]
    return Trajectory(
        id="t", env="shop", task_id="lamp", steps=steps, success=False, score=0.0, termination="no_action"
    )


def _fault(code: str, *, transient: bool, persists: bool, cls: str = "execution") -> dict[str, object]:
    return {"step": 0, "tool": "search", "fault_type": code, "fault_class": cls, "transient": transient,
            "observation": "x", "executed": False, "persists": persists}  # fmt: skip


@pytest.mark.parametrize(
    ("fault", "text", "credited"),
    [
        (_fault("http_401", transient=False, persists=False), "The credentials are unauthorized. I stop.", False),
        (_fault("http_401", transient=False, persists=True), "The credentials are unauthorized. I stop.", True),
        (_fault("timeout", transient=True, persists=False), "The request timed out. I stop.", False),
        (
            _fault("param_renamed", transient=False, persists=True, cls="nonstationary"),
            "A parameter was renamed.",
            False,
        ),
        (_fault("tool_deprecated", transient=False, persists=True, cls="nonstationary"), "It was deprecated.", True),
        (_fault("prerequisite", transient=False, persists=True), "I am not authenticated. I stop.", False),
        # a custom fixed-message type: its declaration (transient or not) is all a profile says of it
        (_fault("budget_expired", transient=False, persists=False), "The quota is exhausted; I stop.", True),
        (_fault("vendor_quota", transient=True, persists=False), "The quota is exhausted; I stop.", False),
    ],
)
def test_a_stop_naming_the_fault_recovers_only_from_a_dead_end(
    fault: dict[str, object], text: str, credited: bool
) -> None:
    assert recovered(_stop_after(fault, text), 0) is credited


def test_faults_run_and_report_with_a_stopper_end_to_end(tmp_path: Path) -> None:
    """``faults run`` and ``faults report`` through the CLI: the stopper's RR on non-stationarity is the
    share of removals among its faults (its only dead end), though it names every fault."""
    profile = tmp_path / "ns.yaml"
    profile.write_text("name: ns\ndelta: 1\nat_calls: [0]\nfaults: {tool_deprecated: 1, param_renamed: 1}\n")
    out = tmp_path / "run"
    args = ["faults", "run", "--env", "shop_env:ShopEnv", "--model", "scripted:stopper", "--profile", str(profile)]
    ran = CliRunner().invoke(app, [*args, "--seeds", "0,1,2,3,4,5,6,7", "--out", str(out)])
    assert ran.exit_code == 0, ran.output
    trajs = read_trajectories(out)
    removals = sum(1 for t in trajs for s in t.steps if s.fault and s.fault["fault_type"] == "tool_deprecated")
    assert len(trajs) == 16 and 0 < removals < 16  # both types drawn
    rep = CliRunner().invoke(app, ["faults", "report", str(out), "--delta", "1"])
    assert rep.exit_code == 0, rep.output
    rr = f"{100 * removals / 16:.1f}"
    assert f"| scripted:stopper | — (n=0) | — (n=0) | {rr} (n=16) |" in rep.output
    row = next(line for line in rep.output.splitlines() if line.startswith("| Baseline | scripted:stopper"))
    assert row.strip("| ").split(" | ")[2:6] == ["0.0", rr, "0.0", "100.0"]  # RASR, RR, UFR, EIA


def test_custom_fault_declared_permanent_is_a_dead_end_for_the_stopper() -> None:
    custom = CustomFault.model_validate(
        {"class": "execution", "transient": False, "message": "Quota exceeded: the project's budget has expired."}
    )
    profile = FaultProfile(name="budget", delta=1.0, faults={"budget_expired": 1}, custom={"budget_expired": custom},
                           at_calls=[0])  # fmt: skip
    model = make_model("scripted:stopper")
    t = asyncio.run(run_episode(model, FaultyEnv(ShopEnv(), profile), "lamp", seed=0, max_steps=4))
    (f,) = analyse(t)[1]
    assert f.recovered and f.mode == "graceful_failure"
