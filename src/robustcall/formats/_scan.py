"""Text scanning helpers: balanced spans, code fences, JSON values embedded in prose."""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Container
from typing import Any

from robustcall.formats._bounds import JSON_WORK_DIVISOR, charge, recall
from robustcall.formats._fastpy import read_literal
from robustcall.formats._pyvalues import literal

_CLOSE = {"(": ")", "[": "]", "{": "}"}
_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_+-]*)[ \t]*\n?(.*?)(?:```|\Z)", re.S)
_THINK_OPEN = re.compile(r"<think>", re.I)
_THINK_CLOSE = re.compile(r"</think>", re.I)
_DECODER = json.JSONDecoder()
_DECODE_DIRECT = 512
"""In a text of at most this many characters, JSON is decoded without the balanced-span check (a
failed decode from every opener of a longer text is quadratic: ``"[[[[...``, 4 KB, took 0.5 s)."""


def balanced(text: str, start: int) -> int | None:
    """End (exclusive) of the bracketed span opening at ``text[start]``, skipping string literals.

    Linear over all the calls on one text: the first call scans the text once from ``start`` and
    records the end of every bracket it passes (a scan from any of them would run the same way),
    so that the callers that try every opener in turn (``[f([f([f(...``) stay linear instead of
    rescanning to the end from each one. At most :data:`_MAX_PASSES` such scans are made per text
    (a start inside what earlier scans read as a string needs its own); past that a span is said
    to be unbalanced.
    """
    if text[start : start + 1] not in _CLOSE:
        return None
    table = _table(text)
    for ends in table.passes:
        got = ends.get(start)
        if got is not None:
            return got if got > 0 else None
    if len(table.passes) >= _MAX_PASSES:
        return None
    ends = _scan_from(text, start, table.strings if not table.passes else None)
    table.passes.append(ends)
    got = ends[start]
    return got if got > 0 else None


_MAX_PASSES = 8


class _Table:
    __slots__ = ("closing", "passes", "strings", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self.passes: list[dict[int, int]] = []
        self.closing: list[int] | None = None  # the first pass's openers whose span closes, ascending
        self.strings: list[int] = []  # where the first pass's strings start, ascending


def next_opener_that_may_close(text: str, j: int) -> int:
    """Where to look for the next opener after ``j``, an opener whose span does not close, such that
    every opener skipped does not close either (as :func:`balanced` says): when one scan has been
    made, the next opener that scan saw close, or the next string it stepped over (openers inside it
    need their own scan), whichever comes first; else ``j + 1``. Lets the callers that try every
    opener skip a run of ten thousand unclosed ones in one step."""
    table = _table(text)
    if len(table.passes) != 1 or table.passes[0].get(j) != -1:
        return j + 1
    if table.closing is None:
        table.closing = sorted(k for k, end in table.passes[0].items() if end > 0)
    nxt = len(text)
    for starts in (table.closing, table.strings):  # the first after j of each, found without a copy
        k = bisect.bisect_right(starts, j)
        if k < len(starts) and starts[k] < nxt:
            nxt = starts[k]
    return nxt


_last: _Table = _Table("")


def _table(text: str) -> _Table:
    """The bracket table of ``text`` (one text remembered: the callers work on one text at a time)."""
    global _last
    table = _last
    if table.text is not text:
        if table.text != text:
            table = _Table(text)
            _last = table
        else:  # the same text in another string object: keep this one, so the next check is `is`
            table.text = text
    return table


_SPANS = re.compile(r"""["](?:[^"\\\n]|\\[\s\S])*+["]?+|['](?:[^'\\\n]|\\[\s\S])*+[']?+|[()\[\]{}]""")
"""What a scan sees: a string (from its quote to its closing quote, or up to the newline that ends
it unclosed, an apostrophe in prose, or to the end of the text; a backslash escapes whatever
follows it) or a bracket. Everything else is stepped over by the regex engine."""


def _scan_from(text: str, start: int, strings: list[int] | None = None) -> dict[int, int]:
    """Scanning from ``start``: every opener reached outside a string -> the end of its span, or
    ``-1`` where a scan from it returns ``None`` (a mismatched closer or the end of the text).
    Where each string it steps over starts is appended to ``strings``, when given."""
    ends: dict[int, int] = {}
    stack: list[int] = []
    want: list[str] = []
    for m in _SPANS.finditer(text, start):
        i = m.start()
        c = text[i]
        if c == '"' or c == "'":
            if strings is not None:
                strings.append(i)
            continue
        if c in _CLOSE:
            stack.append(i)
            want.append(_CLOSE[c])
        elif stack:  # a closer
            if c != want[-1]:  # every open span fails here
                for j in stack:
                    ends[j] = -1
                stack.clear()
                want.clear()
            else:
                ends[stack.pop()] = i + 1
                want.pop()
    for j in stack:
        ends[j] = -1
    return ends


def fenced_blocks(text: str) -> list[str]:
    """Contents of Markdown code fences (```lang ... ```), an unclosed last fence included."""
    if "```" not in text:
        return []
    return [m.group(2) for m in _FENCE.finditer(text)]


def only_fence(text: str) -> str | None:
    """The contents of the one code fence ``text`` is, blanks around it aside (closed or not);
    ``None`` when it is anything else. Reading such a text besides its contents reads nothing more."""
    s = text.strip()
    if not s.startswith("```"):
        return None
    m = _FENCE.match(s)
    return m.group(2) if m is not None and m.end() == len(s) else None


def strip_think(text: str) -> str:
    """Text without ``<think>…</think>`` reasoning blocks (which often quote example calls)."""
    if "<think>" not in text and "<THINK>" not in text:
        return text
    # as _THINK.sub("", text), in linear time: the regex rescans to the end from every unclosed <think>
    parts: list[str] = []
    pos = 0
    while True:
        m = _THINK_OPEN.search(text, pos)
        if m is None:
            break
        close = _THINK_CLOSE.search(text, m.end())
        if close is None:  # no block closes after this one: neither can any later one
            break
        parts.append(text[pos : m.start()])
        pos = close.end()
    if not parts:
        return text
    parts.append(text[pos:])
    return "".join(parts)


def decode_object(text: str, start: int) -> tuple[Any, int] | None:
    """A JSON (or, failing that, Python-literal) value starting at ``text[start]`` and its end."""
    # A JSON value is a balanced span: on a long text, spans that never close are not decoded (a
    # failed decode from every opener of "[1,[1,[1,..." is quadratic). Short texts decode at once.
    stop = balanced(text, start) if len(text) > _DECODE_DIRECT else -1
    if stop is None:
        return None
    try:
        value, end = _DECODER.raw_decode(text, start)
        charge((end - start) / JSON_WORK_DIVISOR)
        return value, end
    except json.JSONDecodeError as exc:
        charge((exc.pos - start) / JSON_WORK_DIVISOR)
    except RecursionError:  # about a thousand levels read
        charge((len(text) - start) / JSON_WORK_DIVISOR)
    if stop == -1:
        stop = balanced(text, start)
        if stop is None:
            return None
    ok, value = python_literal(text[start:stop])
    if not ok:
        return None
    return value, stop


def json_values(text: str, skip: Container[int] = (), start: int = 0) -> list[Any]:
    """Top-level JSON objects / arrays embedded in ``text``, left to right; a value that starts at
    an index in ``skip`` is stepped over (not returned, and nothing inside it either). With
    ``start``, those of ``text[start:]``, read in place (a scan only ever reads forward, so each
    bracket's span is the same in the suffix and in the whole text)."""
    out: list[Any] = []
    i = start
    long = len(text) - start > _DECODE_DIRECT
    while True:
        m = _OPEN.search(text, i)
        if m is None:
            break
        j = m.start()
        if long and balanced(text, j) is None:  # the common failure, without decode_object's call
            i = next_opener_that_may_close(text, j)
            continue
        got = decode_object(text, j)
        if got is None:
            i = j + 1
            continue
        value, end = got
        if j not in skip:
            out.append(value)
        i = end
    return out


_OPEN = re.compile(r"[\[{]")


def loads_lenient(text: str) -> tuple[bool, Any]:
    """``text`` as JSON, else as a Python literal; ``(False, None)`` when it is neither."""
    s = text.strip()
    charge(len(s) / JSON_WORK_DIVISOR)
    try:
        return True, json.loads(s)
    except (json.JSONDecodeError, RecursionError):
        pass
    return python_literal(s)


def python_literal(text: str) -> tuple[bool, Any]:
    """:func:`robustcall.formats._pyvalues.literal`, read by the fast token reader when it can."""
    fast = recall("literal", text, read_literal)
    if fast is None:
        return literal(text)
    charge(len(text))  # what literal's parse counts: the same work verdict either way
    return True, fast[0]
