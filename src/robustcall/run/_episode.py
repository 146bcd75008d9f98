"""The multi-turn agent loop: model -> one call -> environment -> observation, until the episode ends.

Used by PIPE runs (``run._pipe``, the ``InterfaceEnv`` wrapper) and fault-injection runs
(``run._faults``, the ``FaultyEnv`` wrapper); any ``Env`` and any ``models`` backend. A model that
plays the environment itself (``models.BindsToEnv``: ``scripted:expert``, ``memorise``, ``random``)
is bound to this episode's environment and seed first.

An episode ends when the environment says ``done``; when the step limit (model calls) is reached;
when the model answers without a call and the environment has no further user turn (``no_action``;
an environment with several user turns, :class:`~robustcall.envs.UserTurns`, answers the text with
the next user message, or ends the episode as ``done`` after the last one); or on an endpoint
failure (``infra``).

Prompt mode renders the tools into the system prompt in ``fmt`` and parses the model's text back
(``formats``; never evaluated); fc mode passes tools in ``tools=`` and reads structured calls. One
call per step (the first, when a model writes several). When non-stationarity changes the
interface, the next request carries the changed tool list (fc) — in prompt mode the agent learns
of it from the error observation, as it would from a real API. The CoT baseline (Table 4) adds
``COT_PROMPT`` to the system prompt.
"""

from __future__ import annotations

from typing import Any

from robustcall.core import (
    EvalConfig,
    InputError,
    Message,
    Sample,
    SourceInfo,
    Step,
    ToolCall,
    ToolSpec,
    Trajectory,
    in_worker,
)
from robustcall.envs import Env, EnvReset, UserTurns, is_solved
from robustcall.formats import OutputFormat, parse_tool_calls, render_calls, render_system_prompt
from robustcall.models import BindsToEnv, ChatModel, ModelRequest, ModelResponse, unwire_calls

COT_PROMPT = (
    "Before every action, reason step by step about the previous tool output: is it an error, or does it "
    "look wrong? If so, name what kind of problem it is: an execution error (an HTTP error code, a timeout, "
    "a rate limit), a semantic anomaly (an empty, malformed, truncated or implausible result, or a field of "
    "the wrong type), or a change of the tool interface (a deprecated tool, a renamed or newly required "
    "parameter). Then recover: retry transient errors, adapt your call to a changed interface, verify "
    "suspicious results, and if the task cannot be completed, say why and stop."
)
"""The Chain-of-Thought prompting baseline: reason explicitly about each tool output before proceeding."""

FC_SYSTEM = "You are an agent that completes the user's task by calling the available tools, one call at a time."
PROMPT_VARIANTS = ("default", "cot")
FINISH_HINT = "When the task is done, or cannot be done, answer in plain text without a tool call."


def _observation(fmt: OutputFormat, name: str, text: str) -> str:
    if fmt == "react":
        return f"Observation: {text}"
    if fmt == "tool_call":
        return f"<obs>{text}</obs>"
    return f"Result of {name}: {text}"


def _system(tools: list[ToolSpec], model: ChatModel, fmt: OutputFormat, prompt: str) -> str:
    return system_prompt(tools, model.mode, fmt, prompt)


def system_prompt(tools: list[ToolSpec], mode: str, fmt: OutputFormat, prompt: str = "default") -> str:
    """The episode's system turn: the tools in ``fmt`` (prompt mode) or the fc instruction, the finish
    hint, and the prompt variant's addition."""
    base = render_system_prompt(tools, fmt) if mode == "prompt" else FC_SYSTEM
    parts = [base, FINISH_HINT]
    if prompt == "cot":
        parts.append(COT_PROMPT)
    elif prompt != "default":
        raise InputError(f"unknown prompt variant {prompt!r}; known: {', '.join(PROMPT_VARIANTS)}")
    return "\n\n".join(parts)


