"""A fast path for the canonical renderings of the tagged, JSON-blob and ReAct styles.

``render_calls`` (and a well-behaved model) writes calls in one exact shape per style::

    <tool_call>\\n{"name": "f", "parameters": {...}}\\n{...}\\n</tool_call>
    {"name": "f", "parameters": {...}}          or a JSON list of such objects
    Action: f\\nAction Input: {...}\\nAction: g\\nAction Input: {...}

Such a text is read here with one JSON decode per call, at the positions and with the decoder the
general readers use (``json.JSONDecoder().raw_decode``'s scanner), without the variant dispatch. Anything
else returns ``None`` and goes through the tolerant readers (:mod:`robustcall.formats._parse`): a
text that is not exactly the shape, an object with other keys than ``name`` and ``parameters``, a
decode error, and any text that a variant tried before the style's own in ``fmt``'s dispatch might
read differently (a fence, ``<think>``, a tag inside a JSON blob, an embedded BFCL list under
``fmt="bfcl"``). Where it answers, it gives the calls and variant name ``parse_tool_calls`` gives
(tests/formats/test_canonical.py checks that on generated texts and on every BFCL answer).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

_decode: Callable[[str, int], tuple[Any, int]] = getattr(json.JSONDecoder(), "scan_once")  # noqa: B009
"""``JSONDecoder().raw_decode`` without its Python frame: the scanner it calls (``StopIteration``
where no JSON value starts)."""
_TAG = re.compile(r"</?(?:tool_call|toolcall|tool|function_call)\b", re.I)
"""A tag ``tag_calls`` reads (``_tags._OPEN``) or a closing one."""
_EMBEDDED_LIST = re.compile(r"\[\s*[A-Za-z_][\w.]*\s*[(=]")
"""A BFCL list ``bfcl_calls`` looks for inside any text (``_bfcl._EMBEDDED_LIST``)."""
_REACT_NAME = re.compile(r"[\w.\-]+")
"""A tool name in a canonical ReAct step: no blank, bracket, quote, ``*`` or ``:``."""
_TAG_HEAD = "<tool_call>\n"
_TAG_TAIL = "\n</tool_call>"
_ACTION = "Action: "
_INPUT = "\nAction Input: {"

Calls = list[tuple[str, dict[str, Any]]]


def canonical_calls(text: str, fmt: str) -> tuple[Calls, str] | None:
    """``(calls, variant)`` of a canonical rendering as ``fmt``'s dispatch reads it, else ``None``.

    Never raises. The caller applies the parse bounds (``refusal``, the nesting check) as for any
    text."""
    c = text[:1]
    try:
        if c == "<":
            if fmt == "bfcl" or fmt == "tool_call":
                calls = _tagged(text)
                return None if calls is None else (calls, "tool_call")
        elif c == "{" or (c == "[" and text[1:2] == "{"):
            if fmt == "bfcl" or fmt == "json" or fmt == "tool_call":
                calls = _blob(text)
                return None if calls is None or _unsafe(text, 0, len(text)) else (calls, "json")
        elif c == "A":
            calls = _react(text)
            return None if calls is None or _unsafe(text, 0, len(text)) else (calls, "react")
    except (ValueError, RecursionError, StopIteration):  # json.JSONDecodeError is a ValueError
        pass
    return None


def _unsafe(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` has what sends a text to the general readers: a fence or
    ``<think>`` (looked into first), a tag, or a BFCL list that ``bfcl_calls`` would read first."""
    if "```" in text:
        return True
    # outside [start, end) is the tagged shape's own tags, without <think> or another tag
    if text.find("<", start, end) >= 0 and (
        _TAG.search(text, start, end) is not None or "<think>" in text or "<THINK>" in text
    ):
        return True
    return _EMBEDDED_LIST.search(text, start, end) is not None


def _call(value: Any) -> tuple[str, dict[str, Any]] | None:
    """``{"name": str, "parameters": {...}}`` and nothing else, as ``calls_from_value`` reads it."""
    if type(value) is not dict or len(value) != 2:
        return None
    name = value.get("name")
    params = value.get("parameters")
    if type(name) is not str or type(params) is not dict:
        return None
    name = name.strip()
    return (name, params) if name else None


def _tagged(text: str) -> Calls | None:
    """One ``<tool_call>`` block of JSON lines; no other tag or closing tag inside."""
    if not text.startswith(_TAG_HEAD) or not text.endswith(_TAG_TAIL):
        return None
    last = len(text) - len(_TAG_TAIL)  # the newline before the closing tag
    if _unsafe(text, 1, last):  # after the opening tag, before the closing one
        return None
    out: Calls = []
    pos = len(_TAG_HEAD)
    while True:
        if text[pos : pos + 1] != "{":
            return None
        value, end = _decode(text, pos)
        call = _call(value)
        if call is None or end > last:
            return None
        out.append(call)
        if end == last:
            return out
        if text[end] != "\n":
            return None
        pos = end + 1


def _blob(text: str) -> Calls | None:
    """One JSON object, or a non-empty JSON list of them, and nothing else."""
    value, end = _decode(text, 0)
    if end != len(text):
        return None
    if type(value) is dict:
        call = _call(value)
        return None if call is None else [call]
    if type(value) is not list or not value:
        return None
    out: Calls = []
    for item in value:
        call = _call(item)
        if call is None:
            return None
        out.append(call)
    return out


def _react(text: str) -> Calls | None:
    """``Action: name`` / ``Action Input: {json}`` steps, one line each."""
    out: Calls = []
    pos, n = 0, len(text)
    while True:
        if not text.startswith(_ACTION, pos):
            return None
        eol = text.find(_INPUT, pos)
        if eol < 0:
            return None
        name = text[pos + len(_ACTION) : eol]
        if _REACT_NAME.fullmatch(name) is None:
            return None
        value, end = _decode(text, eol + len(_INPUT) - 1)
        if type(value) is not dict:
            return None
        out.append((name, value))
        if end == n:
            return out
        if text[end] != "\n":
            return None
        pos = end + 1
