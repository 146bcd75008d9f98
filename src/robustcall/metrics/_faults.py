"""Robustness metrics over fault-injected trajectories: TSR, RASR, RR, EIA, UFR, Table 6 modes.

Vocabulary (one ``Trajectory`` = one task attempt; ``Step.fault`` = an ``InjectedFault`` dump):

- a *call step* has an action; it is *clean* when it carries no fault and no environment error,
  *failing* when it carries either;
- a *fresh* fault is a new draw (``repeat_of`` unset); a persisting fault met again is a repeat.
  N, the number of injected faults, counts fresh faults only.
- the *tool* of a step is the executed call's name (the wrapped environment's names), else the
  action's.
- the *effective injection rate* is the share of call steps that met a fault (fresh or repeat);
  it estimates δ while no persisting fault is met again, and exceeds it when the agent keeps
  calling into one.

**Recovered from the i-th fault** (R_i = 1; §3.3: "successfully recovered ... e.g. by correctly
identifying it and taking a plausible subsequent action"). The *subsequent action* is the agent's
next call after the fault, skipping calls interrupted by a fresh fault of their own (that outcome
was a new draw, not the agent's doing); the *reaction* is the steps after the fault up to and
including the subsequent action (to the end when there is none). Two rules (``RR_RULES``):

``identify`` (the default, the paper's reading): R_i = 1 when the reaction's text *identifies* the
fault -- ``diagnose_type``, the matcher EIA uses, finds the fault's error type or another type of its
class -- **and** the agent then does something plausible for it:

1. a fault that does not persist (a transient error -- timeout, 429, 5xx --, or a 404 / 401 / 403
   drawn for this one call): a clean call of the same tool (a retry, after waiting or not);
2. a fault that persists (non-stationarity; 404 / 401 / 403 under a sticky profile; the prerequisite
   and type-mismatch axes): a clean call of the same tool adapted to it, or of any tool when the fault
   is tool-wide (a 401 / 403, a deprecated tool, a missing prerequisite): the alternative. Repeating
   the exact failed call meets the same fault again, so it is never clean;
3. a semantic anomaly (the call ran and its result was corrupted): any clean call (a re-query or a
   validation);
4. a fault the episode offers no way past (``is_dead_end``: a deprecated tool; a 404 / 401 / 403 that
   persists under a sticky profile; a custom type declared permanent): a stop with an explanation --
   no further call, and a final text that names the fault's own error type (a class is not enough to
   explain why the task cannot proceed; a wrong type is Incorrect Diagnosis). Such a fault is
   recovered *and* its Table 6 mode is Graceful Failure ("the desired behavior when recovery is
   impossible"). After any other fault -- a transient error, a 404 / 401 / 403 drawn for one call, a
   semantic anomaly, a renamed or newly required parameter, the runtime axes -- the episode offers a
   way on (a retry, an adapted call, a re-query, the prerequisite), so a stop is no recovery however
   well it names the fault (R_i = 0; Table 6 still calls the stop Graceful Failure, unrecovered).

No subsequent action and no stop (every later call met a fresh fault of its own): R_i = 1 when the
fault was identified and the task succeeded. A fault the agent had no turn after (the episode ended
on the faulted call) has nothing to judge: R_i = 0 and it is left out of RR's denominators, as it is
out of EIA's (``FaultOutcome.answered``); Table 6 counts it on a row of its own. A blind repeater,
which writes nothing, therefore scores RR 0 on every class.

``retry`` (labelled option, the rule before issue 35): rules 1-3 without identification, except
that rule 3 asks for any acknowledgement of a problem (``diagnose_type`` not ``None``); no stop is
plausible; with no subsequent action R_i = 1 exactly when the task succeeded, every fault counted.

**RR** (the paper's definition, pooled): ``RR = (1/N) Σ_i R_i`` over every fresh fault of the
group. **RR per task** (labelled, ours): the mean over task attempts with at least one fault of
that attempt's own ``(1/N_τ) Σ R_i``.

**Aftermath** of fault i: the steps after it up to and including the first clean step or the first
step with a fresh fault, else to the end. **EIA**: the aftermath's text names the fault's error
*type* (§3.3 "correctly names the type of error encountered"; ``diagnose_type``: "timeout",
"rate limit", "not found", "malformed", "deprecated", "parameter changed", ...), over the faults
the agent had a turn after (a fault on the call that ended the episode has nothing to read).

**Loop** (one rule for UFR's "infinite loop" and Table 6's Infinite Loop): a repetition of a call
is *without progress* when the call before it was identical and either met a fault that persists,
or got an environment error, or both ran clean with identical observations. A repetition right
after a fresh fault that does not persist is explained by that independent draw and is not one.
A loop is a run of ``LOOP_REPEATS`` or more repetitions without progress in a row (3 identical
calls); a fault *loops* when its call starts or lies inside such a run and the agent does not break
out right after it.

**UFR**: the share of tasks that failed and, after a fault, (a) looped (one of its faults loops:
exactly the faults Table 6 counts as Infinite Loop), (b) ended with empty output (a crash), or (c)
produced nonsensical output: a step with no readable action whose text looks like an attempted
call (a tool-call tag, a ``"name":`` key, an ``Action:`` line or a ``[f(`` call), or that the model
endpoint flagged as a format error. Hitting the step limit is not one of the paper's three and does
not count by default; ``fault_metrics(..., ufr_step_limit=True)`` counts it as a fourth reason, and
every ``FaultMetrics`` says which (``ufr_counts_step_limit``).

**Failure modes** (Table 6) of an unrecovered fault, first rule that holds (one classifier: UFR's
loop and nonsense use the same predicates):

1. Infinite Loop ("retries the exact same failed action repeatedly without altering parameters"):
   the fault loops (the loop rule above).
2. Nonsensical output (UFR's third reason; not one of Table 6's six): the reaction holds a step
   with no readable action whose text looks like an attempted call (``is_nonsensical``). Such text
   is not a claim of success.
3. Incorrect Diagnosis ("identifies an error but misattributes its cause"): the aftermath names a
   different error type.
4. The agent *stops* (no clean call after the fault: only failed identical retries and calls cut
   short by a fresh fault of their own, then a non-empty final text): Graceful Failure ("correctly
   identifies the error, explains why the task cannot proceed, and stops") when the aftermath names
   the fault's own type, or the final text names the type of a fault its later calls met (a retry
   met a fresh "deprecated", and the agent stops saying so: it explains why the task cannot
   proceed); Hallucinated Success when no text after the fault acknowledges any error; a stop that
   only says "an error occurred" is neither.
5. Cascading Failure ("a single unhandled fault leads to a sequence of logically subsequent
   errors"): at least two later calls fail in the environment (errors, not injected faults).
6. Ignore & Proceed ("treats an error code as valid data and continues execution"): the
   aftermath acknowledges no error and the agent's next call differs from the failed one and, after
   an error (not an anomaly, whose corrupted data it carries on with), is no plausible reaction to it
   (a silent identical retry or a silent call adapted to the error is not treating it as data: Other).
7. Other: none of the six fits (e.g. it named the error and carried on with another tool without
   recovering, stopped saying only "an error occurred", or ran out of steps); counted on its own
   row so the six keep the paper's meaning.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from typing import Any, Literal

from pydantic import BaseModel, Field

from robustcall.core import FAULT_CLASSES, KNOWN_FAULT_TYPES, FaultClass, Step, Trajectory, canonical_json
from robustcall.metrics._fault_text import ERROR_TYPES, class_of, diagnose_type, names_fault

FailureMode = Literal[
    "ignore_and_proceed",
    "hallucinated_success",
    "infinite_loop",
    "cascading_failure",
    "incorrect_diagnosis",
    "graceful_failure",
    "nonsensical",
    "other",
]
MODE_DISPLAY: dict[FailureMode, str] = {
    "ignore_and_proceed": "Ignore & Proceed",
    "hallucinated_success": "Hallucinated Success",
    "infinite_loop": "Infinite Loop",
    "cascading_failure": "Cascading Failure",
    "incorrect_diagnosis": "Incorrect Diagnosis",
    "graceful_failure": "Graceful Failure",
    "nonsensical": "Nonsensical Output (UFR; no Table 6 mode)",
    "other": "Other (no Table 6 mode)",
}
NO_TURN = "no_turn"
"""``FaultMetrics.modes`` key of faults the agent had no turn after (``identify`` rule: out of RR)."""
NO_TURN_DISPLAY = "No later turn (out of RR and EIA)"
LOOP_REPEATS = 2
"""Repetitions without progress in a row that make a loop (3 identical calls)."""
CASCADE_ERRORS = 2
"""Later environment errors that make a cascade ("a sequence of ... errors": more than one)."""

RRRule = Literal["identify", "retry"]
RR_RULES: dict[RRRule, str] = {
    "identify": (
        "R_i (rule: identify, the default) = 1 when the agent's text before or at its next action (calls that "
        "met a fresh fault of their own skipped) names the fault's error type or class (the EIA matcher) and "
        "that action is plausible and runs clean: a retry of the same tool after a fault that does not persist "
        "(timeout, 429, 5xx; a 404/401/403 drawn for one call); a call adapted to a persisting fault "
        "(non-stationarity; 404/401/403 with --sticky), any tool when the tool is gone; any call (a re-query or "
        "validation) after a semantic anomaly; or, only after a fault the episode offers no way past (a deprecated "
        "tool; 404/401/403 with --sticky; a custom type declared permanent), a stop whose text names its type "
        "(Table 6: Graceful Failure). No later action: R_i = 1 when identified and the task succeeded. Faults "
        "with no later turn are out of RR, as of EIA."
    ),
    "retry": (
        "R_i (rule: retry, --rr-rule retry) = 1 when the agent's next call (calls that met a fresh fault of their "
        "own skipped) runs clean and is plausible: after a fault that does not persist (timeout, 429, 5xx; a "
        "404/401/403 drawn for one call), a call of the same tool (a retry); after a persisting fault "
        "(non-stationarity; 404/401/403 with --sticky), a call adapted to it, any tool when the tool is gone "
        "(repeating the failed call meets the fault again, so never counts); after a semantic anomaly, any "
        "call, once the agent has said the result is wrong. No later call: R_i = 1 when the task succeeded. "
        "No identification is needed."
    ),
}
"""Each R_i rule as printed under Tables 1, 2 and 4 (the module docstring has them in full)."""
RECOVERY_RULE = RR_RULES["identify"]
"""The default R_i rule's text."""
LOOP_RULE = (
    "Loop (UFR and Table 6 Infinite Loop alike): 3 identical calls in a row, each repeat made after a "
    "persisting fault, an environment error, or an identical clean observation; a retry after a fresh "
    "fault that does not persist is no loop."
)

