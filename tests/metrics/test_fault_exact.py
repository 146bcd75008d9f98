"""Fault-injection metrics (RASR, RR, EIA, UFR, Table 6 modes) and their tables on five hand-built trajectories.

The paper (§3.3): RASR = (1/|T|) Σ S_τ; RR = (1/N) Σ R_i over the N injected faults; EIA = the share of
faults whose error type the agent names; UFR = the share of tasks that loop, crash or produce nonsensical
output after a fault. Every number below is counted by hand from the steps.
"""

from __future__ import annotations

from typing import Any

import pytest

from robustcall.core import Trajectory
from robustcall.faults import FAULT_TYPES
from robustcall.metrics import analyse, diagnose, fault_metrics, injection_counts
from robustcall.metrics._fault_report import fault_report
from robustcall.report._fault_tables import (
    fault_table1,
    fault_table2,
    fault_table3,
    fault_table4,
    fault_table5,
    fault_table6,
    fault_tables,
    ghost_table,
)

SEARCH = {"name": "search", "arguments": {"q": "lamp"}}
BUY = {"name": "buy", "arguments": {"item": "L2"}}


def fault(code: str, **kw: Any) -> dict[str, Any]:
    ft = FAULT_TYPES[code]
    return {"step": 0, "tool": "search", "fault_type": code, "fault_class": ft.fault_class,
            "transient": ft.transient, "observation": "x", **kw}  # fmt: skip


def step(i: int, action: dict[str, Any] | None, raw: str = "", **kw: Any) -> dict[str, Any]:
    return {"index": i, "action": action, "raw_output": raw, **kw}


def traj(tid: str, steps: list[dict[str, Any]], success: bool | None, termination: str, **config: Any) -> Trajectory:
    config = {"delta": 0.3, "tools": ["search", "buy"], **config}
    return Trajectory.model_validate(
        {
            "id": tid,
            "env": "shop",
            "task_id": tid,
            "model": "m",
            "steps": steps,
            "success": success,
            "termination": termination,
            "config": config,
        }
    )


# a 500, named and retried cleanly: recovered and identified
T1 = traj(
    "t1",
    [
        step(0, SEARCH, fault=fault("http_500")),
        step(1, SEARCH, "The server returned a 500 error; retrying."),
        step(2, BUY),
    ],
    True,
    "done",
)
# an empty result taken as data: the agent buys something else and claims success (Ignore & Proceed)
T2 = traj(
    "t2",
    [
        step(0, SEARCH, fault=fault("empty_result")),
        step(1, {"name": "buy", "arguments": {"item": "X"}}, "Buying item X."),
        step(2, None, "Done, I bought it."),
    ],
    False,
    "no_action",
)
# a permanent 404, then the exact same call twice more (repeats of the same fault): an Infinite Loop
T3 = traj(
    "t3",
    [
        step(0, SEARCH, fault=fault("http_404")),
        step(1, SEARCH, "Let me try again.", fault=fault("http_404", repeat_of=0)),
        step(2, SEARCH, "Let me try again.", fault=fault("http_404", repeat_of=0)),
    ],
    False,
    "step_limit",
)
T4 = traj("t4", [step(0, SEARCH)], None, "infra")  # an infrastructure error: out of every number
T5 = traj("t5", [step(0, BUY)], True, "done")  # no fault drawn


def test_per_fault_outcomes() -> None:
    (e1, (f1,)), (e2, (f2,)), (e3, (f3,)) = analyse(T1), analyse(T2), analyse(T3)
    assert (f1.recovered, f1.diagnosis, f1.identified, f1.mode) == (True, "server error", True, None)
    assert (f2.recovered, f2.diagnosis, f2.identified, f2.mode) == (False, None, False, "ignore_and_proceed")
    assert (f3.recovered, f3.diagnosis, f3.identified, f3.mode) == (False, "unspecified", False, "infinite_loop")
    assert [(e.calls, e.faulted_calls, e.faults, e.recovered) for e in (e1, e2, e3)] == [
        (3, 1, 1, 1),
        (2, 1, 1, 0),
        (3, 3, 1, 0),
    ]
    assert [e.unrecoverable for e in (e1, e2, e3)] == [None, None, "loop"]
    assert analyse(T5)[1] == []
    counts = injection_counts([T1, T2, T3, T5])
    assert (counts.calls, counts.faulted, counts.fresh, counts.rate) == (9, 5, 3, 5 / 9)


def test_fault_metrics_of_the_group() -> None:
    m = fault_metrics([T1, T2, T3, T4, T5])
    assert m.episodes == 4 and m.infra_errors == 1
    assert m.success_rate == 0.5  # RASR: t1 and t5 of four scored tasks
    assert m.faults == 3 and m.tasks_with_faults == 3
    assert m.recovery_rate == pytest.approx(1 / 3)  # (1/N) Σ R_i = (1 + 0 + 0) / 3
    assert m.recovery_rate_per_task == pytest.approx(1 / 3)  # (1/1 + 0/1 + 0/1) / 3
    assert m.eia == pytest.approx(1 / 3)  # only t1 names the execution error
    assert m.ufr == 0.25  # t3 loops; t2 failed but did none of the three
    assert m.mean_steps == 2.5  # (3 + 3 + 3 + 1) / 4
    assert (m.calls, m.faulted_calls, m.injection_rate) == pytest.approx((9, 5, 5 / 9))
    assert m.recovery_by_class == {"execution": 0.5, "semantic": 0.0, "nonstationary": None}
    assert m.faults_by_class == {"execution": 2, "semantic": 1, "nonstationary": 0}
    assert m.modes == {
        "ignore_and_proceed": 1,
        "hallucinated_success": 0,
        "infinite_loop": 1,
        "cascading_failure": 0,
        "incorrect_diagnosis": 0,
        "graceful_failure": 0,
        "nonsensical": 0,
        "other": 0,
        "recovered": 1,
        "no_turn": 0,
    }
    assert m.unrecoverable == {"loop": 1}
    # hitting the step limit counts only when asked; t3's first reason is its loop either way
    assert fault_metrics([T1, T2, T3], ufr_step_limit=True).ufr == pytest.approx(1 / 3)
    empty = fault_metrics([T4])
    assert (empty.episodes, empty.success_rate, empty.recovery_rate, empty.ufr, empty.injection_rate) == (
        0,
        None,
        None,
        None,
        None,
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("HTTP 404 Not Found", "execution"),
        ("The JSON was malformed, then a 500 came", "semantic"),  # the first class named wins
        ("The tool was deprecated", "nonstationary"),
        ("Something failed", "unspecified"),
        ("Here is your lamp", None),
    ],
)
def test_diagnosis(text: str, expected: str | None) -> None:
    assert diagnose(text) == expected


