"""Fault-aware scripted policies with analytically known robustness, and a minimal episode driver.

The policies see each previous step's fault record (a test stand-in may know what it was shown),
so their reaction to each fault type is fixed: that is what makes RR / EIA / UFR exactly known.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from robustcall.core import Message, Step, ToolCall, Trajectory
from robustcall.faults import FaultyEnv, InjectedFault
from robustcall.metrics import ERROR_TYPE_OF


@dataclass
class Turn:
    call: ToolCall | None
    observation: str
    fault: InjectedFault | None


Policy = Callable[[FaultyEnv, list[Turn]], tuple[str, ToolCall | None]]

NAMES: dict[str, str] = {
    "timeout": "The request timed out",
    "rate limit": "We hit the rate limit",
    "not found": "The resource was not found",
    "unauthorized": "The credentials are unauthorized",
    "server error": "The server had an internal error",
    "empty result": "The result is empty",
    "malformed": "The result is malformed",
    "implausible value": "The result holds an implausible value",
    "wrong type": "A field has the wrong type",
    "wrong value": "The result holds a suspicious value",
    "schema mismatch": "The response failed schema validation",
    "stale": "The result is stale",
    "deprecated": "The tool was deprecated",
    "parameter changed": "A parameter was renamed",
}
"""A sentence naming each error type (``metrics.ERROR_TYPES``)."""
_LABELS = list(NAMES)
WRONG: dict[str, str] = {label: _LABELS[(i + 1) % len(_LABELS)] for i, label in enumerate(_LABELS)}
"""Another error type for each (a misdiagnosis)."""
GIVE_UP = "The tool keeps failing; I cannot complete the task."


def _retry_once(say: Callable[[InjectedFault], str]) -> Policy:
    def act(env: FaultyEnv, history: list[Turn]) -> tuple[str, ToolCall | None]:
        last = history[-1] if history else None
        if last is not None and last.fault is not None and last.call is not None:
            retried = len(history) >= 2 and history[-2].fault is not None and history[-2].call == last.call
            if retried:
                return f"{say(last.fault)}. {GIVE_UP}", None
            return f"{say(last.fault)}; retrying the same call once.", last.call
        action = env.expert_action()
        return ("", action) if action is not None else ("Done.", None)

    return act


retry_once = _retry_once(lambda fault: "That call did not work")
diagnose_and_retry = _retry_once(lambda fault: NAMES[ERROR_TYPE_OF[fault.fault_type]])
misdiagnose_and_retry = _retry_once(lambda fault: NAMES[WRONG[ERROR_TYPE_OF[fault.fault_type]]])


def repeat_forever(env: FaultyEnv, history: list[Turn]) -> tuple[str, ToolCall | None]:
    """The expert's first call, then that same call again and again."""
    if history and history[0].call is not None:
        return "", history[0].call
    return "", env.expert_action()


def fixed_plan(
    calls: list[ToolCall], after_fault: Callable[[Turn], tuple[str, ToolCall | None]] | None = None
) -> Policy:
    """Makes ``calls`` in order whatever it sees; ``after_fault`` overrides the step right after a fault."""

    def act(env: FaultyEnv, history: list[Turn]) -> tuple[str, ToolCall | None]:
        if history and history[-1].fault is not None and after_fault is not None:
            return after_fault(history[-1])
        made = sum(t.call is not None for t in history)
        return ("", calls[made]) if made < len(calls) else ("Finished.", None)

    return act


def run_episode(
    env: FaultyEnv, task: str, policy: Policy, *, max_steps: int = 6, seed: int = 0, model: str = "scripted"
) -> Trajectory:
    """Drive one episode (a stand-in for the multi-turn loop) and record it as a ``Trajectory``."""
    start = env.reset(task, seed)
    messages = [
        Message(role="system", content="You are a shopping agent."),
        Message(role="user", content=start.instruction),
    ]
    history: list[Turn] = []
    steps: list[Step] = []
    termination = "step_limit"
    for i in range(max_steps):
        text, call = policy(env, history)
        messages.append(Message(role="assistant", content=text, tool_calls=[call] if call else None))
        if call is None:
            steps.append(Step(index=i, raw_output=text))
            termination = "no_action"
            break
        out = env.step(call)
        steps.append(
            Step(
                index=i,
                raw_output=text,
                action=call,
                executed=call,
                observation=out.observation,
                fault=out.fault.model_dump() if out.fault else None,
                error=out.observation if out.error else None,
            )
        )
        history.append(Turn(call, out.observation, out.fault))
        messages.append(Message(role="tool", name=call.name, content=out.observation))
        if out.done:
            termination = "done"
            break
    score = env.score()
    return Trajectory(
        id=f"{env.name}/{task}/{env.profile.name}/d{env.profile.delta}/s{seed}",
        env=env.name,
        task_id=task,
        seed=seed,
        model=model,
        steps=steps,
        messages=messages,
        success=score == 1.0,
        score=score,
        termination=termination,  # type: ignore[arg-type]
        config={"profile": env.profile.name, "delta": env.profile.delta},
    )
