"""Answering one work item: a single pass, or the two-pass transition harness (§4.3, Appendix G).

Two-pass transitions: pass 1 sees the clean tools; if it calls a tool, the first call's result is
replaced by the type's fixed error string and pass 2 runs on the extended transcript; pass 2 is
what gets scored. If pass 1 calls nothing, the record says ``transition_injected=false`` and
pass 1 is scored.
"""

from __future__ import annotations

from robustcall.core import ErrorKind, Message, Prediction, Sample, ToolCall, add_usage, in_worker, type_info
from robustcall.faults import transition_injector
from robustcall.formats import OutputFormat, calls_refusal, parse_tool_calls, render_messages, sample_format
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


def transition_turns(sample: Sample, mode: Mode, text: str, call: ToolCall) -> list[Message]:
    """The turns pass 2 of a transition type adds to the prompt: pass 1's answer ``text`` and the
    injected error (the type's Appendix G message) as the result of its first ``call``."""
    fault = transition_injector(sample.perturbation.type).maybe_inject(0, call)
    assert fault is not None  # δ = 1 at the first call
    if mode == "fc":
        return [
            Message(role="assistant", content=text, tool_calls=[call]),
            Message(role="tool", name=call.name, content=fault.observation),
        ]
    return [Message(role="assistant", content=text), observation_turn(output_format(sample), call, fault.observation)]


def calls_of(response: ModelResponse, fmt: OutputFormat, sample: Sample, mode: Mode = "prompt") -> list[ToolCall]:
    """Structured calls when the backend gave them, else calls parsed from the text; in ``fc`` mode
    (text a server refused and quoted) the tools' wire aliases are read back as their names."""
    return read_calls(response, fmt, sample, mode)[0]


def read_calls(
    response: ModelResponse, fmt: OutputFormat, sample: Sample, mode: Mode = "prompt"
) -> tuple[list[ToolCall], str | None]:
    """:func:`calls_of`, and why none could be read when the text or the structured arguments are
    past the parser's bounds or unreadable (a model-format error: scored as no call)."""
    if response.tool_calls is not None:
        why = calls_refusal([c.arguments for c in response.tool_calls])
        return ([], why) if why is not None else (list(response.tool_calls), None)
    got = parse_tool_calls(response.text, fmt, sample.tools)
    calls = got.calls
    return (unwire_calls(calls, sample.tools) if mode == "fc" and calls else calls), got.refused


async def read_calls_async(
    response: ModelResponse, fmt: OutputFormat, sample: Sample, mode: Mode = "prompt"
) -> tuple[list[ToolCall], str | None]:
    """:func:`read_calls` in a worker (``core.in_worker``), never on the event loop: however long an
    answer takes to read, the run's other requests go on meanwhile."""
    return await in_worker(read_calls, len(response.text), response, fmt, sample, mode)


def _unreadable(error: str | None, kind: ErrorKind | None, why: str | None) -> tuple[str | None, ErrorKind | None]:
    """The record's error fields once the parser's refusal ``why`` (if any) is added."""
    if why is None:
        return error, kind
    return (f"{error}; {why}" if error else why), "model_format"


def _failed(response: ModelResponse, before: ModelResponse | None = None) -> Prediction:
    """The record of a request that failed (``before``: pass 1, whose time and tokens were spent)."""
    return Prediction(
        raw_output=response.text,
        error=response.error,
        error_kind=response.error_kind,
        latency_s=response.latency_s + (before.latency_s if before is not None else 0.0),
        usage=add_usage(before.usage if before is not None else None, response.usage),
    )


async def answer(
    sample: Sample, model: ChatModel, max_tokens: int | None = None, seed: int | None = None
) -> Prediction:
    """Ask the model about one sample and return its prediction (never raises on endpoint errors).
    ``max_tokens``: a cap on each pass's output below the model's settings (``GoldBudget``);
    ``seed``: the request seed of both passes (a trial's, ``trial_seed``)."""
    fmt = output_format(sample)
    messages = render_messages(sample, model.mode)
    first = await model.complete(
        ModelRequest(messages=messages, tools=sample.tools, sample=sample, max_tokens=max_tokens, seed=seed)
    )
    if first.error_kind == "infra":
        return _failed(first)
    mode = model.mode
    calls, why = await read_calls_async(first, fmt, sample, mode)
    error, kind = _unreadable(first.error, first.error_kind, why)
    code = sample.perturbation.type
    if type_info(code).component != "transition":
        return Prediction(
            raw_output=first.text,
            tool_calls=calls,
            error=error,
            error_kind=kind,
            latency_s=first.latency_s,
            usage=first.usage,
        )
    if not calls:
        return Prediction(
            raw_output=first.text,
            tool_calls=[],
            error=error,
            error_kind=kind,
            transition_injected=False,
            latency_s=first.latency_s,
            usage=first.usage,
        )
    follow = transition_turns(sample, model.mode, first.text, calls[0])
    second = await model.complete(
        ModelRequest(
            messages=[*messages, *follow],
            tools=sample.tools,
            sample=sample,
            pass_index=1,
            max_tokens=max_tokens,
            seed=seed,
        )
    )
    if second.error_kind == "infra":
        return _failed(second, first)
    calls2, why2 = await read_calls_async(second, fmt, sample, mode)
    error2, kind2 = _unreadable(second.error, second.error_kind, why2)
    return Prediction(
        raw_output=second.text,
        tool_calls=calls2,
        error=error2,
        error_kind=kind2,
        transition_injected=True,
        pass1_raw_output=first.text,
        pass1_tool_calls=calls,
        latency_s=first.latency_s + second.latency_s,
        usage=add_usage(first.usage, second.usage),
    )
