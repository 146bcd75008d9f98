"""JSON blobs: ``{"name": X, "parameters": {...}}`` with the Appendix I name / parameter aliases,
OpenAI-style ``{"function": {"name", "arguments": "<json string>"}}``, lists and ``tool_calls``
wrappers of those."""

from __future__ import annotations

from typing import Any

from robustcall.formats._bounds import check_call_count
from robustcall.formats._react import action_inputs
from robustcall.formats._scan import json_values, loads_lenient
from robustcall.formats._types import Ctx, RawCall

NAME_KEYS = ("name", "function", "tool", "func_name", "tool_name", "action")
"""Keys that may hold the tool name, in the order they are looked up."""
PARAM_KEYS = ("parameters", "arguments", "params", "args", "action_input")
"""Keys that may hold the arguments, in the order they are looked up."""
_META_KEYS = frozenset({"type", "id", "thought", "reasoning", "index", "call_id"})


def json_calls(text: str, ctx: Ctx) -> list[RawCall]:
    """Calls of every JSON blob in the text. The ``Action Input`` of a ReAct step is that step's
    arguments, not a blob: ``Action: f`` / ``Action Input: {"function": "x**2"}`` is a call of ``f``
    (read by ``react_calls``), not of ``x**2``."""
    out: list[RawCall] = []
    for value in json_values(text, action_inputs(text)):
        out.extend(calls_from_value(value, ctx))
        check_call_count(len(out))
    return out


def calls_from_value(value: Any, ctx: Ctx) -> list[RawCall]:
    """Calls a decoded JSON value describes (a call object, a list of them, a wrapper)."""
    if isinstance(value, list):
        out: list[RawCall] = []
        for item in value:
            if isinstance(item, list | dict):  # a scalar describes no call
                out.extend(calls_from_value(item, ctx))
                check_call_count(len(out))
        return out
    if not isinstance(value, dict):
        return []
    if isinstance(value.get("tool_calls"), list):
        return calls_from_value(value["tool_calls"], ctx)
    fn = value.get("function")
    if isinstance(fn, dict) and isinstance(fn.get("name"), str):  # OpenAI tool-call shape
        return [RawCall(fn["name"], arguments_of(fn, fn["name"], ctx, rest=False))]
    for key in NAME_KEYS:
        name = value.get(key)
        if isinstance(name, str) and name.strip():
            return [RawCall(name.strip(), arguments_of(value, name.strip(), ctx, rest=True, name_key=key))]
    if len(value) == 1 and ctx.tools:  # BFCL's decoded shape {name: {param: value}}
        ((name, args),) = value.items()
        if name in ctx.tools and isinstance(args, dict):
            return [RawCall(str(name), {str(k): v for k, v in args.items()})]
    return []


def arguments_of(obj: dict[str, Any], name: str, ctx: Ctx, *, rest: bool, name_key: str = "name") -> dict[str, Any]:
    """The arguments of a call object: the first parameter alias present (a dict, or a string holding
    JSON); with ``rest``, when no alias is present, the object's other keys."""
    for key in PARAM_KEYS:
        if key not in obj:
            continue
        raw = obj[key]
        if isinstance(raw, str):
            ok, raw = loads_lenient(raw) if raw.strip() else (True, {})
            if not ok:
                ctx.drop(f"{name}: {key} is a string that is not JSON: {obj[key]!r:.80}")
                return {}
        if raw is None:
            return {}
        if not isinstance(raw, dict):
            ctx.drop(f"{name}: {key} is not an object: {raw!r:.80}")
            return {}
        return {str(k): v for k, v in raw.items()}
    if not rest:
        return {}
    return {str(k): v for k, v in obj.items() if k != name_key and k not in _META_KEYS}
