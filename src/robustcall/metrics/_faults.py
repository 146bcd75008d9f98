"""Robustness metrics over fault-injected trajectories: TSR, RASR, RR, EIA, UFR, Table 6 modes.

Vocabulary (one ``Trajectory`` = one task attempt; ``Step.fault`` = an ``InjectedFault`` dump):

- a *call step* has an action; it is *clean* when it carries no fault and no environment error,
  *failing* when it carries either;
- a *fresh* fault is a new draw (``repeat_of`` unset); a permanent fault met again is a repeat.
  N, the number of injected faults, counts fresh faults only.
- the *tool* of a step is the executed call's name (the wrapped environment's names), else the
  action's.

**Recovered from the i-th fault** (R_i = 1): some later step of the same episode is a clean call
of the faulted tool; or, when the fault made the tool unusable for the rest of the episode (its
type's scope is ``tool``: 401, 403, a deprecated tool), a clean call of any tool. A fault whose
corrupted result came from the call that finished the task counts as recovered when the task
succeeded (nothing was left to recover).

**Aftermath** of fault i: the steps after it up to and including the first clean step or the first
step with a fresh fault, else to the end. **EIA**: the aftermath's text names the fault's class
(``diagnose``). **UFR**: the share of tasks that failed and, after a fault, (a) made 3 identical
failing calls in a row, (b) ended with empty output, or (c) hit the step limit.

**Failure modes** (Table 6) of an unrecovered fault, first rule that holds:

1. Infinite Loop: the failing call is part of a run of 3 or more identical failing calls in a row,
   and the agent does not break out of the run right after it.
2. Incorrect Diagnosis: the aftermath names a different class.
3. Graceful Failure: the aftermath acknowledges the error (right class or unspecified) and the
   agent stops: no call other than identical retries, then a non-empty final text.
4. Hallucinated Success: the agent stops that way without acknowledging any error.
5. Cascading Failure: a later call fails in the environment, or the episode ends in empty output
   or at the step limit.
6. Ignore & Proceed: otherwise (it carried on with other calls as if nothing happened).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any, Literal

from pydantic import BaseModel, Field

from robustcall.core import Step, Trajectory, canonical_json
from robustcall.faults import FAULT_CLASSES, FAULT_TYPES, FaultClass
from robustcall.metrics._fault_text import diagnose

FailureMode = Literal[
    "ignore_and_proceed",
    "hallucinated_success",
    "infinite_loop",
    "cascading_failure",
    "incorrect_diagnosis",
    "graceful_failure",
]
MODE_DISPLAY: dict[FailureMode, str] = {
    "ignore_and_proceed": "Ignore & Proceed",
    "hallucinated_success": "Hallucinated Success",
    "infinite_loop": "Infinite Loop",
    "cascading_failure": "Cascading Failure",
    "incorrect_diagnosis": "Incorrect Diagnosis",
    "graceful_failure": "Graceful Failure",
}
LOOP_REPEATS = 2
"""Identical repeats after a failing call that make a loop (3 identical failing calls in a row)."""

Unrecoverable = Literal["loop", "crash", "step_limit"]


class FaultOutcome(BaseModel):
    """What became of one fresh injected fault."""

    episode: str
    position: int
    """Index into the trajectory's ``steps``."""
    fault_type: str
    fault_class: FaultClass
    transient: bool
    recovered: bool
    diagnosis: str | None
    """The class the aftermath names, ``unspecified``, or ``None``."""
    identified: bool
    mode: FailureMode | None = None
    """Table 6 mode (``None`` when recovered)."""


class EpisodeOutcome(BaseModel):
    """One task attempt, summarised."""

    id: str
    success: bool
    steps: int
    faults: int
    unrecoverable: Unrecoverable | None = None


