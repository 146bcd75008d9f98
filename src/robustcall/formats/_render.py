"""Prompt-mode rendering: tools into a system prompt in the source's own output format (Table 3),
samples into chat messages, and calls into the canonical text of a format."""

from __future__ import annotations

import json
from typing import Any, Literal

from robustcall.core import Message, Sample, ToolCall, ToolSpec
from robustcall.formats._types import OUTPUT_FORMATS, OutputFormat

DEFAULT_FORMATS: dict[str, OutputFormat] = {
    "bfcl_ast": "bfcl",
    "apibank": "tool_call",
    "rotbench": "react",
    "toolalpaca": "react",
    "tooleyes": "react",
}
"""Output format per scoring method when a sample does not name one (Table 3)."""

_BFCL = (
    "You are an expert in composing functions. You are given a question and a set of possible functions. "
    "Based on the question, you will need to make one or more function/tool calls to achieve the purpose. "
    "If none of the functions can be used, point it out. If the given question lacks the parameters required "
    "by the function, also point it out.\n"
    "You should only return the function calls in your response.\n\n"
    "If you decide to invoke any of the function(s), you MUST put it in the format of "
    "[func_name1(params_name1=params_value1, params_name2=params_value2...), func_name2(params)]\n"
    "You SHOULD NOT include any other text in the response.\n\n"
    "Here is a list of functions in JSON format that you can invoke.\n{tools}\n"
)
_TOOL_CALL = (
    "You are a helpful multi-turn dialogue assistant capable of leveraging tool calls to solve user tasks "
    "and provide structured chat responses.\n\n"
    "**Available Tools**\nIn your response, you can use the following tools:\n{tools}\n\n"
    "**Output Format**\n```plaintext\n<think> Your thoughts and reasoning </think>\n<tool_call>\n"
    '{{"name": "Tool name", "parameters": {{"Parameter name": "Parameter content", "... ...": "... ..."}}}}\n'
    '{{"name": "... ...", "parameters": {{"... ...": "... ...", "... ...": "... ..."}}}}\n'
    "...\n</tool_call>\n<response> AI's final response </response>\n```\n\n"
    "**Important Notes**\n"
    "1. You must always include the `<think>` field to outline your reasoning. Provide at least one of "
    "`<tool_call>` or `<response>`.\n"
    "2. You can invoke multiple tool calls simultaneously in the `<tool_call>` fields. Each tool call should be "
    'a JSON object with a "name" field and a "parameters" field containing a dictionary of parameters. If no '
    'parameters are needed, leave the "parameters" field an empty dictionary.\n'
    "3. Tool feedback, if any, is given to you between `<obs>` and `</obs>`."
)
_REACT = (
    "You are an expert in using tools to handle real-time queries from users.\n"
    "At each step, give your thought to analyze the current state and decide the next step, with a function "
    "call to actually execute your step.\n\n"
    "Desired format:\nThought: <The thought>\nAction: <The tool you decide to use>\n"
    "Action Input: <The parameters for the tool, as a JSON object>\n\n"
    "Remember:\n1. Keep each thought short, at most 3 sentences.\n"
    "2. The action to take should be one of the given tools below.\n"
    '3. The "Action Input" must be a JSON object like {{"parameter_1": "value_1", "parameter_2": "value_2"}}.\n'
    '4. Tool results come back to you as "Observation: ...".\n\n'
    "You have access to the following tools:\n{tools}"
)
_JSON = (
    "You can call the tools listed below. To call a tool, reply with only a JSON object "
    '{{"name": "<tool name>", "parameters": {{"<parameter>": <value>}}}} (a JSON list of such objects for '
    "several calls). If no tool fits the request, say so in plain text.\n\nTools:\n{tools}"
)


_dumps = json.JSONEncoder(ensure_ascii=False).encode
"""``json.dumps(x, ensure_ascii=False)`` without building an encoder per call (the run loop's hot path)."""


_dumps_native = json.JSONEncoder(ensure_ascii=False, allow_nan=False).encode
"""Refuses what is not plain JSON (NaN included) instead of writing it."""