Unrecoverable = Literal["loop", "crash", "nonsensical", "step_limit"]

_ATTEMPTED_CALL = re.compile(r"<tool_call|\"name\"\s*:|^\s*Action\s*:|\[\s*[A-Za-z_][\w.]*\(", re.MULTILINE)
"""Text that tries to be a call (a tag, a JSON ``"name":`` key, a ReAct ``Action:`` line, ``[f(``)."""


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
    """The error type the aftermath names (an ``ERROR_TYPES`` label), ``unspecified``, or ``None``."""
    identified: bool
    answered: bool = True
    """The agent had a turn after the fault (``False``: the episode ended on the faulted call; out of EIA,
    and under the ``identify`` rule out of RR)."""
    in_rr: bool = True
    """Counted in RR's denominators (``False``: an unanswered fault under the ``identify`` rule)."""
    mode: FailureMode | None = None
    """Table 6 mode: ``None`` when recovered by an action; ``graceful_failure`` for a recovery by stopping
    with an explanation; else the failure mode."""


class EpisodeOutcome(BaseModel):
    """One task attempt, summarised."""

    id: str
    success: bool
    steps: int
    faults: int
    recovered: int = 0
    """Fresh faults of this attempt that were recovered (its own RR is ``recovered / in_rr``)."""
    in_rr: int = 0
    """Fresh faults of this attempt counted in RR (all of them, except unanswered ones under ``identify``)."""
    calls: int = 0
    faulted_calls: int = 0
    """Call steps that met a fault, fresh or (sticky profiles) repeated."""
    unrecoverable: Unrecoverable | None = None
    """The first UFR reason that holds (``step_limit`` included; whether it counts is the caller's choice)."""


