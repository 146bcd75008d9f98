"""Bounds on what the parser reads: model text is hostile input (docs/scoring.md, "Bounds").

A text longer than :data:`MAX_PARSE_CHARS` characters, or with brackets nested deeper than
:data:`MAX_NESTING` levels, is not parsed: it yields no calls and a reason, and the record is a
model-format error (scored: a wrong answer), never an infrastructure error. The same depth bound
applies to structured (fc-mode) call arguments.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Callable
from typing import Any, TypeVar

# the longest model text parsed for calls, defined with the record schema (a record keeps that much
# of a longer text); every reader is linear, PARSE_WORK_FACTOR bounds how often they re-read a text
from robustcall.core import MAX_PARSE_CHARS as MAX_PARSE_CHARS

T = TypeVar("T")

MAX_NESTING = 100
"""Deepest bracket nesting parsed, in text and in structured arguments (BFCL's deepest golden answer
nests 4 levels; pydantic refuses to serialise past 255, which would stop the record writer)."""
MAX_BRACKETS = 10_000
"""Most brackets (``()[]{}``, in strings too) in a parsed text: ten times what an answer of Table 15's
1,024 output tokens could hold in a call, so no valid answer comes near. Every reader that tries
spans pays per bracket (the bracket scans about 0.3 µs each compiled, up to eight scans a text, and
the JSON reader a step per opener it skips): 50,000 brackets after a fragment of another format
took 50-105 ms; at most 10,000 keep any text within a fifth of that."""
MAX_INT_DIGITS = 4_300
"""Python's own limit on int <-> str conversion; longer integer literals are unreadable."""

MAX_CALLS = 1_000
"""Most calls read from one answer (BFCL's largest golden answer has a handful; any answer with more
than this is wrong against every golden answer, so the bound changes no score). Past it the answer
is unreadable: building and checking ten thousand calls costs more than the rest of the parse."""

MAX_SPANS_TRIED = 2_000
"""Most bracketed spans the JSON reader tries to decode in one text (each that decodes is stepped
over whole, so an answer of a thousand JSON calls tries about a thousand). Past it the answer is
unreadable: ``("[x " * 99 + "]" * 99) * 250`` (99 KB) has 24,750 spans that each fail for a reason
of their own, about 10 µs apiece compiled."""

READ_ERRORS: tuple[type[BaseException], ...] = (ValueError, OverflowError, RecursionError, MemoryError, TypeError)
"""What reading model text may raise (a 5,000-digit integer is a ValueError, ``10**400 / 1`` an
OverflowError): caught at the parser's entry and turned into an unreadable answer."""

PARSE_WORK_FACTOR = 16
"""Parsing one text may hand its readers (``ast.parse``, the JSON decoder, the token scans) at most
this many times the text's length in characters, plus :data:`PARSE_WORK_FLOOR`; past that the text
is unreadable. A count, not a clock, so the same text always gets the same verdict. With every
pattern linear, what is left to bound is how often the readers re-read the text: each variant of
the dispatch may parse it once, and nested spans (a list in a call in a list...) once per level, up
to :data:`MAX_NESTING` levels, which was 100 parses of the whole text. A text of another format that
nothing reads takes about 5 (``x [g(y z ...)]``: the BFCL list, its embedded list, the JSON reader's
literal, the bare call); the BFCL corpus answers, in every output style, at most 2."""
PARSE_WORK_FLOOR = 100_000
"""Work any text may take whatever its length (a short text may be tried by every reader)."""
JSON_WORK_DIVISOR = 16
"""A character the JSON decoder reads counts this much less than one ``ast.parse`` reads (it is
about 50 times faster)."""

READERS: dict[str, float] = {
    "ast": 1.0,
    "literal": 1.0,
    "tokens": 1.0,
    "colons": 1.0,
    "json": 1.0 / JSON_WORK_DIVISOR,
    "scan": 1.0 / JSON_WORK_DIVISOR,
    "tags": 1.0 / JSON_WORK_DIVISOR,
}
"""Every reader that charges the one work account of a parse (:func:`charge`), and what one
character it reads costs there: ``ast.parse``, the literal reader (:func:`robustcall.formats._literalreader.
read_literal`), the BFCL token reader, the colon rewrite, the JSON decoder, the bracket scan of
:func:`robustcall.formats._scan.balanced` and the tag reader's search for a closing tag (a regex pass,
like the scan, far cheaper than a Python-level token walk). Each reader charges what it reads,
every time it reads it; ``tests/formats/test_work_account.py`` meters each one independently and
fails when one reads more than it charges."""