class FaultMetrics(BaseModel):
    """The numbers of one group of trajectories (one agent at one δ)."""

    episodes: int
    success_rate: float | None
    """TSR at δ = 0, RASR under faults."""
    faults: int
    recovery_rate: float | None
    eia: float | None
    ufr: float | None
    mean_steps: float | None
    recovery_by_class: dict[str, float | None] = Field(default_factory=dict)
    faults_by_class: dict[str, int] = Field(default_factory=dict)
    modes: dict[str, int] = Field(default_factory=dict)
    """Table 6 mode -> count of unrecovered faults; ``recovered`` holds the rest."""
    unrecoverable: dict[str, int] = Field(default_factory=dict)
    infra_errors: int = 0


def _key(step: Step) -> str | None:
    return None if step.action is None else canonical_json([step.action.name, step.action.arguments])


def _tool(step: Step) -> str | None:
    call = step.executed or step.action
    return None if call is None else call.name


def is_clean(step: Step) -> bool:
    return step.action is not None and step.fault is None and step.error is None


def is_failing(step: Step) -> bool:
    return step.action is not None and (step.fault is not None or step.error is not None)


def is_fresh(step: Step) -> bool:
    return step.fault is not None and step.fault.get("repeat_of") is None


def _fault_class(fault: dict[str, Any]) -> FaultClass:
    cls = fault.get("fault_class")
    if cls not in FAULT_CLASSES:
        raise ValueError(f"fault record without a valid fault_class: {fault!r}")
    return cls  # type: ignore[no-any-return]


def recovered(traj: Trajectory, pos: int) -> bool:
    """R_i for the fault at ``steps[pos]`` (see the module rule)."""
    steps, fault = traj.steps, traj.steps[pos].fault or {}
    ftype = FAULT_TYPES.get(str(fault.get("fault_type")))
    tool_gone = ftype is not None and ftype.scope == "tool"
    tool = _tool(steps[pos])
    if any(is_clean(s) and (tool_gone or _tool(s) == tool) for s in steps[pos + 1 :]):
        return True
    last = pos == len(steps) - 1
    return bool(last and fault.get("executed") and traj.termination == "done" and traj.success)


def aftermath(steps: list[Step], pos: int) -> list[Step]:
    out: list[Step] = []
    for s in steps[pos + 1 :]:
        out.append(s)
        if is_clean(s) or is_fresh(s):
            break
    return out


def _calls_after(steps: list[Step], pos: int) -> list[Step]:
    return [s for s in steps[pos + 1 :] if s.action is not None]


def _loops_at(steps: list[Step], pos: int) -> bool:
    """The call at ``pos`` lies in a run of >= 3 identical failing calls that it does not end
    (unless the run ends the episode's calls): the agent's reaction to it was the loop."""
    calls = [i for i, s in enumerate(steps) if s.action is not None]
    if pos not in calls or not is_failing(steps[pos]):
        return False
    key, at = _key(steps[pos]), calls.index(pos)

    def same(i: int) -> bool:
        return _key(steps[i]) == key and is_failing(steps[i])

    lo = at
    while lo > 0 and same(calls[lo - 1]):
        lo -= 1
    hi = at
    while hi + 1 < len(calls) and same(calls[hi + 1]):
        hi += 1
    return hi - lo + 1 >= LOOP_REPEATS + 1 and (at < hi or hi == len(calls) - 1)


def _ends_empty(traj: Trajectory) -> bool:
    return traj.termination == "no_action" and bool(traj.steps) and not traj.steps[-1].raw_output.strip()


def _stops(traj: Trajectory, pos: int) -> bool:
    key = _key(traj.steps[pos])
    only_retries = all(_key(s) == key for s in _calls_after(traj.steps, pos))
    return only_retries and traj.termination == "no_action" and not _ends_empty(traj)


