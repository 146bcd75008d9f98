"""The literal reader: one Python literal expression (a list, a dict, a call with keyword
arguments...) read as :func:`robustcall.formats._pyvalues.literal` reads it, without ``ast`` (a
100 KB list costs ``ast.parse`` about 100 ms), in place and in growing chunks so that the work is
proportional to how far the reading gets."""

from __future__ import annotations

import bisect
import re
from typing import Any

from robustcall.formats._bounds import charge, span_memo
from robustcall.formats._pytokens import BARE, CONST, TOKENS, Bail, forget_names, plain_name, token_value
from robustcall.formats._pyvalues import BareName


def read_literal(text: str) -> tuple[Any] | None:
    """``(value,)`` when ``text`` is one Python literal expression that
    :func:`robustcall.formats._pyvalues.literal` reads as ``value``, read without ``ast`` (a 100 KB
    list costs ``ast.parse`` about 100 ms); ``None`` to fall back to ``literal`` (anything this
    reader is not sure of: tuples, sets, operators, prefixed or concatenated strings, positional
    call arguments, non-ASCII names...)."""
    return read_literal_at(text, 0, len(text))[0]


_FIRST_CHUNK = 16
"""Characters tokenized first by :func:`read_literal_at`; each retry reads four times as many."""


def read_literal_at(text: str, start: int, stop: int) -> tuple[tuple[Any] | None, int]:
    """:func:`read_literal` of ``text[start:stop]``, read in place, and where it failed: the index in
    ``text`` of the token the reading stopped at (``-1`` when it read the span, or declined it
    before reading). Work proportional to how far the reading gets, not to the span: the span is
    tokenized in growing chunks (a chunk's tokens are the span's, but for its last one) and read
    again from a larger chunk only when the reading ran into the end of one. Charges what it
    tokenizes (the parse's work account)."""
    # Bracketed, so that every line break is inside brackets (outside, Python ends the expression
    # there); no blank that Python does not take for one; no NUL, \r or lone surrogate (ast refuses
    # them or, for \r, ends a string there).
    if stop - start < 2 or text[start] not in "[{" or text[stop - 1] not in "]}" or _has_odd(text, start, stop):
        return None, -1
    chunk = _FIRST_CHUNK
    while True:
        end = min(stop, start + chunk)
        toks: list[str] = TOKENS.findall(text, start, end)
        charge(end - start, "literal")
        toks.append("")  # sentinel: never a valid token
        done: list[tuple[int, int, Any]] = []
        try:
            value, i = _literal(toks, 0, 0, done)
            if toks[i] == "":
                if end == stop:
                    return (value,), -1
                i = len(toks) - 1  # read to the chunk's end: read on
            else:
                return None, -1  # the value ends before the span does (read no further)
        except Bail as exc:
            i = exc.args[0] if exc.args else -1
        except IndexError:
            i = len(toks) - 1
        except (ValueError, SyntaxError, RecursionError):
            return None, -1
        if end < stop and (i < 0 or i >= len(toks) - 2):  # the chunk's last token may be cut short
            chunk *= 4
            if 2 * chunk >= stop - start:  # most of the span read already: read all of it next
                chunk = stop - start
            continue
        if i < 0:
            return None, -1
        return None, _failed_at(text, start, end, i, done)


def _failed_at(text: str, start: int, end: int, k: int, done: list[tuple[int, int, Any]]) -> int:
    """Where the ``k``-th token of ``text[start:end]`` starts (``end`` for the sentinel), the token a
    reading failed at; ``done`` holds the brackets the reading read whole before it (first and
    last token, value): each is kept as its own span's reading in the open parse's span memo
    (:func:`robustcall.formats._bounds.span_memo`), so the JSON reader, trying the spans inside
    a failed one next, does not read them again (a 99 KB list inside an object that fails at its
    last character: read once, not twice). Read alone, such a span gives that very value: the same
    tokens (it starts at a token), and no deeper nesting than it had inside."""
    memo = span_memo()
    wanted: dict[int, int] = {k: end}  # token index -> where it starts
    if memo is not None:
        for first, last, _ in done:
            wanted[first] = end
            wanted[last] = end
    for n, m in enumerate(TOKENS.finditer(text, start, end)):
        if n in wanted:
            wanted[n] = m.start()
        if n >= k:
            break
    if memo is not None:
        for first, last, value in done:
            span = (id(text), wanted[first], wanted[last] + 1)  # the last token is its closer
            if span not in memo:
                memo[span] = (text, ((value,), -1))
    return wanted[k]


