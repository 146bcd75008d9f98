"""Answering one work item: a single pass, or the two-pass transition harness (§4.3, Appendix G).

Two-pass transitions: pass 1 sees the clean tools; if it calls a tool, the first call's result is
replaced by the type's fixed error string and pass 2 runs on the extended transcript; pass 2 is
what gets scored. If pass 1 calls nothing, the record says ``transition_injected=false`` and
pass 1 is scored.
"""

from __future__ import annotations

from robustcall.core import Message, Prediction, Sample, ToolCall, type_info
from robustcall.faults import transition_injector
from robustcall.formats import OutputFormat, parse_tool_calls, render_messages, sample_format
from robustcall.models import ChatModel, Mode, ModelRequest, ModelResponse, unwire_calls

output_format = sample_format
"""The output format the sample's source benchmark expects (Table 3)."""


def observation_turn(fmt: OutputFormat, call: ToolCall, text: str) -> Message:
    """How a tool result reaches a prompt-mode model: a user turn in the source's own idiom.

    Prompt-mode endpoints generally refuse ``tool`` turns that answer no structured call, so the
    result travels as user text (ReAct ``Observation:``, ToolRL's ``<obs>`` tags).
    """
    if fmt == "react":
        body = f"Observation: {text}"
    elif fmt == "tool_call":
        body = f"<obs>{text}</obs>"
    else:
        body = f"Result of {call.name}: {text}"
    return Message(role="user", content=body)


def calls_of(response: ModelResponse, fmt: OutputFormat, sample: Sample, mode: Mode = "prompt") -> list[ToolCall]:
    """Structured calls when the backend gave them, else calls parsed from the text; in ``fc`` mode
    (text a server refused and quoted) the tools' wire aliases are read back as their names."""
    if response.tool_calls is not None:
        return list(response.tool_calls)
    calls = parse_tool_calls(response.text, fmt, sample.tools).calls
    return unwire_calls(calls, sample.tools) if mode == "fc" and calls else calls


def _failed(response: ModelResponse) -> Prediction:
    return Prediction(
        raw_output=response.text,
        error=response.error,
        error_kind=response.error_kind,
        latency_s=response.latency_s,
    )


async def answer(sample: Sample, model: ChatModel) -> Prediction:
    """Ask the model about one sample and return its prediction (never raises on endpoint errors)."""
    fmt = output_format(sample)
    messages = render_messages(sample, model.mode)
    first = await model.complete(ModelRequest(messages=messages, tools=sample.tools, sample=sample))
    if first.error_kind == "infra":
        return _failed(first)
    calls = calls_of(first, fmt, sample, model.mode)
    code = sample.perturbation.type
    if type_info(code).component != "transition":
        return Prediction(
            raw_output=first.text,
            tool_calls=calls,
            error=first.error,
            error_kind=first.error_kind,
            latency_s=first.latency_s,
        )
    if not calls:
        return Prediction(
            raw_output=first.text,
            tool_calls=[],
            error=first.error,
            error_kind=first.error_kind,
            transition_injected=False,
            latency_s=first.latency_s,
        )
    fault = transition_injector(code).maybe_inject(0, calls[0])
    assert fault is not None  # δ = 1 at the first call
    if model.mode == "fc":
        follow = [
            Message(role="assistant", content=first.text, tool_calls=[calls[0]]),
            Message(role="tool", name=calls[0].name, content=fault.observation),
        ]
    else:
        follow = [
            Message(role="assistant", content=first.text),
            observation_turn(fmt, calls[0], fault.observation),
        ]
    second = await model.complete(
        ModelRequest(messages=[*messages, *follow], tools=sample.tools, sample=sample, pass_index=1)
    )
    if second.error_kind == "infra":
        return _failed(second)
    return Prediction(
        raw_output=second.text,
        tool_calls=calls_of(second, fmt, sample, model.mode),
        error=second.error,
        error_kind=second.error_kind,
        transition_injected=True,
        pass1_raw_output=first.text,
        pass1_tool_calls=calls,
        latency_s=first.latency_s + second.latency_s,
    )
