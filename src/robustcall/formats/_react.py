"""ReAct (``Action: X`` / ``Action Input: {json}``, ``ActionCode: alias``) and the ToolAlpaca ad-hoc
forms (``func_name: {json}``, ``Function: X`` / ``Parameters: Y``, ``fn?p1=v1&p2=v2``)."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qsl

from robustcall.formats._scan import decode_object, loads_lenient
from robustcall.formats._types import Ctx, RawCall

MAX_QUERY_FIELDS = 1_000
"""Most ``p=v`` fields read from one ``fn?p1=v1&p2=v2`` call; past it ``parse_qsl`` raises a
``ValueError`` and the answer is unreadable (as past any bound): 25,000 fields took 33 ms."""

_ACTION = re.compile(r"^[ \t]*(?:\*\*)?(Action|ActionCode|Action Code)(?:\*\*)?[ \t]*:(.*)", re.M)
_INPUT = re.compile(r"^[ \t]*(?:\*\*)?Action[ _]?Input(?:\*\*)?[ \t]*:[ \t]*", re.M)
_FUNCTION = re.compile(r"^[ \t]*Function[ \t]*:([^\n]++)\n[ \t]*Parameters[ \t]*:[ \t]*", re.M)
r"""(Neither pattern strips the blanks around the name: a lazy name before ``[ \t]*$`` is quadratic
in a line of blanks; the code strips them.)"""
_NAME_COLON = re.compile(r"^[ \t]*`?([A-Za-z_][\w.\-]*)`?[ \t]*:[ \t]*(?=[{])", re.M)
_QUERY = re.compile(r"(?<![\w/.:?&=%-])([A-Za-z_][\w.]*)\?([\w.\-%+]+=[^&\s'\"`]*(?:&[\w.\-%+]+=[^&\s'\"`]*)*)")
_SCAFFOLD = frozenset(
    {
        "thought", "action", "action input", "action_input", "actioninput", "observation", "parameters",
        "function", "answer", "final answer", "response", "output", "input", "arguments", "args",
        "params", "result", "json", "example", "note", "tool_call", "tool",
    }
)  # fmt: skip


def react_calls(text: str, ctx: Ctx) -> tuple[list[RawCall], str]:
    """Every ``Action:`` step with its ``Action Input`` (``{}`` when there is none)."""
    out: list[RawCall] = []
    code = False
    for name, label, rest, stop in _steps(text):
        code = code or label != "Action"
        args: dict[str, Any] = {}
        if rest >= 0:
            args = _input_args(text[rest:stop], name, ctx)
        out.append(RawCall(name, args))
    return out, ("react_actioncode" if code else "react") if out else ""


def action_inputs(text: str) -> set[int]:
    """Where the value of each ``Action Input`` that :func:`react_calls` reads starts (its ``{`` or
    ``[``): that value is a step's arguments, never a JSON blob of its own (``json_calls`` skips it)."""
    if "Action" not in text:
        return set()
    starts: set[int] = set()
    for _, _, rest, stop in _steps(text):
        j = rest
        while 0 <= j < stop and text[j].isspace():
            j += 1
        if 0 <= j < stop and text[j] in "{[":
            starts.add(j)
    return starts


def _steps(text: str) -> list[tuple[str, str, int, int]]:
    """Each ``Action:`` step with a name: (name, label, where its Action Input's value begins or
    ``-1`` when it has none, where the step ends)."""
    actions = list(_ACTION.finditer(text))
    out: list[tuple[str, str, int, int]] = []
    for k, m in enumerate(actions):
        name = m.group(2).strip().strip("`'\"*").strip()
        if not name:
            continue
        stop = actions[k + 1].start() if k + 1 < len(actions) else len(text)
        im = _INPUT.search(text, m.end(), stop)
        out.append((name, m.group(1), im.end() if im is not None else -1, stop))
    return out


def _input_args(rest: str, name: str, ctx: Ctx) -> dict[str, Any]:
    s = rest.lstrip()
    if not s:
        return {}
    if s[0] in "{[":
        got = decode_object(s, 0)
        value: Any = got[0] if got is not None else None
        ok = got is not None
    else:
        line = s.split("\n", 1)[0].strip().strip("`")
        ok, value = loads_lenient(line)
        if ok and isinstance(value, str):
            ok, value = loads_lenient(value)
        if not ok and "=" in line and "&" in line:
            return _query_fields(line, keep_blank=True)
    if ok and isinstance(value, dict):
        return {str(k): v for k, v in value.items()}
    if ok and value in (None, "", [], "None", "none", "null"):
        return {}
    ctx.drop(f"{name}: Action Input is not a JSON object: {s[:80]!r}")
    return {}


def adhoc_calls(text: str, ctx: Ctx) -> tuple[list[RawCall], str]:
    """The ToolAlpaca ad-hoc forms, tried in turn."""
    out: list[RawCall] = []
    for m in _FUNCTION.finditer(text):
        name = m.group(1).strip(" \t").strip("`'\" ")
        rest = text[m.end() :]
        if rest[:1] in ("{", "["):
            got = decode_object(rest, 0)
            args = got[0] if got is not None and isinstance(got[0], dict) else None
        else:
            line = rest.split("\n", 1)[0].strip()
            ok, val = loads_lenient(line)
            args = val if ok and isinstance(val, dict) else _query_fields(line) if "=" in line else None
        if args is None:
            ctx.drop(f"{name}: Parameters not read: {rest[:80]!r}")
            args = {}
        out.append(RawCall(name, {str(k): v for k, v in args.items()}))
    if out:
        return out, "adhoc_function_parameters"
    for m in _NAME_COLON.finditer(text):
        name = m.group(1)
        if name.lower() in _SCAFFOLD:
            continue
        got = decode_object(text, m.end())
        if got is not None and isinstance(got[0], dict):
            out.append(RawCall(name, {str(k): v for k, v in got[0].items()}))
    if out:
        return out, "adhoc_name_json"
    for m in _QUERY.finditer(text):
        out.append(RawCall(m.group(1), dict(parse_qsl(m.group(2), keep_blank_values=True))))
    return out, "adhoc_query_string" if out else ""


def _query_fields(line: str, *, keep_blank: bool = False) -> dict[str, str]:
    """``p1=v1&p2=v2`` as a dict, at most :data:`MAX_QUERY_FIELDS` fields (past them ``ValueError``)."""
    return dict(parse_qsl(line, keep_blank_values=keep_blank, max_num_fields=MAX_QUERY_FIELDS))
