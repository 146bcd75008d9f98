"""Explicit dispatch of a parsed call onto a BFCL API instance, after validating it against the docs.

Never evaluates text: the call arrives as a name and a dict of already-parsed values. The name must
be one of the task's function docs (so no private method, no builtin, nothing the task withholds);
every argument must be a documented parameter of a documented type, every required one present.
Only then is the bound method looked up with ``getattr`` and called with keyword arguments. Results
are turned into text the way BFCL's executor does (``str`` as is, ``dict`` as ``json.dumps``, anything
else ``str``), and failures read ``Error during execution: ...`` as in BFCL, so BFCL's response check
compares like with like.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from robustcall.core import ToolCall, ToolSpec

_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "float": (int, float),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list, tuple),
    "tuple": (list, tuple),
    "dict": (dict,),
    "object": (dict,),
}


class DispatchError(ValueError):
    """The call does not match the function docs; nothing was executed."""


def _check_type(fn: str, arg: str, value: Any, schema: dict[str, Any]) -> None:
    kind = schema.get("type")
    if not isinstance(kind, str) or kind == "any" or kind not in _TYPES:
        return
    ok = isinstance(value, _TYPES[kind]) and not (kind in ("integer", "float", "number") and isinstance(value, bool))
    if not ok:
        raise DispatchError(f"{fn}: argument {arg!r} must be of type {kind}, got {type(value).__name__}")
    if kind == "array" and isinstance(schema.get("items"), dict):
        for item in value:
            _check_type(fn, arg, item, schema["items"])


def validate(call: ToolCall, docs: dict[str, ToolSpec]) -> None:
    """Raise :class:`DispatchError` unless ``call`` names a documented function with valid arguments."""
    spec = docs.get(call.name)
    if spec is None:
        raise DispatchError(f"no function named {call.name!r} in this task's APIs")
    props = spec.properties()
    unknown = sorted(set(call.arguments) - set(props))
    if unknown:
        raise DispatchError(f"{call.name}: unexpected argument(s) {', '.join(unknown)}")
    missing = [r for r in spec.required() if r not in call.arguments]
    if missing:
        raise DispatchError(f"{call.name}: missing required argument(s) {', '.join(missing)}")
    for arg, value in call.arguments.items():
        schema = props[arg]
        _check_type(call.name, arg, value, schema if isinstance(schema, dict) else {})


def result_text(value: Any) -> str:
    """BFCL's rendering of an execution result."""
    if type(value) is str:
        return value
    if type(value) is dict:
        try:
            return json.dumps(value)
        except (TypeError, ValueError):
            return str(value)
    return str(value)


def dispatch(call: ToolCall, docs: dict[str, ToolSpec], owners: dict[str, Any]) -> tuple[str, bool]:
    """Run ``call`` on the instance that owns it; ``(observation, error)``.

    ``docs``: function name -> spec (the functions the agent is offered); ``owners``: function name ->
    the API instance whose method it is.
    """
    try:
        validate(call, docs)
    except DispatchError as exc:
        return f"Error during execution: {exc}", True
    method = getattr(owners[call.name], call.name)
    try:
        value = method(**copy.deepcopy(call.arguments))  # the API may keep and mutate what it is given
    except Exception as exc:
        return f"Error during execution: {exc}", True
    text = result_text(value)
    return text, isinstance(value, dict) and "error" in value
