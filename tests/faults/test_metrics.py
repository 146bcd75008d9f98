from __future__ import annotations

import pytest
from policies import (
    NAMES,
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
from robustcall.metrics import ERROR_TYPE_OF, analyse, diagnose, fault_metrics

SEARCH = ToolCall(name="search", arguments={"query": "lamp"})
BUY = ToolCall(name="buy", arguments={"item_id": "L2"})
TRANSIENT = [c for c in TAXONOMY_TYPES if FAULT_TYPES[c].transient]
PERMANENT = [c for c in TAXONOMY_TYPES if not FAULT_TYPES[c].transient]


def at_first_call(code: str, *, sticky: bool = True) -> FaultyEnv:
    return FaultyEnv(ShopEnv(), FaultProfile(name=code, delta=1.0, faults={code: 1}, at_calls=[0], sticky=sticky))


def every_type(policy: object, **kw: int) -> list[Trajectory]:
    return [run_episode(at_first_call(code), "lamp", policy, **kw) for code in TAXONOMY_TYPES]  # type: ignore[arg-type]


def test_retry_once_recovers_from_every_transient_fault_and_no_permanent_one_under_the_retry_rule() -> None:
    trajs = every_type(retry_once)
    for t in trajs:
        (fault,) = analyse(t, "retry")[1]
        assert fault.recovered == FAULT_TYPES[fault.fault_type].transient, fault.fault_type
        assert t.success == fault.recovered
    m = fault_metrics(trajs, rr_rule="retry")
    assert (len(TRANSIENT), len(PERMANENT)) == (9, 6)
    assert m.faults == 15 and m.recovery_rate == 9 / 15 and m.success_rate == 9 / 15
    assert m.recovery_by_class == {"execution": 4 / 7, "semantic": 1.0, "nonstationary": 0.0}
    assert m.ufr == 0.0  # one identical retry is not a loop; it stops in words
    assert m.eia == 0.0  # "That call did not work" names no error type
    # stopping with "the tool keeps failing" is no Graceful Failure: that needs the error identified
    assert m.modes["graceful_failure"] == 0 and m.modes["other"] == 6 and m.modes["recovered"] == 9
    assert sum(m.modes.values()) == m.faults


def test_eia_counts_the_error_type_the_agent_names() -> None:
    right = fault_metrics(every_type(diagnose_and_retry))
    wrong = fault_metrics(every_type(misdiagnose_and_retry))
    assert right.eia == 1.0 and wrong.eia == 0.0
    # the retry rule needs no identification: naming the error or misnaming it gives the same RR
    retry = [fault_metrics(every_type(p), rr_rule="retry") for p in (diagnose_and_retry, misdiagnose_and_retry)]
    assert retry[0].recovery_rate == retry[1].recovery_rate == 9 / 15
    # identify: the 9 retried transient faults count when named by type or class; the misnamer calls a 500 /
    # 503 "empty" (semantic), a 404 "unauthorized" (execution) and the rest of its names stay in class except
    # server error -> empty result: it recovers 429, timeout and the five anomalies, 7 of 15
    assert right.recovery_rate == 9 / 15 and wrong.recovery_rate == 7 / 15
    assert right.recovery_by_class == {"execution": 4 / 7, "semantic": 1.0, "nonstationary": 0.0}
    assert wrong.recovery_by_class == {"execution": 2 / 7, "semantic": 1.0, "nonstationary": 0.0}
    # the six permanent faults persist (sticky): the identical retry meets them again, then it stops
    assert right.modes["graceful_failure"] == 6 and right.modes["recovered"] == 9
    assert wrong.modes["incorrect_diagnosis"] == 8 and wrong.modes["recovered"] == 7


def test_repeating_a_call_is_a_loop_against_persisting_faults_not_against_fresh_draws() -> None:
    """A loop is the agent's doing: repeating against a fault that persists is one; repeating while every
    call meets a fresh, independent draw (δ = 1, execution errors drawn per call) is not."""
    perm = [run_episode(at_first_call(c), "lamp", repeat_forever) for c in PERMANENT]
    pm = fault_metrics(perm)
    assert pm.faults == 6 and pm.modes["infinite_loop"] == 6 and pm.ufr == 1.0 and pm.recovery_rate == 0.0
    assert pm.unrecoverable == {"loop": 6}
    env = FaultyEnv(ShopEnv(), load_profile("execution").with_delta(1.0))
    trajs = [run_episode(env, task, repeat_forever, max_steps=6, seed=s) for task in ("lamp", "mug") for s in range(5)]
    m = fault_metrics(trajs)
    assert m.success_rate == 0.0 and m.faults == 60 and m.modes["infinite_loop"] == 0
    assert m.unrecoverable.get("loop", 0) == 0 and m.ufr == 0.0


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

    wrong = ToolCall(name="buy", arguments={"item_id": "lamp"})
    one_error = run_episode(env, "lamp", fixed_plan([SEARCH, wrong, BUY]), max_steps=3)
    assert one_error.steps[1].error is not None
    assert [f.mode for f in analyse(one_error)[1]] == ["ignore_and_proceed"]  # one error is not a sequence
    wrong2 = ToolCall(name="buy", arguments={"item_id": "L9"})
    cascading = run_episode(env, "lamp", fixed_plan([SEARCH, wrong, wrong2, BUY]), max_steps=4)
    assert cascading.steps[1].error is not None and cascading.steps[2].error is not None
    assert [f.mode for f in analyse(cascading)[1]] == ["cascading_failure"]


def test_empty_output_after_a_fault_is_a_crash() -> None:
    crash = run_episode(at_first_call("timeout"), "lamp", fixed_plan([SEARCH, BUY], lambda turn: ("", None)))
    episode, (fault,) = analyse(crash)
    assert episode.unrecoverable == "crash" and fault.mode == "other"


def _traj(steps: list[Step], **kw: object) -> Trajectory:
    return Trajectory.model_validate({"id": "e", "env": "shop", "task_id": "lamp", "steps": steps, **kw})


def _fault(code: str, **kw: object) -> dict[str, object]:
    ft = FAULT_TYPES[code]
    return {"step": 0, "tool": "search", "fault_type": code, "fault_class": ft.fault_class,
            "transient": ft.transient, "observation": "x", **kw}  # fmt: skip


@pytest.mark.parametrize(
    ("code", "persists", "later", "expected"),
    [
        ("http_500", False, BUY, False),  # a clean call of another tool does not recover a search fault
        ("http_500", False, SEARCH, True),
        ("http_401", True, BUY, True),  # the search tool is unusable: any clean call is the way on
        ("http_401", False, BUY, False),  # drawn for one call: search is still there, retrying is the way
        ("tool_deprecated", True, BUY, True),
        ("http_404", True, BUY, False),  # a 404 sticks to the arguments only: search is still there
    ],
)
def test_recovery_rule(code: str, persists: bool, later: ToolCall, expected: bool) -> None:
    def after(text: str) -> Trajectory:
        return _traj(
            [
                Step(index=0, action=SEARCH, executed=SEARCH, fault=_fault(code, persists=persists)),
                Step(index=1, raw_output=text, action=later, executed=later, observation="ok"),
            ],
            success=False,
            termination="step_limit",
        )

    named = NAMES[ERROR_TYPE_OF[code]]
    assert analyse(after(""), "retry")[1][0].recovered is expected  # the old rule: the action alone
    assert analyse(after(named))[1][0].recovered is expected  # identify: the same action, once named
    assert analyse(after(""))[1][0].recovered is False  # a blind action never recovers
    assert analyse(after("Something went wrong."))[1][0].recovered is False  # nor does a vague one


def test_an_anomaly_on_the_finishing_call_of_a_solved_task() -> None:
    t = _traj(
        [
            Step(index=0, action=SEARCH, executed=SEARCH, observation="[]"),
            Step(index=1, action=BUY, executed=BUY, fault=_fault("empty_result", executed=True, tool="buy")),
        ],
        success=True,
        termination="done",
    )
    assert analyse(t, "retry")[1][0].recovered  # the retry rule: the task succeeded
    (f,) = analyse(t)[1]  # identify: no turn to identify it in -- out of RR, as of EIA
    assert (f.recovered, f.answered, f.in_rr, f.mode) == (False, False, False, None)
    m = fault_metrics([t])
    assert (m.faults, m.rr_faults, m.recovery_rate, m.eia, m.modes["no_turn"]) == (1, 0, None, None, 1)


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


# -- Table 6 as the paper words it: scripted trajectories with known labels ---------------------

NAMED_500 = "The server returned HTTP 500 (internal server error)."


def _after_500(*later: Step, termination: str = "no_action", success: bool = False) -> Trajectory:
    first = Step(index=0, action=SEARCH, executed=SEARCH, fault=_fault("http_500"))
    return _traj([first, *later], success=success, termination=termination)


def _mode(t: Trajectory) -> str | None:
    (f,) = analyse(t)[1]
    return f.mode


def _env_error(i: int, call: ToolCall, text: str = "") -> Step:
    return Step(index=i, raw_output=text, action=call, executed=call, error="unknown item")


def test_naming_the_error_and_carrying_on_is_not_ignore_and_proceed() -> None:
    silent = _after_500(Step(index=1, action=BUY, executed=BUY, observation="ordered"), termination="done")
    named = _after_500(Step(index=1, raw_output=NAMED_500, action=BUY, executed=BUY), termination="done")
    assert _mode(silent) == "ignore_and_proceed"
    assert _mode(named) == "other"  # it noticed the 500: it did not treat the error as valid data


def test_graceful_failure_needs_the_error_identified_correctly() -> None:
    stop = "so I cannot complete the purchase and will stop here."
    assert _mode(_after_500(Step(index=1, raw_output=f"{NAMED_500} {stop}"))) == "graceful_failure"
    assert _mode(_after_500(Step(index=1, raw_output=f"An error occurred, {stop}"))) == "other"
    assert _mode(_after_500(Step(index=1, raw_output="Found it: lamp L2 at 19.99."))) == "hallucinated_success"
    wrong = _after_500(Step(index=1, raw_output=f"The result was empty, {stop}"))
    assert _mode(wrong) == "incorrect_diagnosis"


def test_cascading_failure_is_a_sequence_of_errors() -> None:
    one = _after_500(_env_error(1, BUY), Step(index=2, raw_output="Done."))
    two = _after_500(_env_error(1, BUY), _env_error(2, ToolCall(name="buy", arguments={"item_id": "X"})))
    assert _mode(one) == "ignore_and_proceed"
    assert _mode(two) == "cascading_failure"


def test_infinite_loop_is_the_exact_same_failed_action_repeated() -> None:
    rep = [Step(index=i, action=SEARCH, executed=SEARCH, fault=_fault("http_404", step=i, repeat_of=0)) for i in (1, 2)]
    t = _traj([Step(index=0, action=SEARCH, fault=_fault("http_404")), *rep], success=False, termination="step_limit")
    assert _mode(t) == "infinite_loop" and analyse(t)[0].unrecoverable == "loop"


def test_recovery_needs_a_plausible_subsequent_action() -> None:
    # the next call goes elsewhere: a clean search much later does not make the 500 recovered
    detour = _after_500(
        Step(index=1, action=BUY, executed=BUY, error="no such item"),
        Step(index=2, action=SEARCH, executed=SEARCH, observation="[...]"),
        termination="step_limit",
    )
    assert not analyse(detour, "retry")[1][0].recovered and not analyse(detour)[1][0].recovered
    # a retry that meets a fresh fault of its own is skipped: the retry after it is the subsequent action
    redrawn = _traj(
        [
            Step(index=0, action=SEARCH, fault=_fault("http_500")),
            Step(index=1, raw_output=NAMED_500, action=SEARCH, fault=_fault("timeout", step=1)),
            Step(index=2, raw_output="It timed out; again.", action=SEARCH, executed=SEARCH, observation="[...]"),
        ],
        success=False,
        termination="step_limit",
    )
    assert [f.recovered for f in analyse(redrawn, "retry")[1]] == [True, True]
    assert [f.recovered for f in analyse(redrawn)[1]] == [True, True]


def test_nonsensical_output_after_a_fault_counts_towards_ufr_and_the_step_limit_only_when_asked() -> None:
    garbled = _after_500(Step(index=1, raw_output='<tool_call>\n{"name": "buy", "parameters": {"item_id": '))
    assert analyse(garbled)[0].unrecoverable == "nonsensical"
    assert fault_metrics([garbled]).ufr == 1.0
    limit = _after_500(Step(index=1, action=BUY, executed=BUY), termination="step_limit")
    default, counted = fault_metrics([garbled, limit]), fault_metrics([garbled, limit], ufr_step_limit=True)
    assert default.ufr == 0.5 and not default.ufr_counts_step_limit
    assert counted.ufr == 1.0 and counted.ufr_counts_step_limit
    assert default.unrecoverable == {"nonsensical": 1, "step_limit": 1}


def test_recovery_rate_is_pooled_over_faults_and_also_reported_per_task() -> None:
    one_recovered = _after_500(
        Step(index=1, raw_output=NAMED_500, action=SEARCH, executed=SEARCH), termination="step_limit"
    )
    three_lost = _traj(
        [
            Step(index=0, action=SEARCH, fault=_fault("http_500")),
            Step(index=1, action=BUY, fault=_fault("http_503", step=1, tool="buy")),
            Step(index=2, action=SEARCH, raw_output="", fault=_fault("timeout", step=2)),
            Step(index=3, raw_output="I give up."),
        ],
        success=False,
        termination="no_action",
    )
    m = fault_metrics([one_recovered, three_lost.model_copy(update={"id": "f"})])
    assert m.faults == 4 and m.tasks_with_faults == 2
    assert m.recovery_rate == 1 / 4  # (1/N) Σ R_i over all four faults
    assert m.recovery_rate_per_task == (1 / 1 + 0 / 3) / 2  # each attempt's own RR, then the mean
    assert (m.calls, m.faulted_calls, m.injection_rate) == (5, 4, 4 / 5)


def test_every_fault_type_a_trajectory_can_carry_has_an_error_type_named_by_its_own_words() -> None:
    from robustcall.core import KNOWN_FAULT_TYPES
    from robustcall.faults._injector import synthesise
    from robustcall.metrics import ERROR_TYPE_OF, diagnose_type

    assert set(ERROR_TYPE_OF) == set(KNOWN_FAULT_TYPES)
    for code, ftype in KNOWN_FAULT_TYPES.items():
        assert diagnose_type(ftype.description) == ERROR_TYPE_OF[code], code
        if ftype.effect == "replace" and code in FAULT_TYPES:
            assert diagnose_type(synthesise(ftype, "search")) == ERROR_TYPE_OF[code], code


@pytest.mark.parametrize(
    ("code", "said", "identified", "mode"),
    [
        ("http_404", "The resource was not found (HTTP 404). I give up.", True, "graceful_failure"),
        ("http_404", "The server returned a 500 internal error. I give up.", False, "incorrect_diagnosis"),
        ("timeout", "The request got a 429: rate limit. I give up.", False, "incorrect_diagnosis"),
        ("param_renamed", "The tool was deprecated. I give up.", False, "incorrect_diagnosis"),
        ("http_404", "The server returned an error status code. I give up.", False, "other"),
    ],
)
def test_eia_needs_the_error_type_not_only_its_class(code: str, said: str, identified: bool, mode: str) -> None:
    t = _traj(
        [
            Step(index=0, action=SEARCH, executed=SEARCH, fault=_fault(code)),
            Step(index=1, raw_output=said),
        ],
        success=False,
        termination="no_action",
    )
    (fault,) = analyse(t)[1]
    assert (fault.identified, fault.mode) == (identified, mode)


# -- issue 35: one classifier; scripted agents that produce each mode get exactly it ----------------

GARBLED = '<tool_call>\n{"name": "buy", "parameters": {"item_id": '
garble = fixed_plan([SEARCH, BUY], lambda turn: (GARBLED, None))
claim = fixed_plan([SEARCH, BUY], lambda turn: ("I bought the floor lamp, order O-1.", None))
WRONG_BUY, WRONG_BUY2 = (
    ToolCall(name="buy", arguments={"item_id": "lamp"}),
    ToolCall(name="buy", arguments={"item_id": "L9"}),
)


@pytest.mark.parametrize(
    ("policy", "code", "max_steps", "mode", "unrecoverable"),
    [
        (fixed_plan([SEARCH, BUY]), "http_500", 6, "ignore_and_proceed", None),
        (claim, "http_500", 6, "hallucinated_success", None),
        (repeat_forever, "http_404", 6, "infinite_loop", "loop"),
        (fixed_plan([SEARCH, WRONG_BUY, WRONG_BUY2, BUY]), "http_500", 4, "cascading_failure", None),
        (misdiagnose_and_retry, "http_404", 6, "incorrect_diagnosis", None),
        (diagnose_and_retry, "http_404", 6, "graceful_failure", None),
        (garble, "http_500", 6, "nonsensical", "nonsensical"),
    ],
)
def test_scripted_agents_get_exactly_their_table_6_mode(
    policy: object, code: str, max_steps: int, mode: str, unrecoverable: str | None
) -> None:
    t = run_episode(at_first_call(code), "lamp", policy, max_steps=max_steps)  # type: ignore[arg-type]
    for rule in ("identify", "retry"):
        episode, (fault,) = analyse(t, rule)  # type: ignore[arg-type]
        assert (fault.recovered, fault.mode, episode.unrecoverable) == (False, mode, unrecoverable), rule
    m = fault_metrics([t])
    assert {k: v for k, v in m.modes.items() if v} == {mode: 1}


def test_a_broken_call_after_a_fault_is_nonsense_not_hallucinated_success() -> None:
    t = run_episode(at_first_call("http_500"), "lamp", garble)
    assert t.steps[-1].raw_output == GARBLED and t.termination == "no_action"
    m = fault_metrics([t])
    assert m.modes["nonsensical"] == 1 and m.modes["hallucinated_success"] == 0
    assert m.ufr == 1.0 and m.unrecoverable == {"nonsensical": 1}


def test_a_retry_meeting_a_fresh_fault_then_an_explained_stop_is_graceful_failure() -> None:
    """The 500's retry meets a fresh removal of the tool; the agent stops saying so: it explained why the
    task cannot proceed (Graceful Failure for the 500). The removal itself, a permanent fault named in the
    stop, is recovered (a stop with an explanation) and is a Graceful Failure too."""
    stop = "The search tool has been deprecated and removed, so I cannot complete the task."
    t = _traj(
        [
            Step(index=0, action=SEARCH, fault=_fault("http_500")),
            Step(index=1, action=SEARCH, fault=_fault("tool_deprecated", step=1, persists=True)),
            Step(index=2, raw_output=stop),
        ],
        success=False,
        termination="no_action",
    )
    f500, gone = analyse(t)[1]
    assert (f500.recovered, f500.mode) == (False, "graceful_failure")
    assert (gone.recovered, gone.mode, gone.identified) == (True, "graceful_failure", True)
    assert [f.mode for f in analyse(t, "retry")[1]] == ["graceful_failure", "graceful_failure"]
    assert [f.recovered for f in analyse(t, "retry")[1]] == [False, False]  # no stop recovers under retry


def test_a_silent_retry_or_adaptation_is_other_and_carrying_on_is_ignore_and_proceed() -> None:
    def after(call: ToolCall, code: str = "http_500", **fault: object) -> Trajectory:
        first = Step(index=0, action=SEARCH, fault=_fault(code, **fault))
        later = Step(index=1, action=call, executed=call, observation="ok")
        return _traj([first, later], success=False, termination="step_limit")

    assert _mode(after(SEARCH)) == "other"  # the same call again, silently: not treating the 500 as data
    assert _mode(after(BUY)) == "ignore_and_proceed"  # on to the next step as if the search had worked
    assert _mode(after(BUY, "tool_deprecated", persists=True)) == "other"  # another tool once it is gone
    assert _mode(after(BUY, "empty_result", executed=True)) == "ignore_and_proceed"  # carries on with bad data