class InjectionCounts(BaseModel):
    """How often calls met a fault: the effective injection rate beside δ."""

    calls: int
    faulted: int
    """Call steps that carried a fault (fresh draws plus sticky repeats)."""
    fresh: int
    """Of those, fresh draws (N)."""

    @property
    def rate(self) -> float | None:
        return self.faulted / self.calls if self.calls else None


class FaultMetrics(BaseModel):
    """The numbers of one group of trajectories (one agent at one δ)."""

    rr_rule: RRRule = "identify"
    """The R_i rule the recovery numbers use (``RR_RULES``)."""
    episodes: int
    success_rate: float | None
    """TSR at δ = 0, RASR under faults."""
    faults: int
    recovery_rate: float | None
    """RR = (1/N) Σ R_i, pooled over every fresh fault of the group (the paper's definition; under the
    ``identify`` rule N leaves out faults with no later turn)."""
    rr_faults: int = 0
    """N of RR: the faults counted in it."""
    recovery_rate_per_task: float | None = None
    """RR macro-averaged per task attempt: the mean of each attempt's own RR (attempts with faults)."""
    tasks_with_faults: int = 0
    eia: float | None
    ufr: float | None
    ufr_counts_step_limit: bool = False
    """Whether hitting the step limit after a fault counted towards UFR (the paper's three do not)."""
    mean_steps: float | None
    calls: int = 0
    faulted_calls: int = 0
    injection_rate: float | None = None
    """Effective injection rate: share of call steps that met a fault (compare with δ)."""
    recovery_by_class: dict[str, float | None] = Field(default_factory=dict)
    faults_by_class: dict[str, int] = Field(default_factory=dict)
    rr_faults_by_class: dict[str, int] = Field(default_factory=dict)
    """The denominators of ``recovery_by_class``."""
    modes: dict[str, int] = Field(default_factory=dict)
    """Table 6 mode -> count of faults (``other``: none fits; ``graceful_failure`` includes recoveries by
    stopping); ``recovered``: faults recovered by an action; ``no_turn``: faults with no later turn under
    the ``identify`` rule."""
    unrecoverable: dict[str, int] = Field(default_factory=dict)
    """Failed attempts by UFR reason, ``step_limit`` always listed (counted in UFR only when flagged)."""
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