def _report(**kw: Any) -> Any:
    clean = traj("c1", [step(0, BUY)], True, "done", delta=0.0)
    clean_t1 = traj("t1", [step(0, SEARCH), step(1, BUY)], True, "done", delta=0.0)  # t1 solved in both
    cot = [t.model_copy(update={"config": {**t.config, "prompt": "cot"}}) for t in (T1, T5)]
    return fault_report([T1, T2, T3, T4, T5, clean, clean_t1, *cot], **kw)


def test_fault_report_groups_by_agent_and_delta() -> None:
    rep = _report()
    assert rep.agents() == ["m", "m + cot"]
    assert sorted(rep.groups["m"]) == [0.0, 0.3]
    m = rep.at("m", 0.3)
    assert m is not None and m.faults == 3 and m.episodes == 4
    assert rep.at("m + cot", 0.0) is None
    # every call of the agent's episodes, the infra-error one's too: 3 + 2 + 3 + 1 + 1 + 1
    assert rep.ghost_calls["m"].calls == 13 and rep.ghost_calls["m"].ghost == 0
    assert rep.order == ["m", "m + cot"]  # first seen first: Table 4's rows


def test_fault_tables_cells() -> None:
    rep = _report()
    t1 = fault_table1(rep)
    assert t1.rows == [
        ["m", "100.0", "50.0", "33.3", "25.0", "33.3", "33.3", "55.6", "4", "3"],
        ["m + cot", "—", "100.0", "100.0", "0.0", "100.0", "100.0", "25.0", "2", "1"],
    ]
    assert t1.header[7] == "injected % of calls (δ = 0.3)"
    assert fault_table2(rep).rows == [
        ["m", "50.0 (n=2)", "0.0 (n=1)", "— (n=0)"],
        ["m + cot", "100.0 (n=1)", "— (n=0)", "— (n=0)"],
    ]
    t3 = fault_table3(rep)
    assert t3.header == ["Model", "δ = 0.3"] and t3.rows == [["m", "50.0"], ["m + cot", "100.0"]]
    # paired (default): t1 is the one task solved with and without faults: 2 steps, then 3
    assert fault_table5(rep).rows == [["m", "2.0", "3.0", "50.0%", "1"], ["m + cot", "—", "—", "—", "0"]]
    every = fault_table5(_report(steps_rule="all"))  # every attempt: (1 + 2) / 2 and (3 + 3 + 3 + 1) / 4
    assert every.rows == [["m", "1.5", "2.5", "66.7%", "2 / 4"], ["m + cot", "—", "2.0", "—", "0 / 2"]]
    assert "paired" in fault_table5(rep).title and "--steps all" in every.title
    t4 = fault_table4(rep)  # the runs' order; changes against the first row
    assert t4.rows == [
        ["Baseline", "m", "50.0", "33.3", "25.0", "33.3"],
        ["+ CoT Prompting", "m + cot", "100.0 (+50.0)", "100.0 (+66.7)", "0.0 (-25.0)", "100.0 (+66.7)"],
    ]
    assert fault_table4(rep, ["Base", "+ CoT"]).rows[1][0] == "+ CoT"
    assert "R_i rule: identify (default)" in t4.title and "R_i rule: identify (default)" in fault_table1(rep).title
    assert "R_i rule: retry (--rr-rule retry)" in fault_table2(_report(rr_rule="retry")).title
    t6 = fault_table6(rep)  # all agents pooled: 4 faults, 2 unrecovered
    assert t6.rows == [
        ["Ignore & Proceed", "1", "25.0%", "50.0%"],
        ["Hallucinated Success", "0", "0.0%", "0.0%"],
        ["Infinite Loop", "1", "25.0%", "50.0%"],
        ["Cascading Failure", "0", "0.0%", "0.0%"],
        ["Incorrect Diagnosis", "0", "0.0%", "0.0%"],
        ["Graceful Failure", "0", "0.0%", "0.0%"],
        ["Nonsensical Output (UFR; no Table 6 mode)", "0", "0.0%", "0.0%"],
        ["Other (no Table 6 mode)", "0", "0.0%", "0.0%"],
        ["Recovered", "2", "50.0%", "—"],
        ["No later turn (out of RR and EIA)", "0", "0.0%", "—"],
    ]
    assert ghost_table(rep).rows == [["m", "13", "0", "0", "0", "0"], ["m + cot", "4", "0", "0", "0", "0"]]
    assert [t.name for t in fault_tables(rep)] == [
        "faults_table1",
        "faults_table2",
        "faults_table3",
        "faults_table4",
        "faults_table5",
        "faults_table6",
        "faults_ghost_calls",
    ]
