"""Text scanning helpers: balanced spans, code fences, JSON values embedded in prose."""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Container
from typing import Any

from robustcall.formats._bounds import (
    MAX_BRACKETS,
    MAX_NESTING,
    MAX_PARSE_CHARS,
    ast_may,
    charge,
    check_spans_tried,
    in_place,
    recall,
    span_memo,
)
from robustcall.formats._literalreader import read_literal, read_literal_at
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
    depths: dict[int, int] = {}
    strings: list[int] = []
    charge(len(text) - start, "scan")
    ends = _scan_from(text, start, strings, depths)
    table.passes.append(ends)
    table.depths.append(depths)
    table.strings.append(strings)
    table.closing.append(None)
    got = ends[start]
    return got if got > 0 else None


def span_of(text: str, start: int) -> tuple[int, int, int] | None:
    """``(end, depth, scan)`` of the balanced span opening at ``text[start]``: its end as
    :func:`balanced` gives it, how deep brackets nest in it (``[[1], 2]``: 2), and which of the
    text's scans read it (``0``: the first, which read every bracket after its start outside
    strings); ``None`` when it does not close."""
    end = balanced(text, start)
    if end is None:
        return None
    for k, ends in enumerate(_table(text).passes):
        if ends.get(start, 0) > 0:
            return end, _table(text).depths[k][start], k
    return None  # not reached: balanced found it in a scan


_MAX_PASSES = 8