def failure_mode(traj: Trajectory, pos: int, diagnosis: str | None, cls: FaultClass) -> FailureMode:
    """Table 6 mode of the unrecovered fault at ``steps[pos]`` (module rules 1-6)."""
    if _loops_at(traj.steps, pos):
        return "infinite_loop"
    if diagnosis in FAULT_CLASSES and diagnosis != cls:
        return "incorrect_diagnosis"
    if _stops(traj, pos):
        return "hallucinated_success" if diagnosis is None else "graceful_failure"
    later_env_error = any(s.error is not None and s.fault is None for s in traj.steps[pos + 1 :])
    if later_env_error or _ends_empty(traj) or traj.termination == "step_limit":
        return "cascading_failure"
    return "ignore_and_proceed"


def unrecoverable(traj: Trajectory) -> Unrecoverable | None:
    """Why a failed task counts towards UFR (``None``: it does not)."""
    if traj.success or traj.success is None:
        return None
    fresh = [i for i, s in enumerate(traj.steps) if is_fresh(s)]
    if not fresh:
        return None
    if any(_loops_at(traj.steps, i) for i in range(fresh[0], len(traj.steps))):
        return "loop"
    if _ends_empty(traj):
        return "crash"
    if traj.termination == "step_limit":
        return "step_limit"
    return None


def analyse(traj: Trajectory) -> tuple[EpisodeOutcome, list[FaultOutcome]]:
    """The episode's outcome and one ``FaultOutcome`` per fresh fault."""
    outcomes: list[FaultOutcome] = []
    for pos, step in enumerate(traj.steps):
        if not is_fresh(step) or step.fault is None:
            continue
        cls = _fault_class(step.fault)
        diagnosis = diagnose("\n".join(s.raw_output for s in aftermath(traj.steps, pos)))
        ok = recovered(traj, pos)
        outcomes.append(
            FaultOutcome(
                episode=traj.id,
                position=pos,
                fault_type=str(step.fault.get("fault_type")),
                fault_class=cls,
                transient=bool(step.fault.get("transient")),
                recovered=ok,
                diagnosis=diagnosis,
                identified=diagnosis == cls,
                mode=None if ok else failure_mode(traj, pos, diagnosis, cls),
            )
        )
    episode = EpisodeOutcome(
        id=traj.id,
        success=bool(traj.success),
        steps=len(traj.steps),
        faults=len(outcomes),
        unrecoverable=unrecoverable(traj),
    )
    return episode, outcomes


def _mean(xs: list[float]) -> float | None:
    return sum(xs) / len(xs) if xs else None


def fault_metrics(trajectories: Iterable[Trajectory]) -> FaultMetrics:
    """TSR/RASR, N, RR, EIA, UFR, steps, RR by class and Table 6 counts over one group."""
    trajs = list(trajectories)
    scored = [t for t in trajs if t.success is not None]
    episodes: list[EpisodeOutcome] = []
    faults: list[FaultOutcome] = []
    for t in scored:
        ep, fs = analyse(t)
        episodes.append(ep)
        faults.extend(fs)
    by_class = {c: [f for f in faults if f.fault_class == c] for c in FAULT_CLASSES}
    modes: Counter[str] = Counter(f.mode or "recovered" for f in faults)
    return FaultMetrics(
        episodes=len(episodes),
        success_rate=_mean([float(e.success) for e in episodes]),
        faults=len(faults),
        recovery_rate=_mean([float(f.recovered) for f in faults]),
        eia=_mean([float(f.identified) for f in faults]),
        ufr=_mean([float(e.unrecoverable is not None) for e in episodes]),
        mean_steps=_mean([float(e.steps) for e in episodes]),
        recovery_by_class={c: _mean([float(f.recovered) for f in fs]) for c, fs in by_class.items()},
        faults_by_class={c: len(fs) for c, fs in by_class.items()},
        modes={m: modes.get(m, 0) for m in (*MODE_DISPLAY, "recovered")},
        unrecoverable=dict(Counter(e.unrecoverable for e in episodes if e.unrecoverable)),
        infra_errors=len(trajs) - len(scored),
    )
