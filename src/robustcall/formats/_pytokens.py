"""What the fast readers of Python-shaped text share: the token pattern, the names Python reserves,
the reading of one value from tokens, and the signal to fall back to ``ast``.

The fast readers (:mod:`._flatreader`, :mod:`._callreader`, :mod:`._literalreader`) read the literal
subset of Python that model answers mostly use, in a few µs where ``ast.parse`` costs tens, and hand
everything else (nested calls, arithmetic, prefixed or implicitly concatenated strings, unusual
numbers...) back to the ``ast`` path: anything unexpected raises :class:`Bail` (or runs into the ``""``
sentinel after the last token). Values come out exactly as the ``ast`` path
(:mod:`robustcall.formats._pyvalues`) gives them.
"""

from __future__ import annotations

import ast
import keyword
import re
from collections.abc import Callable
from typing import Any

from robustcall.formats._pyvalues import BareName

KEYWORDS = frozenset(keyword.kwlist)
"""Names that are no Python name (``if``, ``True``...): a text using one as a name is no expression."""
TOKENS = re.compile(r"""'[^'\\\n]*+(?:\\.[^'\\\n]*+)*+'?+|"[^"\\\n]*+(?:\\.[^"\\\n]*+)*+"?+|[^\s'"\[\](){}:,=]++|\S""")
"""A string (an unclosed one, up to its line's end, is a token the readers refuse: matching it keeps
the scan linear), a run of other characters, or one punctuation character."""
NUMBER = re.compile(r"-?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?")
NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
CONST = {"True": True, "False": False, "None": None}
BARE = frozenset({"true", "false", "null"})
PUNCT = frozenset("[](){}:,=")

Next = Callable[[], str]


class Bail(Exception):
    """Fall back to ``ast`` (the literal reader's carries the index of the token it stopped at)."""


def token_value(t: str, nxt: Next) -> Any:
    c = t[:1]
    if c == "'" or c == '"':
        if len(t) < 2 or t[-1] != c:
            raise Bail
        if "\\" not in t:
            return t[1:-1]
        return ast.literal_eval(t)
    if c == "[":
        out: list[Any] = []
        t = nxt()
        if t == "]":
            return out
        while True:
            out.append(token_value(t, nxt))
            q = nxt()
            if q == "]":
                return out
            if q != ",":
                raise Bail
            t = nxt()
            if t == "]":
                return out
    if c == "{":
        d: dict[Any, Any] = {}
        t = nxt()
        if t == "}":
            return d
        while True:
            if t[:1] == "[" or t[:1] == "{":
                raise Bail  # an unhashable key: declined before it is read
            k = token_value(t, nxt)
            if nxt() != ":":
                raise Bail
            d[k] = token_value(nxt(), nxt)
            q = nxt()
            if q == "}":
                return d
            if q != ",":
                raise Bail
            t = nxt()
            if t == "}":
                return d
    if not c or c in PUNCT:
        raise Bail
    if c.isdigit() or c == "-" or c == ".":
        if NUMBER.fullmatch(t) is None:
            raise Bail
        if "." in t or "e" in t or "E" in t:
            return float(t)
        digits = t.lstrip("-")
        if len(digits) > 1 and digits[0] == "0" and digits.strip("0"):
            raise Bail  # 007 is a syntax error in Python
        return int(t)
    if t in CONST:
        return CONST[t]
    if "." in t or not t.isidentifier() or t in KEYWORDS or not t.isascii():  # ast: no name, or NFKC
        raise Bail
    if t in BARE:  # decided by the parameter's schema once the call is known (resolve_bare)
        return BareName(t)
    return t


def plain_name(t: str) -> bool:
    """An ASCII name or dotted name with no keyword in it (``ast`` folds non-ASCII names to NFKC)."""
    known = _plain_names.get(t)
    if known is not None:
        return known
    plain = NAME.fullmatch(t) is not None and not any(part in KEYWORDS for part in t.split("."))
    if len(_plain_names) >= _PLAIN_NAMES_KEPT:
        _plain_names.clear()
    _plain_names[t] = plain
    return plain


_plain_names: dict[str, bool] = {}
""":func:`plain_name`'s answers (a list of ten thousand calls names the same few again and again)."""
_PLAIN_NAMES_KEPT = 4_096


def forget_names() -> None:
    """Drop :func:`plain_name`'s remembered answers."""
    _plain_names.clear()