def _tool_json(tools: list[ToolSpec]) -> str:
    # The fields as stored equal model_dump(mode="json") when they are plain JSON (what sources
    # load), at a tenth of its cost; anything else makes the encoder refuse, and pydantic converts.
    try:
        return _dumps_native([{**t.__dict__, **(t.__pydantic_extra__ or {})} for t in tools])
    except (TypeError, ValueError):
        return _dumps([t.model_dump(mode="json") for t in tools])


def _tool_blocks(tools: list[ToolSpec]) -> str:
    """ToolRL's numbered ``Name / Description / Parameters`` blocks."""
    lines = []
    for i, t in enumerate(tools, start=1):
        params = _dumps(t.properties())
        lines.append(f"{i}. Name: {t.name}\nDescription: {t.description}\nParameters: {params}")
    return "\n".join(lines)


def render_system_prompt(tools: list[ToolSpec], fmt: OutputFormat) -> str:
    """The prompt-mode system prompt: ``tools`` and how to call them in ``fmt`` (Table 3)."""
    if fmt == "bfcl":
        return _BFCL.format(tools=_tool_json(tools))
    if fmt == "tool_call":
        return _TOOL_CALL.format(tools=_tool_blocks(tools))
    if fmt == "react":
        return _REACT.format(tools=_tool_json(tools))
    if fmt == "json":
        return _JSON.format(tools=_tool_json(tools))
    raise ValueError(f"unknown output format {fmt!r}; expected one of {', '.join(OUTPUT_FORMATS)}")


def sample_format(sample: Sample) -> OutputFormat:
    """The output format a sample's source expects: ``eval_config.output_format``, else Table 3's."""
    fmt = sample.eval_config.output_format
    for known in OUTPUT_FORMATS:
        if fmt == known:
            return known
    return DEFAULT_FORMATS.get(sample.eval_config.method, "json")


def render_messages(sample: Sample, mode: Literal["fc", "prompt"]) -> list[Message]:
    """Chat messages for a sample. ``fc``: the conversation as is (tools travel in ``tools=``).
    ``prompt``: our system prompt first (a system turn of the sample is appended to it, as upstream
    BFCL does), assistant tool calls written as text in the format, tool turns as user turns."""
    if mode == "fc":
        return list(sample.conversation)  # messages are never mutated in place: no copies
    fmt = sample_format(sample)
    system = render_system_prompt(sample.tools, fmt)
    out: list[Message] = []
    for m in sample.conversation:
        if m.role == "system":
            system = f"{system}\n\n{m.content}" if m.content else system
        elif m.role == "assistant" and m.tool_calls:
            text = render_calls(m.tool_calls, fmt)
            out.append(Message(role="assistant", content=f"{m.content}\n{text}" if m.content else text))
        elif m.role == "tool":
            out.append(Message(role="user", content=render_observation(fmt, m.name, m.content)))
        else:
            out.append(m)
    return [Message(role="system", content=system), *out]


def render_observation(fmt: OutputFormat, name: str | None, text: str) -> str:
    """A tool result as the prompt of ``fmt`` shows it to the model."""
    if fmt == "react":
        return f"Observation: {text}"
    if fmt == "tool_call":
        return f"<obs>{text}</obs>"
    return f"Result of {name or 'the tool'}: {text}"


def render_calls(calls: list[ToolCall], fmt: OutputFormat) -> str:
    """The canonical text of ``calls`` in ``fmt`` (what a well-behaved model writes)."""
    if fmt == "bfcl":
        return "[" + ", ".join(_py_call(c) for c in calls) + "]"
    if fmt == "tool_call":
        if not calls:
            return ""
        lines = [_dumps({"name": c.name, "parameters": c.arguments}) for c in calls]
        return "<tool_call>\n" + "\n".join(lines) + "\n</tool_call>"
    if fmt == "react":
        steps = [f"Action: {c.name}\nAction Input: {_dumps(c.arguments)}" for c in calls]
        return "\n".join(steps)
    if fmt == "json":
        objs: list[dict[str, Any]] = [{"name": c.name, "parameters": c.arguments} for c in calls]
        return _dumps(objs[0] if len(objs) == 1 else objs)
    raise ValueError(f"unknown output format {fmt!r}; expected one of {', '.join(OUTPUT_FORMATS)}")


def _py_call(call: ToolCall) -> str:
    return f"{call.name}(" + ", ".join(f"{k}={v!r}" for k, v in call.arguments.items()) + ")"
