"""``<tool_call>{json}</tool_call>`` and its Appendix I variants: several blocks, several JSON lines
or a JSON list in one block, ``<tool>X</tool>\\n{json}``, ``<tool name="X" parameters={...}/>``,
``<toolcall tool="X">{json}</toolcall>``, ``<tool_call tool_name="X">{json}</tool_call>``."""

from __future__ import annotations

import re
from typing import Any

from robustcall.formats._bfcl import bfcl_calls
from robustcall.formats._bounds import charge, note_slice
from robustcall.formats._jsonblob import NAME_KEYS, PARAM_KEYS, arguments_of, calls_from_value
from robustcall.formats._scan import balanced, decode_object, json_values, loads_lenient
from robustcall.formats._types import Ctx, RawCall

_OPEN = re.compile(r"<(tool_call|toolcall|tool|function_call)\b", re.I)
_ATTR = re.compile(r"\s*([A-Za-z_][\w\-]*)\s*=\s*")
_ATTR_NAME_KEYS = (*NAME_KEYS, "func")


def tag_calls(text: str, ctx: Ctx) -> list[RawCall]:
    """Calls of every tool-call tag in the text."""
    out: list[RawCall] = []
    pos = 0
    closes: dict[str, Any] = {}  # tag -> the first closing tag at or after the last search (None: none)
    ahead: re.Match[str] | None = None  # the next tag found while reading a body, searched once
    while True:
        m = ahead if ahead is not None and ahead.start() == pos else _OPEN.search(text, pos)
        ahead = None
        charge((m.end() if m is not None else len(text)) - pos, "tags")
        if m is None:
            return out
        tag = m.group(1).lower()
        attrs, after, self_closing = _attributes(text, m.end())
        if after is None:
            pos = m.end()
            continue
        suffix: int | None = None  # where the body starts, when it is the rest of the text
        if self_closing:
            body, pos = "", after
        else:
            key = m.group(1).lower()
            cm = closes.get(key, False)
            if cm is not None and (cm is False or cm.start() < after):  # else: still the first one after
                cm = re.compile(rf"</{re.escape(key)}\s*>", re.I).search(text, after)
                charge((cm.end() if cm is not None else len(text)) - after, "tags")
                closes[key] = cm  # None: no closing tag anywhere further on, for later tags either
            nxt = ahead = _OPEN.search(text, after)
            charge((nxt.end() if nxt is not None else len(text)) - after, "tags")
            stop = cm.start() if cm else len(text)
            if nxt is not None and nxt.start() < stop:
                stop = nxt.start()
            body = text[after:stop]
            note_slice(body, text, after)  # its spans are read in place in the text (the JSON variant's)
            pos = cm.end() if cm is not None and cm.start() == stop else stop
            suffix = after if stop == len(text) else None
        if not attrs and not body.strip():
            continue  # a bare tag without a body describes no call (nine thousand of them: 37 ms)
        if tag == "tool" and not attrs and body.strip()[0] not in "{[":
            name = body.strip().strip("`'\"")
            args: dict[str, Any] = {}
            start = pos
            while start < len(text) and text[start].isspace():
                start += 1
            if text.startswith("{", start):  # decoded in place: a copy of the rest per tag is quadratic
                got = decode_object(text, start)
                if got is not None and isinstance(got[0], dict):
                    args = _args_from_body(got[0], name)
                    pos = got[1]
            out.append(RawCall(name, args))
            continue
        # an unclosed last tag's body is the rest of the text: its JSON values are read in place,
        # where the JSON reader's scan of the whole text finds them again (a copy is scanned anew)
        out.extend(_calls_of_block(attrs, body, ctx, text, suffix))


def _calls_of_block(
    attrs: dict[str, Any], body: str, ctx: Ctx, text: str = "", suffix: int | None = None
) -> list[RawCall]:
    name = next((str(attrs[k]) for k in _ATTR_NAME_KEYS if isinstance(attrs.get(k), str)), None)
    if name is not None:
        if any(k in attrs for k in PARAM_KEYS):
            return [RawCall(name, arguments_of(attrs, name, ctx, rest=False))]
        s = body.strip()
        if not s:
            return [RawCall(name, {})]
        ok, value = loads_lenient(s)
        if not ok:
            values = json_values(text, start=suffix) if suffix is not None else json_values(s)
            ok, value = (True, values[0]) if values else (False, None)
        if ok and isinstance(value, dict):
            return [RawCall(name, _args_from_body(value, name))]
        ctx.drop(f"{name}: tag body is not a JSON object: {s[:80]!r}")
        return [RawCall(name, {})]
    calls: list[RawCall] = []
    for value in json_values(text, start=suffix) if suffix is not None else json_values(body):
        calls.extend(calls_from_value(value, ctx))
    if not calls and body.strip():
        calls, _ = bfcl_calls(body, ctx)
    return calls


def _args_from_body(value: dict[str, Any], name: str) -> dict[str, Any]:
    for key in PARAM_KEYS:
        if isinstance(value.get(key), dict):
            return {str(k): v for k, v in value[key].items()}
    return {str(k): v for k, v in value.items() if k not in NAME_KEYS}


def _attributes(text: str, i: int) -> tuple[dict[str, Any], int | None, bool]:
    """Attributes after a tag name; returns (attrs, index after the tag, self-closing)."""
    attrs: dict[str, Any] = {}
    n = len(text)
    while i < n:
        while i < n and text[i].isspace():
            i += 1
        if text.startswith("/>", i):
            return attrs, i + 2, True
        if text.startswith(">", i):
            return attrs, i + 1, False
        m = _ATTR.match(text, i)
        if m is None:
            return attrs, None, False
        key, i = m.group(1).lower(), m.end()
        if i >= n:
            return attrs, None, False
        c = text[i]
        if c in "\"'":
            end = text.find(c, i + 1)
            if end < 0:
                return attrs, None, False
            raw = text[i + 1 : end]
            i = end + 1
            value: Any = raw
            if raw.strip()[:1] in ("{", "["):
                ok, parsed = loads_lenient(raw)
                value = parsed if ok else raw
            attrs[key] = value
        elif c in "{[":
            end2 = balanced(text, i)
            if end2 is None:
                return attrs, None, False
            ok, parsed = loads_lenient(text[i:end2])
            attrs[key] = parsed if ok else text[i:end2]
            i = end2
        else:
            m2 = re.compile(r"[^\s>/]+").match(text, i)
            if m2 is None:
                return attrs, None, False
            attrs[key] = m2.group(0)
            i = m2.end()
    return attrs, None, False