def subsequent_action(steps: list[Step], pos: int) -> Step | None:
    """The agent's next call after ``steps[pos]``, skipping calls interrupted by a fresh fault."""
    for s in steps[pos + 1 :]:
        if s.action is not None and not is_fresh(s):
            return s
    return None


def persists(steps: list[Step], pos: int) -> bool:
    """Whether the fault at ``steps[pos]`` stays for identical calls (its record's ``persists``; records
    written before that field: a later step repeats it)."""
    fault = steps[pos].fault or {}
    if "persists" in fault:
        return bool(fault["persists"])
    origin = fault.get("step") if fault.get("repeat_of") is None else fault.get("repeat_of")
    return any((s.fault or {}).get("repeat_of") == origin for s in steps[pos + 1 :])


def reaction(steps: list[Step], pos: int) -> list[Step]:
    """The steps after ``steps[pos]`` up to and including the subsequent action (to the end if none)."""
    nxt = subsequent_action(steps, pos)
    end = len(steps) if nxt is None else steps.index(nxt) + 1
    return steps[pos + 1 : end]


def _text(steps: list[Step]) -> str:
    return "\n".join(s.raw_output for s in steps)


def identifies(text: str, fault: dict[str, Any]) -> bool:
    """``text`` names the fault's error type or another type of its class (the EIA matcher)."""
    diagnosis, cls = diagnose_type(text), _fault_class(fault)
    return names_fault(diagnosis, str(fault.get("fault_type")), cls) or class_of(diagnosis) == cls


def is_dead_end(steps: list[Step], pos: int) -> bool:
    """The episode offers no way past the fault at ``steps[pos]``, so a stop is a plausible reaction: its
    type is a dead end once it persists (``core.FaultType.dead_end``: a deprecated tool; a 404 / 401 / 403
    under a sticky profile) and it does; a custom fixed-message type (not in the taxonomy) when it was
    declared permanent (``transient: false``), the only thing its profile says of it."""
    fault = steps[pos].fault or {}
    ftype = KNOWN_FAULT_TYPES.get(str(fault.get("fault_type")))
    if ftype is None:
        return not fault.get("transient")
    return ftype.dead_end and persists(steps, pos)