def first_user_turn(start: EnvReset) -> str:
    """The episode's first user turn: the instruction, then the first observation (if any)."""
    return start.instruction + (f"\n\n{start.observation}" if start.observation else "")


def _cost(resp: ModelResponse) -> dict[str, Any]:
    """A step's tokens, when the server counted them (not its wall time, which no two runs share)."""
    return {"usage": resp.usage} if resp.usage is not None else {}


async def run_episode(
    model: ChatModel,
    env: Env,
    task_id: str,
    *,
    seed: int = 0,
    max_steps: int = 10,
    fmt: OutputFormat = "tool_call",
    prompt: str = "default",
) -> Trajectory:
    """One episode of ``task_id``; never raises on endpoint errors (they end it as ``infra``)."""
    if isinstance(model, BindsToEnv):
        model = model.bind(env, seed)
    start = env.reset(task_id, seed)
    user = first_user_turn(start)
    messages = [Message(role="system", content=_system(start.tools, model, fmt, prompt)),
                Message(role="user", content=user)]  # fmt: skip
    sample = Sample(
        id=f"{env.name}/{task_id}",
        benchmark=env.name,
        category="multi_turn",
        source=SourceInfo(original_id=task_id, benchmark=env.name),
        conversation=messages,
        tools=start.tools,
        golden_answers=[],
        eval_config=EvalConfig(method="exact", output_format=fmt),
    )
    steps: list[Step] = []
    termination = "step_limit"
    infra: str | None = None
    for i in range(max_steps):
        tools = env.tools() if hasattr(env, "tools") else start.tools
        resp = await model.complete(ModelRequest(messages=list(messages), tools=tools, sample=sample, pass_index=i))
        if resp.error_kind == "infra":
            termination, infra = "infra", resp.error or "endpoint failure"
            break
        if resp.tool_calls is not None:
            calls = list(resp.tool_calls)
        else:  # fc text a server refused and quoted names the tools by their wire aliases
            calls = (await in_worker(parse_tool_calls, len(resp.text), resp.text, fmt, tools)).calls
            calls = unwire_calls(calls, tools) if model.mode == "fc" and calls else calls
        if not calls:
            reply = env.answer(resp.text) if isinstance(env, UserTurns) else None
            turn = reply.observation if reply is not None and not reply.done else ""
            steps.append(Step(index=i, raw_output=resp.text, observation=turn, error=resp.error, **_cost(resp)))
            messages.append(Message(role="assistant", content=resp.text))
            if reply is None:
                termination = "no_action"
                break
            if reply.done:
                termination = "done"
                break
            messages.append(Message(role="user", content=reply.observation))
            continue
        call: ToolCall = calls[0]
        out = env.step(call)
        fault = getattr(out, "fault", None)
        steps.append(
            Step(
                index=i,
                raw_output=resp.text,
                action=call,
                executed=call,
                observation=out.observation,
                fault=fault.model_dump() if fault is not None else None,
                error=out.observation if out.error else None,
                **_cost(resp),
            )
        )
        if model.mode == "fc":
            messages.append(Message(role="assistant", content=resp.text, tool_calls=[call]))
            messages.append(Message(role="tool", name=call.name, content=out.observation))
        else:
            messages.append(Message(role="assistant", content=resp.text or render_calls([call], fmt)))
            messages.append(Message(role="user", content=_observation(fmt, call.name, out.observation)))
        if out.done:
            termination = "done"
            break
    score = env.score() if termination != "infra" else 0.0
    solved = termination != "infra" and is_solved(env)
    return Trajectory(
        id=f"{env.name}/{task_id}",
        env=env.name,
        task_id=task_id,
        model=model.name,
        seed=seed,
        config={"mode": model.mode, "format": fmt, "tools": [t.name for t in start.tools]},
        messages=messages,
        steps=steps,
        success=None if termination == "infra" else solved,
        score=score,
        termination=termination,
        infra_error=infra,
    )
