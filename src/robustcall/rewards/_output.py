"""Outputs as text: the JSON we write for a call sequence, and the tolerant reader back to calls.

A benchmark output is text, so that a reward model sees what a generator wrote. Calls that parsed are
written in one canonical shape (``[{"name": ..., "arguments": {...}}]``) whatever format the generator
used, so that a scorer cannot tell chosen from rejected by surface format; text that did not parse is
kept verbatim (that is what an ``Incorrect output format`` record is).
"""

from __future__ import annotations

import json
import re
from typing import Any

from robustcall.core import ToolCall, ToolSpec
from robustcall.formats import parse_tool_calls

_FENCE = re.compile(r"^\s*```[a-zA-Z]*\s*\n(.*?)\n?```\s*$", re.DOTALL)


def calls_text(calls: list[ToolCall]) -> str:
    """The canonical output text of ``calls``: a JSON list of ``{"name", "arguments"}``."""
    return json.dumps([{"name": c.name, "arguments": c.arguments} for c in calls], ensure_ascii=False)


def _call_of(obj: Any) -> ToolCall | None:
    if not isinstance(obj, dict):
        return None
    if isinstance(obj.get("name"), str):
        args = obj.get("arguments", obj.get("parameters", {}))
        if isinstance(args, str):
            try:
                args = json.loads(args)
            except json.JSONDecodeError:
                return None
        return ToolCall(name=obj["name"], arguments=args) if isinstance(args, dict) else None
    if len(obj) == 1:  # Listing 1 / Figure 3 shape: {"fname": {args}}
        ((name, args),) = obj.items()
        return ToolCall(name=str(name), arguments=args) if isinstance(args, dict) else None
    return None


def _json_calls(text: str) -> list[ToolCall] | None:
    m = _FENCE.match(text)
    body = m.group(1) if m else text
    try:
        data = json.loads(body)
    except json.JSONDecodeError:
        return None
    items = data if isinstance(data, list) else [data]
    calls = [_call_of(x) for x in items]
    return None if any(c is None for c in calls) else [c for c in calls if c is not None]


def output_calls(text: str, tools: list[ToolSpec] | None = None) -> list[ToolCall] | None:
    """The calls in an output text, or ``None`` when it holds no readable call sequence.

    JSON first (our shape, OpenAI's ``parameters`` spelling, Listing 1's ``{name: args}``, fenced or
    not), then every prompt-format variant of :func:`robustcall.formats.parse_tool_calls` (BFCL's
    ``[f(a=1)]``, ``<tool_call>``, ReAct). ``[]`` (an explicit empty list) is an empty sequence.
    Nothing is executed.
    """
    calls = _json_calls(text.strip())
    if calls is not None:
        return calls
    parsed = parse_tool_calls(text, "bfcl", tools)
    if parsed.calls:
        return parsed.calls
    return [] if parsed.variant is not None else None


def normalise_output(text: str, tools: list[ToolSpec] | None = None) -> str:
    """``calls_text`` of what ``text`` holds when it parses, else ``text`` unchanged."""
    calls = output_calls(text, tools)
    return text if calls is None else calls_text(calls)