def stops_explaining(traj: Trajectory, pos: int) -> bool:
    """After ``steps[pos]`` the agent makes no call and ends with a non-empty text."""
    later = traj.steps[pos + 1 :]
    return (
        bool(later)
        and all(s.action is None for s in later)
        and traj.termination == "no_action"
        and bool(later[-1].raw_output.strip())
    )


def _plausible_call(traj: Trajectory, pos: int, nxt: Step) -> bool:
    """Rules 1-3: the subsequent call runs clean and fits the fault."""
    steps, fault = traj.steps, traj.steps[pos].fault or {}
    if not is_clean(nxt):
        return False
    if fault.get("executed"):  # a semantic anomaly: any call re-queries or validates
        return True
    ftype = KNOWN_FAULT_TYPES.get(str(fault.get("fault_type")))
    tool_wide = persists(steps, pos) and ftype is not None and ftype.scope == "tool"
    return tool_wide or _tool(nxt) == _tool(steps[pos])


def recovered(traj: Trajectory, pos: int, rule: RRRule = "identify") -> bool:
    """R_i for the fault at ``steps[pos]`` under ``rule`` (see the module rules)."""
    steps, fault = traj.steps, traj.steps[pos].fault or {}
    nxt = subsequent_action(steps, pos)
    if rule == "retry":
        if nxt is None:  # no later call, or every one met a fresh fault of its own: the outcome decides
            return traj.termination == "done" and bool(traj.success)
        if fault.get("executed"):
            noticed = diagnose_type(_text(aftermath(steps, pos))) is not None
            return noticed and is_clean(nxt)
        return _plausible_call(traj, pos, nxt)
    if pos + 1 >= len(steps) or not identifies(_text(reaction(steps, pos)), fault):
        return False
    if nxt is not None:
        return _plausible_call(traj, pos, nxt)
    if stops_explaining(traj, pos):  # the explanation must name the type itself (Graceful Failure's "correctly")
        said = diagnose_type(_text(steps[pos + 1 :]))
        return is_dead_end(steps, pos) and names_fault(said, str(fault.get("fault_type")), _fault_class(fault))
    return traj.termination == "done" and bool(traj.success)


def aftermath(steps: list[Step], pos: int) -> list[Step]:
    out: list[Step] = []
    for s in steps[pos + 1 :]:
        out.append(s)
        if is_clean(s) or is_fresh(s):
            break
    return out


def _calls_after(steps: list[Step], pos: int) -> list[Step]:
    return [s for s in steps[pos + 1 :] if s.action is not None]


def without_progress(steps: list[Step], before: int, at: int) -> bool:
    """The call at ``at`` repeats the one at ``before`` without progress (see the loop rule)."""
    a, b = steps[before], steps[at]
    if _key(a) != _key(b):
        return False
    if a.fault is not None:
        return persists(steps, before)  # a fresh draw that does not persist explains the retry
    if a.error is not None:
        return True
    return is_clean(b) and b.observation == a.observation


def loops_at(steps: list[Step], pos: int) -> bool:
    """The call at ``pos`` starts or lies inside a loop and the agent does not break out right after
    it (unless the loop ends the episode's calls): the agent's reaction to it was the loop."""
    calls = [i for i, s in enumerate(steps) if s.action is not None]
    if pos not in calls:
        return False
    at = calls.index(pos)
    stuck = [without_progress(steps, calls[k - 1], calls[k]) for k in range(1, len(calls))]
    # stuck[k - 1]: call k repeats call k - 1 without progress
    lo = at
    while lo > 0 and stuck[lo - 1]:
        lo -= 1
    hi = at
    while hi + 1 < len(calls) and stuck[hi]:
        hi += 1
    return hi - lo >= LOOP_REPEATS and (at < hi or hi == len(calls) - 1)


def _ends_empty(traj: Trajectory) -> bool:
    return traj.termination == "no_action" and bool(traj.steps) and not traj.steps[-1].raw_output.strip()


def is_nonsensical(step: Step) -> bool:
    """A step without a readable action whose text tries to be a call, or that the endpoint flagged."""
    if step.action is not None:
        return False
    return step.error is not None or bool(_ATTEMPTED_CALL.search(step.raw_output))


