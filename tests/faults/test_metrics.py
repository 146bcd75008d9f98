from __future__ import annotations

import pytest
from policies import (
    diagnose_and_retry,
    fixed_plan,
    misdiagnose_and_retry,
    repeat_forever,
    retry_once,
    run_episode,
)
from shop_env import ShopEnv

from robustcall.core import Step, ToolCall, Trajectory
from robustcall.faults import FAULT_TYPES, TAXONOMY_TYPES, FaultProfile, FaultyEnv, load_profile
from robustcall.metrics import analyse, diagnose, fault_metrics

SEARCH = ToolCall(name="search", arguments={"query": "lamp"})
BUY = ToolCall(name="buy", arguments={"item_id": "L2"})
TRANSIENT = [c for c in TAXONOMY_TYPES if FAULT_TYPES[c].transient]
PERMANENT = [c for c in TAXONOMY_TYPES if not FAULT_TYPES[c].transient]


def at_first_call(code: str) -> FaultyEnv:
    return FaultyEnv(ShopEnv(), FaultProfile(name=code, delta=1.0, faults={code: 1}, at_calls=[0]))


def every_type(policy: object, **kw: int) -> list[Trajectory]:
    return [run_episode(at_first_call(code), "lamp", policy, **kw) for code in TAXONOMY_TYPES]  # type: ignore[arg-type]


def test_retry_once_recovers_from_every_transient_fault_and_no_permanent_one() -> None:
    trajs = every_type(retry_once)
    for t in trajs:
        (fault,) = analyse(t)[1]
        assert fault.recovered == FAULT_TYPES[fault.fault_type].transient, fault.fault_type
        assert t.success == fault.recovered
    m = fault_metrics(trajs)
    assert (len(TRANSIENT), len(PERMANENT)) == (9, 6)
    assert m.faults == 15 and m.recovery_rate == 9 / 15 and m.success_rate == 9 / 15
    assert m.recovery_by_class == {"execution": 4 / 7, "semantic": 1.0, "nonstationary": 0.0}
    assert m.ufr == 0.0  # one identical retry is not a loop; it stops in words
    assert m.eia == 0.0  # "That call did not work" names no class
    assert m.modes["graceful_failure"] == 6 and m.modes["recovered"] == 9
    assert sum(m.modes.values()) == m.faults


def test_eia_counts_the_class_the_agent_names() -> None:
    right = fault_metrics(every_type(diagnose_and_retry))
    wrong = fault_metrics(every_type(misdiagnose_and_retry))
    assert right.eia == 1.0 and wrong.eia == 0.0
    assert right.recovery_rate == wrong.recovery_rate == 9 / 15
    assert right.modes["graceful_failure"] == 6
    assert wrong.modes["incorrect_diagnosis"] == 6


def test_repeating_the_failing_call_forever_is_an_unrecoverable_infinite_loop() -> None:
    env = FaultyEnv(ShopEnv(), load_profile("default").with_delta(1.0))
    trajs = [run_episode(env, task, repeat_forever, max_steps=6, seed=s) for task in ("lamp", "mug") for s in range(5)]
    m = fault_metrics(trajs)
    assert m.recovery_rate == 0.0 and m.ufr == 1.0 and m.success_rate == 0.0
    assert m.modes["infinite_loop"] == m.faults > 0
    assert m.unrecoverable == {"loop": 10}
    # permanent faults: one fresh fault, then repeats of it; still a loop
    perm = [run_episode(at_first_call(c), "lamp", repeat_forever) for c in PERMANENT]
    pm = fault_metrics(perm)
    assert pm.faults == 6 and pm.modes["infinite_loop"] == 6 and pm.ufr == 1.0


def test_tsr_without_faults() -> None:
    env = FaultyEnv(ShopEnv(), load_profile("default").with_delta(0.0))
    m = fault_metrics([run_episode(env, t, retry_once) for t in ("lamp", "mug")])
    assert m.success_rate == 1.0 and m.faults == 0 and m.recovery_rate is None and m.ufr == 0.0
    assert m.mean_steps == 2.0


def test_ignore_and_proceed_hallucinated_success_and_cascading_failure() -> None:
    env = at_first_call("http_500")
    ignore = run_episode(env, "lamp", fixed_plan([SEARCH, BUY]))
    assert ignore.success and [f.mode for f in analyse(ignore)[1]] == ["ignore_and_proceed"]

    claims = fixed_plan([SEARCH, BUY], lambda turn: ("I bought the floor lamp, order O-1.", None))
    hallucinated = run_episode(env, "lamp", claims)
    assert [f.mode for f in analyse(hallucinated)[1]] == ["hallucinated_success"]

    bogus = fixed_plan([SEARCH, ToolCall(name="buy", arguments={"item_id": "lamp"}), BUY])
    cascading = run_episode(env, "lamp", bogus, max_steps=3)
    assert cascading.steps[1].error is not None
    assert [f.mode for f in analyse(cascading)[1]] == ["cascading_failure"]