class ParseWorkExceeded(Exception):
    """Raised by :func:`charge` once a parse has used up its work (:data:`PARSE_WORK_FACTOR`);
    caught at the parser's entry. Not a ``ValueError``: the readers' own handlers let it through."""


AST_BUDGET = 30_000
"""Characters one parse may hand ``ast.parse``, in all. Past it a span is taken for no expression
(as a syntax error would be): ``ast.parse`` costs up to about 1 µs a character on dense code here
(12,000 calls in 99 KB: 108 ms), so this keeps a parse within about 50 ms of CPU whatever the text.
Short spans count too: a hundred nested calls of a few hundred characters each, repeated along a
text, handed ``ast`` a hundred times the text (issue 34). The fast readers (the flat and token BFCL
readers, the literal reader, the JSON decoder) read long texts without ``ast``; answers are about
4 KB (Table 15: 1,024 output tokens), far below the bound. A span ``ast`` fails on counts twice
(:func:`ast_failed`): Python's parser then runs again for its error message, 1.4 µs a character on
nested calls against 0.5 for a success, so failures get half the budget (a hundred nested failing
calls took 32 ms, now at most about 20)."""
_MEMO = 2
"""Recent readings kept per reader within one parse (:func:`recall`)."""


GC_PAUSE_CHARS = 10_000
"""A parse of a text this long runs with Python's cyclic garbage collector paused: the readers
allocate no cycles, and a collection triggered by the ten thousand objects a long hostile answer
yields walks the whole heap (a 12,000-call list took 44-56 ms with collections, 26 ms without)."""


class _Account:
    __slots__ = ("ast_left", "gc_paused", "left", "recent", "spans", "spent", "views")

    def __init__(self, chars: int) -> None:
        self.left = float(PARSE_WORK_FACTOR * chars + PARSE_WORK_FLOOR)
        self.ast_left = AST_BUDGET
        self.recent: dict[str, list[tuple[str, Any]]] = {}
        self.spent: dict[str, float] = {}  # characters read, per reader (what the tests meter)
        self.spans: dict[tuple[int, int, int], tuple[str, Any]] = {}  # see span_memo
        self.views: dict[int, tuple[str, str, int]] = {}  # see note_slice
        self.gc_paused = chars >= GC_PAUSE_CHARS and gc.isenabled()  # else paused by the caller, or short
        if self.gc_paused:
            gc.disable()


_work = threading.local()


def start_work(chars: int) -> _Account | None:
    """Open the work account of a parse of a ``chars``-long text on this thread; returns the
    account it replaces (for :func:`end_work`)."""
    outer: _Account | None = getattr(_work, "account", None)
    _work.account = _work.last = _Account(chars)
    return outer


def last_spent() -> dict[str, float]:
    """Characters each reader charged in the last parse opened on this thread (for the tests)."""
    account: _Account | None = getattr(_work, "last", None)
    return dict(account.spent) if account is not None else {}


def end_work(outer: _Account | None) -> None:
    account: _Account | None = getattr(_work, "account", None)
    if account is not None and account.gc_paused:
        gc.enable()
    _work.account = outer


def recall(reader: str, text: str, read: Callable[[str], T]) -> T:
    """``read(text)``, or, when the open parse had ``reader`` read this very text lately, what it
    gave then (no work done again, none counted again). The dispatch's variants, and a code fence's
    block beside the text around it, hand the same span to the same reader again; a reading is only
    looked at, never changed, until one is returned as the parse's calls."""
    account: _Account | None = getattr(_work, "account", None)
    if account is None:
        return read(text)
    recent = account.recent.setdefault(reader, [])
    for seen, result in recent:
        if seen == text:
            got: T = result
            return got
    value = read(text)
    recent.insert(0, (text, value))
    del recent[_MEMO:]
    return value


def span_memo() -> dict[tuple[int, int, int], tuple[str, Any]] | None:
    """The open parse's readings of spans read in place, keyed by ``(id(text), start, stop)``, each
    with its text (kept alive, and checked with ``is``, so that an id is never another text's);
    ``None`` outside a parse. The dispatch's variants hand the JSON reader the same text (a tag's
    body read in place, then the whole text): a span's literal reading is done once."""
    account: _Account | None = getattr(_work, "account", None)
    return account.spans if account is not None else None