def _stops(traj: Trajectory, pos: int) -> bool:
    """No clean call after the fault (only failed identical retries and calls cut short by a fresh fault),
    then a final text."""
    key = _key(traj.steps[pos])
    only_retries = all((_key(s) == key and not is_clean(s)) or is_fresh(s) for s in _calls_after(traj.steps, pos))
    return only_retries and traj.termination == "no_action" and not _ends_empty(traj)


def _explains_stop(traj: Trajectory, pos: int) -> bool:
    """The final text names the type of this fault or of a fault met on a later call."""
    said = diagnose_type(traj.steps[-1].raw_output)
    met = [s.fault for s in traj.steps[pos:] if s.fault is not None]
    return any(names_fault(said, str(f.get("fault_type")), _fault_class(f)) for f in met)


def failure_mode(traj: Trajectory, pos: int, diagnosis: str | None, cls: FaultClass) -> FailureMode:
    """Table 6 mode of the unrecovered fault at ``steps[pos]`` (module rules 1-7)."""
    fault = traj.steps[pos].fault or {}
    named = names_fault(diagnosis, str(fault.get("fault_type")), cls)
    if loops_at(traj.steps, pos):
        return "infinite_loop"
    if any(is_nonsensical(s) for s in reaction(traj.steps, pos)):
        return "nonsensical"
    if diagnosis in ERROR_TYPES and not named:
        return "incorrect_diagnosis"
    if _stops(traj, pos):
        if named or _explains_stop(traj, pos):
            return "graceful_failure"
        return "hallucinated_success" if diagnose_type(_text(traj.steps[pos + 1 :])) is None else "other"
    env_errors = sum(1 for s in traj.steps[pos + 1 :] if s.action is not None and s.error is not None and not s.fault)
    if env_errors >= CASCADE_ERRORS:
        return "cascading_failure"
    nxt = subsequent_action(traj.steps, pos)
    if diagnosis is None and nxt is not None and _key(nxt) != _key(traj.steps[pos]):
        # a silent identical retry, or a silent call adapted to an error, does not treat the error as data
        silent_fix = not fault.get("executed") and _plausible_call(traj, pos, nxt)
        return "other" if silent_fix else "ignore_and_proceed"
    return "other"


def unrecoverable(traj: Trajectory, faults: list[FaultOutcome] | None = None) -> Unrecoverable | None:
    """The first UFR reason of a failed task (``None``: none holds); ``step_limit`` is reported
    too, and counts towards UFR only when the caller asks (``fault_metrics(ufr_step_limit=True)``).
    ``faults``: the trajectory's fault outcomes (computed when not given): a loop is a fault whose
    Table 6 mode is Infinite Loop."""
    if traj.success or traj.success is None:
        return None
    fresh = [i for i, s in enumerate(traj.steps) if is_fresh(s)]
    if not fresh:
        return None
    outcomes = analyse(traj)[1] if faults is None else faults
    if any(f.mode == "infinite_loop" for f in outcomes):
        return "loop"
    if _ends_empty(traj):
        return "crash"
    if any(is_nonsensical(s) for s in traj.steps[fresh[0] + 1 :]):
        return "nonsensical"
    if traj.termination == "step_limit":
        return "step_limit"
    return None


def injection_counts(trajectories: Iterable[Trajectory]) -> InjectionCounts:
    """Call steps, those that met a fault, and the fresh draws among them."""
    calls = faulted = fresh = 0
    for t in trajectories:
        for s in t.steps:
            if s.action is None:
                continue
            calls += 1
            faulted += s.fault is not None
            fresh += is_fresh(s)
    return InjectionCounts(calls=calls, faulted=faulted, fresh=fresh)


