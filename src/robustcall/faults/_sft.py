"""Adversarial fine-tuning data: (s_t, a_t, o_injected, a_recovery) as chat-format SFT records.

For every fresh fault of a logged episode, the prompt is the transcript up to and including the
injected observation (s_t, the agent's a_t, o_injected) and the completion is one assistant turn
a_recovery: a one-sentence diagnosis that names the fault's error type, then the recovery action.

a_recovery comes from the environment's expert policy at the state right after the fault (the
episode's calls are replayed through a fresh ``FaultyEnv`` with the run's profile and seed, which
reproduces the same faults), written for the interface as it is then (renamed / newly required
parameters applied), with three exceptions the expert cannot know about:

- a semantic anomaly: the agent has not seen a valid result, so the recovery re-issues the faulted
  call (verify before acting on corrupted data);
- a persisting fault that blocks the expert's own next call (a deprecated tool it needs; under a
  sticky profile also a 404 on the same call, a 401 / 403 on the tool): the recovery is a graceful
  failure, in words, with no call (a 404 / 401 / 403 drawn per call blocks nothing: the call is retried);
- the expert has nothing left to do (the faulted call finished the task): no record.

Records are ``{"messages": [{"role", "content"}, ...], ...}`` (TRL's conversational format); tool
calls inside the transcript are rendered as text in the run's output format.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from robustcall.core import KNOWN_FAULT_TYPES, FaultClass, Message, ToolCall, Trajectory
from robustcall.envs import Env
from robustcall.faults._env import FaultyEnv
from robustcall.faults._profile import FaultProfile
from robustcall.formats import OutputFormat, render_calls

DIAGNOSIS: dict[FaultClass, str] = {
    "execution": "The call to `{tool}` failed with an execution error ({what}).",
    "semantic": "The result of `{tool}` is a semantic anomaly ({what}), so I cannot trust it.",
    "nonstationary": "The environment is not what it was: non-stationarity ({what}).",
}
PLAN = {
    "retry": " It is transient, so I will retry the call.",
    "verify": " I will call it again to get a valid result.",
    "adapt": " I will continue with a call written for the current interface.",
    "other": " I will continue another way.",
    "give_up": " Retrying will not help and no other tool can do this, so I cannot complete the task.",
}


class RecoveryExample(BaseModel):
    """One SFT record: ``messages`` for the trainer, the rest to filter or weight by."""

    messages: list[dict[str, str]]
    episode: str
    step: int
    fault_type: str
    fault_class: str
    recovery: str
    """``retry``, ``verify``, ``adapt``, ``other`` or ``give_up``."""


def chat(messages: list[Message], fmt: OutputFormat) -> list[dict[str, str]]:
    """A transcript as ``{role, content}`` turns: structured calls rendered as text in ``fmt``."""
    out = []
    for m in messages:
        content = m.content
        if m.tool_calls:
            calls = render_calls(list(m.tool_calls), fmt)
            content = f"{content}\n{calls}" if content.strip() else calls
        out.append({"role": m.role, "content": content})
    return out


def _assistant_positions(messages: list[Message]) -> list[int]:
    return [i for i, m in enumerate(messages) if m.role == "assistant"]


def recovery_turn(
    fault: dict[str, Any], faulted: ToolCall, expert: ToolCall | None, fmt: OutputFormat, *, stopped: bool = False
) -> tuple[str, str] | None:
    """(kind, assistant text) of the recovery after ``fault`` on ``faulted``; ``None``: nothing to do.
    ``stopped``: the expert cannot go on (the tool it needs was removed)."""
    ftype = KNOWN_FAULT_TYPES.get(str(fault.get("fault_type")))
    cls: FaultClass = fault["fault_class"]
    what = ftype.description if ftype is not None else str(fault.get("fault_type"))
    head = DIAGNOSIS[cls].format(tool=faulted.name, what=what)
    if cls == "semantic":
        return "verify", head + PLAN["verify"] + "\n" + render_calls([faulted], fmt)
    if expert is None:
        return ("give_up", head + PLAN["give_up"]) if stopped else None
    scope = ftype.scope if ftype is not None else "none"
    persists = bool(fault.get("persists"))
    blocked = persists and (
        (scope == "call" and expert == faulted) or (scope == "tool" and expert.name == faulted.name)
    )
    if blocked:
        return "give_up", head + PLAN["give_up"]
    if ftype is not None and ftype.transient and expert == faulted:
        kind = "retry"
    elif scope == "interface":
        kind = "adapt"
    elif expert == faulted:
        kind = "retry"
    else:
        kind = "other"
    return kind, head + PLAN[kind] + "\n" + render_calls([expert], fmt)


def recovery_examples(traj: Trajectory, env: Env, profile: FaultProfile, fmt: OutputFormat) -> list[RecoveryExample]:
    """The SFT records of one logged episode (see the module rules); needs a fresh ``env``."""
    positions = _assistant_positions(traj.messages)
    if len(positions) != len(traj.steps):
        raise ValueError(
            f"{traj.id}: {len(positions)} assistant turns for {len(traj.steps)} steps; cannot align the transcript"
        )
    faulty = FaultyEnv(env, profile)
    faulty.reset(traj.task_id, traj.seed)
    out: list[RecoveryExample] = []
    for pos, step in enumerate(traj.steps):
        call = step.executed or step.action
        if call is None:
            continue
        replayed = faulty.step(call)
        fault = step.fault
        if fault is None or fault.get("repeat_of") is not None:
            continue
        if replayed.fault is None or replayed.fault.fault_type != fault.get("fault_type"):
            raise ValueError(
                f"{traj.id} step {pos}: replay did not reproduce the logged fault (profile or seed differ?)"
            )
        turn = recovery_turn(fault, call, faulty.expert_action(), fmt, stopped=faulty.expert_stop() is not None)
        obs_at = positions[pos] + 1
        if turn is None or obs_at >= len(traj.messages):
            continue
        prompt = chat(traj.messages[: obs_at + 1], fmt)
        out.append(
            RecoveryExample(
                messages=[*prompt, {"role": "assistant", "content": turn[1]}],
                episode=traj.id,
                step=pos,
                fault_type=str(fault["fault_type"]),
                fault_class=str(fault["fault_class"]),
                recovery=turn[0],
            )
        )
    return out