def note_slice(part: str, text: str, offset: int) -> None:
    """Say that ``part`` is ``text[offset : offset + len(part)]`` (a tag's body, copied out), so that
    the open parse reads its spans in place in ``text`` (:func:`in_place`): the JSON variant reads
    the same spans of the whole text again, and a span's literal reading is then done once."""
    account: _Account | None = getattr(_work, "account", None)
    if account is not None and part is not text:
        base, off = in_place(text)
        account.views[id(part)] = (part, base, offset + off)


def in_place(part: str) -> tuple[str, int]:
    """``(text, offset)``: the text ``part`` was noted a slice of (:func:`note_slice`) and where it
    starts there; ``(part, 0)`` for any other string."""
    account: _Account | None = getattr(_work, "account", None)
    if account is None or not account.views:
        return part, 0
    view = account.views.get(id(part))
    if view is None or view[0] is not part:  # an id is only ever the noted string's while it lives
        return part, 0
    return view[1], view[2]


def ast_allowed(chars: int) -> bool:
    """Whether the open parse may hand ``ast.parse`` a ``chars``-long span (:data:`AST_BUDGET`);
    counts it when it may. Outside a parse there is no bound."""
    account: _Account | None = getattr(_work, "account", None)
    if account is None:
        return True
    if chars > account.ast_left:
        return False
    account.ast_left -= chars
    return True


def ast_failed(chars: int) -> None:
    """Count a ``chars``-long span ``ast.parse`` failed on once more (:data:`AST_BUDGET`)."""
    account: _Account | None = getattr(_work, "account", None)
    if account is not None:
        account.ast_left -= chars


def ast_may(chars: int) -> bool:
    """Whether :func:`ast_allowed` would allow ``chars`` now (nothing counted): lets a caller skip
    copying out a span that ``ast`` would not be handed."""
    account: _Account | None = getattr(_work, "account", None)
    return account is None or chars <= account.ast_left


def charge(chars: float, reader: str) -> None:
    """Count ``chars`` characters read by ``reader`` (one of :data:`READERS`, at its weight) against
    this thread's open parse, if any (a reader called outside a parse is not bounded here); raises
    :class:`ParseWorkExceeded` when none is left."""
    account: _Account | None = getattr(_work, "account", None)
    if account is None:
        return
    account.spent[reader] = account.spent.get(reader, 0.0) + chars
    account.left -= chars * READERS[reader]
    if account.left < 0:
        raise ParseWorkExceeded(
            f"unreadable: the answer needs more parsing than {PARSE_WORK_FACTOR} passes over it allow"
        )


def check_spans_tried(n: int) -> None:
    """Raise :class:`ParseWorkExceeded` when the JSON reader has tried ``n`` > :data:`MAX_SPANS_TRIED`
    spans in an open parse (outside one, as :func:`charge`, nothing is bounded)."""
    if n > MAX_SPANS_TRIED and getattr(_work, "account", None) is not None:
        raise ParseWorkExceeded(
            f"unreadable: the answer has more than {MAX_SPANS_TRIED:,} bracketed spans to try as JSON;"
            f" the parser tries at most {MAX_SPANS_TRIED:,}"
        )


def check_call_count(n: int) -> None:
    """Raise :class:`ParseWorkExceeded` when a reader has ``n`` > :data:`MAX_CALLS` calls."""
    if n > MAX_CALLS:
        raise ParseWorkExceeded(
            f"unreadable: the answer has more than {MAX_CALLS:,} calls; the parser reads at most {MAX_CALLS:,}"
        )


def value_depth(value: Any, limit: int = MAX_NESTING) -> int:
    """Nesting depth of a JSON-like value (lists and dicts), counted without recursion; stops
    counting once past ``limit``."""
    best = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        v, d = stack.pop()
        if isinstance(v, dict):
            v = list(v.values())
        if isinstance(v, list | tuple):
            d += 1
            if d > best:
                best = d
                if best > limit:
                    return best
            stack.extend((x, d) for x in v)
    return best


def calls_refusal(arguments: list[dict[str, Any]]) -> str | None:
    """Why structured call arguments are not taken (nested too deeply), or ``None``."""
    for args in arguments:
        depth = value_depth(args)
        if depth > MAX_NESTING:
            return f"unreadable: tool-call arguments nested more than {MAX_NESTING} levels deep"
    return None