class _OddTable:
    __slots__ = ("at", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self.at = [m.start() for m in _ODD_OR_SURROGATE.finditer(text)]


_ODD_OR_SURROGATE = re.compile(r"[^\S \t\f\n]|\x00|[\ud800-\udfff]")
"""What :func:`read_literal_at` declines anywhere in a span: blanks the token pattern skips but
Python's tokenizer does not (``\\v``, ``\\r``, U+2028...), NUL, and lone surrogates (no UTF-8 for
them: ``ast`` refuses the text)."""


_odd_last = _OddTable("")
_AST_MAX_BRACKETS = 200
"""CPython's tokenizer refuses deeper bracket nesting ("too many nested parentheses")."""


def forget_texts() -> None:
    """Drop what this module remembers of the texts it read (as ``_scan.forget_texts``)."""
    global _odd_last
    _odd_last = _OddTable("")
    forget_names()


def _has_odd(text: str, start: int, stop: int) -> bool:
    """Whether ``text[start:stop]`` has a character of :data:`_ODD_OR_SURROGATE`: found once per
    text (the one text remembered), then looked up per span."""
    global _odd_last
    table = _odd_last
    if table.text is not text:
        table = _OddTable(text)
        _odd_last = table
        charge(len(text), "scan")
    k = bisect.bisect_left(table.at, start)
    return k < len(table.at) and table.at[k] < stop


def _literal(toks: list[str], i: int, depth: int, done: list[tuple[int, int, Any]]) -> tuple[Any, int]:
    """The value whose first token is ``toks[i]``, as ``_pyvalues.value_of`` gives it, and the index
    after it. Calls with keyword arguments only are ``{name: {keyword: value}}``; ``f()`` is ``"f()"``.
    Each list and dict read whole is added to ``done`` as (first token, last token, value)."""
    t = toks[i]
    c = t[:1]
    if depth >= _AST_MAX_BRACKETS and (c == "[" or c == "{" or toks[i + 1] == "("):
        raise Bail(i)
    depth += 1
    first = i
    if c == "[":
        items: list[Any] = []
        i += 1
        if toks[i] == "]":
            return items, i + 1
        while True:
            t = toks[i]
            if _plain_int(t):  # the common item, read without a call (fifty thousand of them: 2x)
                items.append(int(t))
                i += 1
            else:
                v, i = _literal(toks, i, depth, done)
                items.append(v)
            i = _after_item(toks, i, "]")
            if i < 0:
                done.append((first, -i - 1, items))
                return items, -i
    if c == "{":
        d: dict[Any, Any] = {}
        i += 1
        if toks[i] == "}":
            return d, i + 1
        while True:
            if toks[i][:1] == "[" or toks[i][:1] == "{":
                raise Bail(i)  # an unhashable key: declined before it is read
            key: Any  # any hashable value (typed so for mypyc: a string token is only the common case)
            t = toks[i]
            if toks[i + 1] == ":" and _plain_string(t):  # the common key, read without a call
                key = t[1:-1]
                i += 1
            else:
                key, i = _literal(toks, i, depth, done)
                if isinstance(key, list | dict) or toks[i] != ":":
                    raise Bail(i)  # a call's value is a dict: unhashable too
            t = toks[i + 1]
            if _plain_int(t):  # as in a list
                d[key] = int(t)
                i += 2
            else:
                d[key], i = _literal(toks, i + 1, depth, done)
            i = _after_item(toks, i, "}")
            if i < 0:
                done.append((first, -i - 1, d))
                return d, -i
    if toks[i + 1] == "(":
        if not plain_name(t):
            raise Bail(i)
        i += 2
        if toks[i] == ")":
            return t + "()", i + 1  # ast.unparse of a call without arguments
        args: dict[str, Any] = {}
        while True:
            k = toks[i]
            if toks[i + 1] != "=" or "." in k or not plain_name(k) or k in args:
                raise Bail(i)  # positional, ** or a repeated keyword (a SyntaxError to Python)
            args[k], i = _literal(toks, i + 2, depth, done)
            i = _after_item(toks, i, ")")
            if i < 0:
                return {t: args}, -i
    if c.isalpha() or c == "_":
        if t in CONST:
            return CONST[t], i + 1
        if not plain_name(t):
            raise Bail(i)
        if "." in t:
            return t, i + 1  # ast.unparse of an attribute chain
        return (BareName(t) if t in BARE else t), i + 1
    try:
        return token_value(t, _no_token), i + 1  # a string or a number: token_value reads no further token
    except (Bail, ValueError, SyntaxError):
        raise Bail(i) from None


def _plain_int(t: str) -> bool:
    """An ASCII decimal integer token that :func:`token_value` reads as ``int(t)`` (no leading zero, and
    short enough for ``int``): the others take the general path."""
    return t.isdigit() and t.isascii() and (t[0] != "0" or len(t) == 1) and len(t) < 4_000


def _plain_string(t: str) -> bool:
    """A quoted string token without escapes, which :func:`token_value` reads as ``t[1:-1]``."""
    c = t[:1]
    return (c == '"' or c == "'") and len(t) >= 2 and t[-1] == c and "\\" not in t


def _no_token() -> str:
    return ""


def _after_item(toks: list[str], i: int, close: str) -> int:
    """Past the separator after an item at ``toks[i]``: the next item's index, or minus the index
    after ``close`` when the container ends there (a trailing comma allowed)."""
    q = toks[i]
    if q == close:
        return -(i + 1)
    if q != ",":
        raise Bail(i)
    if toks[i + 1] == close:
        return -(i + 2)
    return i + 1