def test_empty_output_after_a_fault_is_a_crash() -> None:
    crash = run_episode(at_first_call("timeout"), "lamp", fixed_plan([SEARCH, BUY], lambda turn: ("", None)))
    episode, (fault,) = analyse(crash)
    assert episode.unrecoverable == "crash" and fault.mode == "cascading_failure"


def _traj(steps: list[Step], **kw: object) -> Trajectory:
    return Trajectory.model_validate({"id": "e", "env": "shop", "task_id": "lamp", "steps": steps, **kw})


def _fault(code: str, **kw: object) -> dict[str, object]:
    ft = FAULT_TYPES[code]
    return {"step": 0, "tool": "search", "fault_type": code, "fault_class": ft.fault_class,
            "transient": ft.transient, "observation": "x", **kw}  # fmt: skip


@pytest.mark.parametrize(
    ("code", "later", "expected"),
    [
        ("http_500", BUY, False),  # a clean call of another tool does not recover a search fault
        ("http_500", SEARCH, True),
        ("http_401", BUY, True),  # the search tool is unusable: any clean call is the way on
        ("tool_deprecated", BUY, True),
        ("http_404", BUY, False),  # a 404 sticks to the arguments only: search is still there
    ],
)
def test_recovery_rule(code: str, later: ToolCall, expected: bool) -> None:
    t = _traj(
        [
            Step(index=0, action=SEARCH, executed=SEARCH, fault=_fault(code)),
            Step(index=1, action=later, executed=later, observation="ok"),
        ],
        success=False,
        termination="step_limit",
    )
    assert analyse(t)[1][0].recovered is expected


def test_an_anomaly_on_the_finishing_call_of_a_solved_task_counts_as_recovered() -> None:
    t = _traj(
        [
            Step(index=0, action=SEARCH, executed=SEARCH, observation="[]"),
            Step(index=1, action=BUY, executed=BUY, fault=_fault("empty_result", executed=True, tool="buy")),
        ],
        success=True,
        termination="done",
    )
    assert analyse(t)[1][0].recovered


def test_repeats_of_a_permanent_fault_are_not_new_faults() -> None:
    t = _traj(
        [
            Step(index=0, action=SEARCH, fault=_fault("http_404")),
            Step(index=1, action=SEARCH, fault=_fault("http_404", step=1, repeat_of=0)),
            Step(index=2, raw_output="Not found (404); stopping."),
        ],
        success=False,
        termination="no_action",
    )
    (f,) = analyse(t)[1]
    assert f.mode == "graceful_failure" and f.identified


@pytest.mark.parametrize(
    ("text", "cls"),
    [
        ("The API returned HTTP 404 Not Found, so the item id is wrong.", "execution"),
        ("Request timed out; I'll retry.", "execution"),
        ("Rate limit hit (too many requests).", "execution"),
        ("The response was truncated and is not valid JSON.", "semantic"),
        ("A negative price makes no sense; that value is implausible.", "semantic"),
        ("The search returned an empty list.", "semantic"),
        ("The tool has been deprecated.", "nonstationary"),
        ("The parameter `query` was renamed to `query_v2`.", "nonstationary"),
        ("Missing required parameter api_version.", "nonstationary"),
        ("Something went wrong, let me try again.", "unspecified"),
        ("The cheapest lamp is L2; buying it.", None),
        ("It was renamed, not a 404.", "nonstationary"),  # the first diagnosis written wins
    ],
)
def test_diagnosis_classifier(text: str, cls: str | None) -> None:
    assert diagnose(text) == cls


def test_step_limit_after_a_fault_is_unrecoverable_but_not_before_one() -> None:
    after = _traj(
        [Step(index=0, action=SEARCH, fault=_fault("http_500")), Step(index=1, action=BUY, executed=BUY)],
        success=False,
        termination="step_limit",
    )
    assert analyse(after)[0].unrecoverable == "step_limit"
    no_fault = _traj([Step(index=0, action=BUY, executed=BUY)], success=False, termination="step_limit")
    assert analyse(no_fault)[0].unrecoverable is None
    solved = after.model_copy(update={"success": True, "termination": "done"})
    assert analyse(solved)[0].unrecoverable is None