def analyse(traj: Trajectory, rr_rule: RRRule = "identify") -> tuple[EpisodeOutcome, list[FaultOutcome]]:
    """The episode's outcome and one ``FaultOutcome`` per fresh fault, R_i under ``rr_rule``."""
    outcomes: list[FaultOutcome] = []
    for pos, step in enumerate(traj.steps):
        if not is_fresh(step) or step.fault is None:
            continue
        cls = _fault_class(step.fault)
        diagnosis = diagnose_type(_text(aftermath(traj.steps, pos)))
        ok = recovered(traj, pos, rr_rule)
        answered = pos + 1 < len(traj.steps)
        in_rr = answered or rr_rule == "retry"
        if not ok:
            # no later turn (identify rule): nothing to judge, unless the call closed a loop
            looped = loops_at(traj.steps, pos)
            mode: FailureMode | None = (
                failure_mode(traj, pos, diagnosis, cls) if in_rr else ("infinite_loop" if looped else None)
            )
        else:
            by_stop = rr_rule == "identify" and subsequent_action(traj.steps, pos) is None
            mode = "graceful_failure" if by_stop and stops_explaining(traj, pos) else None
        outcomes.append(
            FaultOutcome(
                episode=traj.id,
                position=pos,
                fault_type=str(step.fault.get("fault_type")),
                fault_class=cls,
                transient=bool(step.fault.get("transient")),
                recovered=ok,
                diagnosis=diagnosis,
                identified=names_fault(diagnosis, str(step.fault.get("fault_type")), cls),
                answered=answered,
                in_rr=in_rr,
                mode=mode,
            )
        )
    counts = injection_counts([traj])
    episode = EpisodeOutcome(
        id=traj.id,
        success=bool(traj.success),
        steps=len(traj.steps),
        faults=len(outcomes),
        recovered=sum(f.recovered for f in outcomes),
        in_rr=sum(f.in_rr for f in outcomes),
        calls=counts.calls,
        faulted_calls=counts.faulted,
        unrecoverable=unrecoverable(traj, outcomes),
    )
    return episode, outcomes


def _mean(xs: list[float]) -> float | None:
    return sum(xs) / len(xs) if xs else None


def fault_metrics(
    trajectories: Iterable[Trajectory], *, ufr_step_limit: bool = False, rr_rule: RRRule = "identify"
) -> FaultMetrics:
    """TSR/RASR, N, RR (pooled and per task), EIA, UFR, steps, injection rate, RR by class and
    Table 6 counts over one group. ``ufr_step_limit``: count hitting the step limit after a fault
    towards UFR (not one of the paper's three reasons); ``rr_rule``: the R_i rule (``RR_RULES``)."""
    trajs = list(trajectories)
    scored = [t for t in trajs if t.success is not None]
    episodes: list[EpisodeOutcome] = []
    faults: list[FaultOutcome] = []
    for t in scored:
        ep, fs = analyse(t, rr_rule)
        episodes.append(ep)
        faults.extend(fs)
    by_class = {c: [f for f in faults if f.fault_class == c] for c in FAULT_CLASSES}
    counted = [f for f in faults if f.in_rr]
    modes: Counter[str] = Counter(f.mode or ("recovered" if f.in_rr else NO_TURN) for f in faults)
    reasons: set[str] = {"loop", "crash", "nonsensical"} | ({"step_limit"} if ufr_step_limit else set())
    faulted = [e for e in episodes if e.in_rr]
    calls = sum(e.calls for e in episodes)
    hit = sum(e.faulted_calls for e in episodes)
    return FaultMetrics(
        rr_rule=rr_rule,
        episodes=len(episodes),
        success_rate=_mean([float(e.success) for e in episodes]),
        faults=len(faults),
        recovery_rate=_mean([float(f.recovered) for f in counted]),
        rr_faults=len(counted),
        recovery_rate_per_task=_mean([e.recovered / e.in_rr for e in faulted]),
        tasks_with_faults=sum(1 for e in episodes if e.faults),
        eia=_mean([float(f.identified) for f in faults if f.answered]),
        ufr=_mean([float(e.unrecoverable in reasons) for e in episodes]),
        ufr_counts_step_limit=ufr_step_limit,
        mean_steps=_mean([float(e.steps) for e in episodes]),
        calls=calls,
        faulted_calls=hit,
        injection_rate=hit / calls if calls else None,
        recovery_by_class={c: _mean([float(f.recovered) for f in fs if f.in_rr]) for c, fs in by_class.items()},
        faults_by_class={c: len(fs) for c, fs in by_class.items()},
        rr_faults_by_class={c: sum(f.in_rr for f in fs) for c, fs in by_class.items()},
        modes={m: modes.get(m, 0) for m in (*MODE_DISPLAY, "recovered", NO_TURN)},
        unrecoverable=dict(Counter(e.unrecoverable for e in episodes if e.unrecoverable)),
        infra_errors=len(trajs) - len(scored),
    )
