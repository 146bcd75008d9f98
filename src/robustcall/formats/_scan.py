"""Text scanning helpers: balanced spans, code fences, JSON values embedded in prose."""

from __future__ import annotations

import json
import re
from typing import Any

from robustcall.formats._pyvalues import literal

_CLOSE = {"(": ")", "[": "]", "{": "}"}
_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_+-]*)[ \t]*\n?(.*?)(?:```|\Z)", re.S)
_THINK = re.compile(r"<think>.*?</think>", re.S | re.I)
_DECODER = json.JSONDecoder()


def balanced(text: str, start: int) -> int | None:
    """End (exclusive) of the bracketed span opening at ``text[start]``, skipping string literals."""
    opener = text[start]
    if opener not in _CLOSE:
        return None
    stack = [_CLOSE[opener]]
    i, n = start + 1, len(text)
    while i < n:
        c = text[i]
        if c == '"' or c == "'":
            i = _skip_string(text, i)
            continue
        if c in _CLOSE:
            stack.append(_CLOSE[c])
        elif c in ")]}":
            if c != stack[-1]:
                return None
            stack.pop()
            if not stack:
                return i + 1
        i += 1
    return None


def _skip_string(text: str, i: int) -> int:
    q = text[i]
    i += 1
    n = len(text)
    while i < n:
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == q:
            return i + 1
        if c == "\n":  # an apostrophe in prose, not a string: resume after it
            return i
        i += 1
    return n


def fenced_blocks(text: str) -> list[str]:
    """Contents of Markdown code fences (```lang ... ```), an unclosed last fence included."""
    if "```" not in text:
        return []
    return [m.group(2) for m in _FENCE.finditer(text)]


def strip_think(text: str) -> str:
    """Text without ``<think>…</think>`` reasoning blocks (which often quote example calls)."""
    if "<think>" not in text and "<THINK>" not in text:
        return text
    return _THINK.sub("", text)


def decode_object(text: str, start: int) -> tuple[Any, int] | None:
    """A JSON (or, failing that, Python-literal) value starting at ``text[start]`` and its end."""
    try:
        value, end = _DECODER.raw_decode(text, start)
        return value, end
    except (json.JSONDecodeError, RecursionError):
        pass
    stop = balanced(text, start)
    if stop is None:
        return None
    ok, value = literal(text[start:stop])
    if not ok:
        return None
    return value, stop


def json_values(text: str) -> list[Any]:
    """Top-level JSON objects / arrays embedded in ``text``, left to right."""
    out: list[Any] = []
    i, n = 0, len(text)
    while i < n:
        j = _next_open(text, i)
        if j < 0:
            break
        got = decode_object(text, j)
        if got is None:
            i = j + 1
            continue
        value, end = got
        out.append(value)
        i = end
    return out


def _next_open(text: str, i: int) -> int:
    a, b = text.find("{", i), text.find("[", i)
    if a < 0:
        return b
    if b < 0:
        return a
    return min(a, b)


def loads_lenient(text: str) -> tuple[bool, Any]:
    """``text`` as JSON, else as a Python literal; ``(False, None)`` when it is neither."""
    s = text.strip()
    try:
        return True, json.loads(s)
    except (json.JSONDecodeError, RecursionError):
        pass
    return literal(s)