class _Table:
    __slots__ = ("closing", "depths", "final", "passes", "strings", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self.passes: list[dict[int, int]] = []
        self.depths: list[dict[int, int]] = []  # per scan: each closed span's nesting depth
        self.closing: list[list[int] | None] = []  # per scan, when asked: its openers closing within the depth
        self.strings: list[list[int]] = []  # per scan: where the strings it stepped over start, ascending
        self.final: list[int] | None = None  # once every scan is made: see _final_closing


def next_opener_to_decode(text: str, j: int) -> int:
    """Where to look for the next opener after ``j``, an opener whose span does not close or nests
    deeper than :data:`MAX_NESTING` levels, such that every opener skipped is one of those too (as
    :func:`span_of` says): when a scan reached ``j``, the next opener that scan saw close within the
    depth, or the next string it stepped over (openers inside it need their own scan), whichever
    comes first (two scans that both reach an opener outside a string read everything after it
    alike, so they agree on it); when all :data:`_MAX_PASSES` scans are made and none reached
    ``j`` (a quote hid it), the next opener any scan saw close within the depth; else ``j + 1``.
    Lets :func:`json_values` skip a run of ten thousand such openers in one step."""
    table = _table(text)
    k = next((n for n, ends in enumerate(table.passes) if j in ends), -1)  # the scan that reached j
    if k < 0:
        if len(table.passes) < _MAX_PASSES:
            return j + 1
        if table.final is None:  # no scan is made any more: the table is final
            table.final = _final_closing(table)
        at = bisect.bisect_right(table.final, j)
        return table.final[at] if at < len(table.final) else len(text)
    closing = table.closing[k]
    if closing is None:
        depths = table.depths[k]
        closing = sorted(o for o, end in table.passes[k].items() if end > 0 and depths[o] <= MAX_NESTING)
        table.closing[k] = closing
    nxt = len(text)
    for starts in (closing, table.strings[k]):  # the first after j of each, found without a copy
        at = bisect.bisect_right(starts, j)
        if at < len(starts) and starts[at] < nxt:
            nxt = starts[at]
    return nxt


def _final_closing(table: _Table) -> list[int]:
    """Once the text's scans are all made, the openers :func:`span_of` finds closing within
    :data:`MAX_NESTING` levels (each decided by the first scan that reached it, as there), ascending:
    every other opener is one that :func:`json_values` skips."""
    decided: set[int] = set()
    out: list[int] = []
    for ends, depths in zip(table.passes, table.depths, strict=True):
        for k, end in ends.items():
            if k in decided:
                continue
            decided.add(k)
            if end > 0 and depths[k] <= MAX_NESTING:
                out.append(k)
    out.sort()
    return out


_last: _Table = _Table("")
_before: _Table = _Table("")


def forget_texts() -> None:
    """Drop the remembered bracket tables, so that the next parse of a text scans it anew (for
    benchmarks that time a parse as a new answer would cost: a text parsed again finds its scans)."""
    global _last, _before
    _last = _Table("")
    _before = _Table("")


def _table(text: str) -> _Table:
    """The bracket table of ``text`` (two texts remembered: the callers work on one text at a time,
    or on a tag's body and the text around it, in turn)."""
    global _last, _before
    table = _last
    if table.text is not text:
        if table.text == text:  # the same text in another string object: keep this one, so the next check is `is`
            table.text = text
            return table
        table = _before
        if table.text is not text and table.text != text:
            table = _Table(text)
        table.text = text
        _before = _last
        _last = table
    return table


_SPANS = re.compile(r"""["](?:[^"\\\n]|\\[\s\S])*+["]?+|['](?:[^'\\\n]|\\[\s\S])*+[']?+|[()\[\]{}]++""")
"""What a scan sees: a string (from its quote to its closing quote, or up to the newline that ends
it unclosed, an apostrophe in prose, or to the end of the text; a backslash escapes whatever
follows it) or a run of brackets (one match for ten thousand of them, each then read in turn).
Everything else is stepped over by the regex engine."""


def _scan_from(
    text: str, start: int, strings: list[int] | None = None, depths: dict[int, int] | None = None
) -> dict[int, int]:
    """Scanning from ``start``: every opener reached outside a string -> the end of its span, or
    ``-1`` where a scan from it returns ``None`` (a mismatched closer or the end of the text).
    Where each string it steps over starts is appended to ``strings``, and each closed span's
    nesting depth is put in ``depths``, when given."""
    ends: dict[int, int] = {}
    stack: list[int] = []
    want: list[str] = []
    inner: list[int] = []  # per open span: the deepest span closed inside it so far
    for m in _SPANS.finditer(text, start):
        i = m.start()
        c = text[i]
        if c == '"' or c == "'":
            if strings is not None:
                strings.append(i)
            continue
        for k in range(i, m.end()):  # a run of brackets, one at a time
            c = text[k]
            if c in _CLOSE:
                stack.append(k)
                want.append(_CLOSE[c])
                inner.append(0)
            elif stack:  # a closer
                if c != want[-1]:  # every open span fails here
                    for j in stack:
                        ends[j] = -1
                    stack.clear()
                    want.clear()
                    inner.clear()
                else:
                    j = stack.pop()
                    ends[j] = k + 1
                    want.pop()
                    d = inner.pop() + 1
                    if depths is not None:
                        depths[j] = d
                    if inner and inner[-1] < d:
                        inner[-1] = d
    for j in stack:
        ends[j] = -1
    return ends


def refusal(text: str) -> str | None:
    """Why ``text`` is not parsed (too long, nested too deeply), or ``None`` when it is read."""
    if len(text) > MAX_PARSE_CHARS:
        return f"unreadable: the answer is {len(text):,} characters; the parser reads at most {MAX_PARSE_CHARS:,}"
    openers = text.count("(") + text.count("[") + text.count("{")
    if openers <= MAX_NESTING:
        return None  # cannot nest deeper than it has openers (the common case: no scan)
    brackets = _brackets(text, openers)
    if brackets > MAX_BRACKETS:
        return f"unreadable: the answer has {brackets:,} brackets; the parser reads at most {MAX_BRACKETS:,}"
    depth = text_depth(text)
    if depth > MAX_NESTING:
        return f"unreadable: brackets nested {depth} levels deep; the parser reads at most {MAX_NESTING}"
    return None


def too_many_brackets(text: str) -> bool:
    """Whether :func:`refusal` refuses ``text`` for its brackets (:data:`MAX_BRACKETS`)."""
    if len(text) <= MAX_BRACKETS:
        return False
    openers = text.count("(") + text.count("[") + text.count("{")
    return openers > MAX_NESTING and _brackets(text, openers) > MAX_BRACKETS


def _brackets(text: str, openers: int) -> int:
    """All of ``text``'s brackets, given how many openers it has."""
    return openers + text.count(")") + text.count("]") + text.count("}")


_NOT_BRACKET = re.compile(r"""["](?:[^"\\\n]|\\[\s\S])*+["]?+|['](?:[^'\\\n]|\\[\s\S])*+[']?+|[^()\[\]{}"']++""")
"""What :func:`text_depth` steps over: the strings :data:`_SPANS` reads, and runs of anything but a
bracket or a quote."""


def text_depth(text: str) -> int:
    """Deepest bracket nesting of ``text`` outside quoted strings (a string ends at its quote or at
    the end of its line, as :func:`balanced` reads them; a closer below depth 0 is ignored). The
    regex engine drops the strings and everything but brackets; the loop sees brackets only."""
    depth = best = 0
    for c in _NOT_BRACKET.sub("", text):
        if c == "(" or c == "[" or c == "{":
            depth += 1
            if depth > best:
                best = depth
        elif depth:
            depth -= 1
    return best


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
    got = _json_at(text, start)
    if got[0] is not None:
        return got[0]
    if stop == -1:
        stop = balanced(text, start)
        if stop is None:
            return None
    return _literal_at(text, start, stop)[0]


def _json_at(text: str, start: int) -> tuple[tuple[Any, int] | None, int]:
    """The JSON value at ``text[start]`` and its end, or ``None`` and where the decoder failed
    (``-1``: not known)."""
    try:
        value, end = _DECODER.raw_decode(text, start)
        charge(end - start, "json")
        return (value, end), -1
    except json.JSONDecodeError as exc:
        charge(exc.pos - start, "json")
        return None, exc.pos
    except RecursionError:  # about a thousand levels read
        charge(len(text) - start, "json")
        return None, -1


def _literal_at(text: str, start: int, stop: int) -> tuple[tuple[Any, int] | None, int]:
    """The Python literal ``text[start:stop]`` is and ``stop`` (:func:`python_literal`, read in
    place by the literal reader), or ``None`` and where the literal reader failed (``-1``: not
    known, or read by ``ast``)."""
    memo = span_memo()
    # a noted slice (a tag's body) is read in place in its text: the same reading, since a span's
    # reading depends on its characters only, and the JSON variant's reading of the text finds it
    base, off = in_place(text)
    key = (id(base), start + off, stop + off)
    seen = memo.get(key) if memo is not None else None
    if seen is not None and seen[0] is base:
        fast, at = seen[1]
    else:
        fast, at = read_literal_at(base, start + off, stop + off)
        if memo is not None:
            memo[key] = (base, (fast, at))
    if at >= 0:
        at -= off
    if fast is not None:
        return (fast[0], stop), -1
    if not ast_may(stop - start):  # the ast budget is spent: no copy for it
        return None, at
    ok, value = literal(text[start:stop])
    return ((value, stop) if ok else None), at


class _Failures:
    """Where decoding failed, per decoder, in one :func:`json_values` call: lets it skip the decoder
    for every later span the failed reading was inside of (the literal reader's, not ``ast``'s,
    which reads more than it: ``{{}}`` is a set; ``ast`` is bounded by its budget instead).

    Both the JSON decoder and the literal reader read a value left to right without going back, the
    same way whatever encloses it (within :data:`MAX_NESTING` levels: the literal reader's own
    limit is twice that). A reading from opener ``j`` that failed at ``p`` read every opener between
    them as a value; those whose span encloses ``p`` were being read when it failed, and a reading
    from one of them fails at ``p`` again. The first scan of the text (:func:`span_of`) reads the
    brackets between ``j`` and ``p`` as both decoders did (its strings are theirs there, or a
    decoder would have failed at one), so both ``j`` and the later opener must come from it. With
    that, each opener of ``'{{{{...}}}}`` (or of a text whose values fail far inside) is read
    once in all, not once per opener that encloses it."""

    __slots__ = ("json", "literal")

    def __init__(self) -> None:
        self.json: list[int] = []
        self.literal: list[int] = []

    @staticmethod
    def add(points: list[int], p: int) -> None:
        if p >= 0:
            bisect.insort(points, p)

    @staticmethod
    def inside(points: list[int], start: int, end: int) -> bool:
        """Whether a failure point lies inside the span ``[start, end)`` (after its opener)."""
        k = bisect.bisect_right(points, start)
        return k < len(points) and points[k] < end


def _decode_span(text: str, j: int, end: int, fails: _Failures | None) -> tuple[Any, int] | None:
    """:func:`decode_object` of the span ``[j, end)`` of a long text, skipping what ``fails`` says
    fails again (``None``: the span is not from the text's first scan, so nothing is skipped or
    recorded)."""
    if _JSON_START.match(text, j) is None:  # fails at its first value: no decoder's error to build
        pass
    elif fails is None or not _Failures.inside(fails.json, j, end):
        # decoded from a copy of the span: a failure's JSONDecodeError counts the lines before it
        # from the start of what it was handed (every opener of a long text: quadratic). Within
        # the span, the decoder's strings are the scan's, so it ends (or fails) there either way.
        got, at = _json_at(text[j:end], 0)
        if got is not None:
            return got[0], j + got[1]
        if fails is not None and at >= 0:
            _Failures.add(fails.json, j + at)
    if fails is not None and _Failures.inside(fails.literal, j, end):  # ast may read what it declines
        if not ast_may(end - j):
            return None
        ok, value = literal(text[j:end])
        return (value, end) if ok else None
    got, at = _literal_at(text, j, end)
    if got is None and fails is not None:
        _Failures.add(fails.literal, at)
    return got


_JSON_START = re.compile(r"""\{\s*+["}]|\[\s*+[\]\[{"\-0-9tfnNI]""")
"""How a JSON object or array that the decoder may read begins (its first key, or first value, or
its end; blanks as ``\\s``, a superset of JSON's): an opener without it fails at once."""


def json_values(text: str, skip: Container[int] = (), start: int = 0) -> list[Any]:
    """Top-level JSON objects / arrays embedded in ``text``, left to right; a value that starts at
    an index in ``skip`` is stepped over (not returned, and nothing inside it either). With
    ``start``, those of ``text[start:]``, read in place (a scan only ever reads forward, so each
    bracket's span is the same in the suffix and in the whole text).

    In a text longer than :data:`_DECODE_DIRECT`, a span nested deeper than :data:`MAX_NESTING`
    levels is not decoded (the spans inside it are: the text's own depth bound, which a quote
    before the brackets hides from the text's scan, holds for values too), and a decoder is not
    run where it is known to fail again (:class:`_Failures`): linear in the text. Past
    :data:`~robustcall.formats._bounds.MAX_SPANS_TRIED` spans tried, the answer is unreadable."""
    out: list[Any] = []
    i = start
    if len(text) - start <= _DECODE_DIRECT:
        while True:
            m = _OPEN.search(text, i)
            if m is None:
                return out
            j = m.start()
            got = decode_object(text, j)
            if got is None:
                i = j + 1
                continue
            if j not in skip:
                out.append(got[0])
            i = got[1]
    fails = _Failures()
    tried = 0
    while True:
        m = _OPEN.search(text, i)
        if m is None:
            return out
        j = m.start()
        span = span_of(text, j)
        if span is None or span[1] > MAX_NESTING:  # the common failure, without a decoder's call
            i = next_opener_to_decode(text, j)
            continue
        end, _, scan = span
        tried += 1
        check_spans_tried(tried)
        got = _decode_span(text, j, end, fails if scan == 0 else None)
        if got is None:
            i = j + 1
            continue
        if j not in skip:
            out.append(got[0])
        i = got[1]


_OPEN = re.compile(r"[\[{]")


def loads_lenient(text: str) -> tuple[bool, Any]:
    """``text`` as JSON, else as a Python literal; ``(False, None)`` when it is neither."""
    s = text.strip()
    charge(len(s), "json")
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
    return True, fast[0]
