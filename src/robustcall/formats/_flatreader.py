"""The flat reader: the commonest shape of BFCL output, ``[f(a=1, b='x'), g.h(c=[1.0, 2])]``.

Keyword arguments whose values are plain strings, decimal numbers, ``True``/``False``/``None``, bare
names or one-level lists of them (about three BFCL answers in four) are recognised by one compiled
regex and their ``(call | key = value)`` units pulled out by a second, so that Python runs once per
argument rather than once per token; compiled, a hand scanner of the same grammar reads ASCII text in
one pass. Any other text gives ``None`` (the token reader, :mod:`._callreader`, goes on from there).
"""

from __future__ import annotations

import re
from typing import Any

from robustcall.formats._bounds import charge
from robustcall.formats._pytokens import BARE, CONST, KEYWORDS

_NOT_KEYWORD = r"(?!(?:" + "|".join(sorted(KEYWORDS)) + r")(?![A-Za-z0-9_]))"
"""Before a name in the flat patterns: it is not a keyword (``ast`` refuses ``f(if=1)``, ``f(a=if)``)."""
_NAME_RE = _NOT_KEYWORD + r"[A-Za-z_][A-Za-z0-9_]*+"
_DOTTED_RE = _NAME_RE + r"(?:\." + _NAME_RE + r")*+"
_FLAT_SCALAR = (
    r"""'[^'\\\n]*+'|"[^"\\\n]*+"|-?(?:0|[1-9][0-9]*+)(?:\.[0-9]++)?(?:[eE][+-]?[0-9]++)?|"""
    + r"""(?!(?:true|false|null)(?![A-Za-z0-9_]))(?:True|False|None|"""
    + _NAME_RE
    + r""")(?![A-Za-z0-9_])"""
)
"""A flat scalar: a plain string, a decimal number, or a name other than bare ``true`` / ``false`` /
``null`` (those are decided by the parameter's schema, on the ``ast`` path: ``_pyvalues.resolve_bare``)."""
_FLAT_ITEM = r"(?:" + _FLAT_SCALAR + r")\s*+"
_FLAT_VALUE = _FLAT_SCALAR + r"|\[\s*+(?:" + _FLAT_ITEM + r"(?:,\s*+" + _FLAT_ITEM + r")*+,?+\s*+)?\]"
"""A flat value: a scalar, or a one-level list of scalars (``[1.0, 3.0]``, ``['a', b]``, ``[]``)."""
_FLAT_ARG = _NAME_RE + r"\s*+=\s*+(?:" + _FLAT_VALUE + r")\s*+"
_FLAT_CALL = (
    _DOTTED_RE + r"\s*+\(\s*+"
    r"(?:" + _FLAT_ARG + r"(?:,\s*+" + _FLAT_ARG + r")*+,?+\s*+)?\)\s*+"
)
_FLAT = r"\[\s*+" + _FLAT_CALL + r"(?:,\s*+" + _FLAT_CALL + r")*+,?+\s*+\]"
"""The whole text is a flat call list: ``[f(a='x', b=1), g.h(c=[True, 2])]`` (ASCII names)."""
_FLAT_UNITS = re.compile(r"([A-Za-z_][A-Za-z0-9_.]*+)\s*+\(|([A-Za-z_][A-Za-z0-9_]*+)\s*+=\s*+(" + _FLAT_VALUE + ")")
# (a text _FLAT matched has no keyword as a name, so the units need not say so again)
"""In a flat call list: a call head ``(name, "", "")`` or an argument ``("", key, value)``."""
_FLAT_ITEMS = re.compile(_FLAT_SCALAR)
"""The items of a flat list value (in a validated list, every match is one whole item)."""
_GROUP_ARGS = 8
"""Arguments per call that :data:`_FLAT_GROUPS` reads in one match."""


def _group_args(n: int) -> str:
    arg = r"(" + _NAME_RE + r")\s*+=\s*+(" + _FLAT_VALUE + r")\s*+"
    return arg + (r"(?:,\s*+" + _group_args(n - 1) + ")?" if n > 1 else "")


_GROUP_CALL = (
    r"(" + _DOTTED_RE + r")\s*+\(\s*+"
    r"(?:" + _group_args(_GROUP_ARGS) + r",?+\s*+)?\)\s*+"
)
_FLAT_GROUPS = r"\[\s*+" + _GROUP_CALL + r"(?:,\s*+" + _GROUP_CALL + r")?+,?+\s*+\]"
""":data:`_FLAT` for one or two calls of at most :data:`_GROUP_ARGS` arguments each (most BFCL
answers), with every name, key and value in its own group: one match reads the whole text. Groups:
per call its name, then ``(key, value)`` pairs (``None`` past the last argument)."""
_GROUP_SPAN = 1 + 2 * _GROUP_ARGS
_compiled: tuple[re.Pattern[str], re.Pattern[str]] | None = None


def _whole_text_patterns() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """:data:`_FLAT_GROUPS` and :data:`_FLAT`, compiled on first use: they take 70 ms to compile,
    every command that imports the parsers would pay it at start-up, and compiled code reads ASCII
    text without them."""
    global _compiled
    if _compiled is None:
        _compiled = (re.compile(_FLAT_GROUPS), re.compile(_FLAT))
    return _compiled


_SCAN = not __file__.endswith(".py")
"""Whether this module runs compiled by mypyc (an extension module), where :func:`read_flat` reads
ASCII text with the hand scanner."""


def read_flat(text: str) -> list[tuple[str, dict[str, Any]]] | None:
    """The ``(name, arguments)`` calls of a flat call list (see :data:`_FLAT`), ``None`` for any
    other text; values are read as :func:`token_value` reads them.

    Where this module is compiled, an ASCII text is read by :func:`_scan_flat`, a hand scanner of
    the same grammar (one pass over the characters: several times faster than the regex match);
    any other text, and every text when the module runs interpreted (where a loop over characters
    is slower than the regex engine), by :func:`read_flat_re`. Both give the same calls, or
    ``None``, on every text (``tests/formats/test_fastpy_scan.py``)."""
    if _SCAN and text.isascii():
        charge(len(text), "tokens")
        return _scan_flat(text)
    charge(3 * len(text), "tokens")  # at most three regex passes
    return read_flat_re(text)


def read_flat_re(text: str) -> list[tuple[str, dict[str, Any]]] | None:
    """:func:`read_flat` by the regexes :data:`_FLAT_GROUPS`, :data:`_FLAT` and :data:`_FLAT_UNITS`."""
    groups, whole = _whole_text_patterns()
    m = groups.fullmatch(text)
    if m is not None:
        g = m.groups()
        if g[_GROUP_SPAN] is None:
            return [(g[0], _group_args_of(g, 1))]
        return [(g[0], _group_args_of(g, 1)), (g[_GROUP_SPAN], _group_args_of(g, _GROUP_SPAN + 1))]
    if whole.fullmatch(text) is None:
        return None
    calls: list[tuple[str, dict[str, Any]]] = []
    args: dict[str, Any] = {}
    head: str
    key: str
    v: str
    for head, key, v in _FLAT_UNITS.findall(text):
        if head:
            args = {}
            calls.append((head, args))
            continue
        c = v[0]
        if c == "'" or c == '"':
            args[key] = v[1:-1]
        elif c == "[":
            args[key] = [_flat_scalar(x) for x in _FLAT_ITEMS.findall(v)]
        elif c == "-" or c <= "9":  # a digit: names start with a letter or "_"
            args[key] = float(v) if "." in v or "e" in v or "E" in v else int(v)
        else:
            args[key] = CONST.get(v, v)
    return calls


def _group_args_of(g: tuple[Any, ...], i: int) -> dict[str, Any]:
    args: dict[str, Any] = {}
    for j in range(i, i + 2 * _GROUP_ARGS, 2):
        key: str | None = g[j]
        if key is None:
            break
        v: str = g[j + 1]  # typed: compiled, the string operations below are native
        c = v[0]
        if c == "'" or c == '"':
            args[key] = v[1:-1]
        elif c == "[":
            args[key] = [_flat_scalar(x) for x in _FLAT_ITEMS.findall(v)]
        elif c == "-" or c <= "9":
            args[key] = float(v) if "." in v or "e" in v or "E" in v else int(v)
        else:
            args[key] = CONST.get(v, v)
    return args


def _skip_ws(s: str, i: int, n: int) -> int:
    """The first position from ``i`` that is not ASCII whitespace (``\\s`` on ASCII text)."""
    while i < n:
        c = ord(s[i])
        if c == 32 or 9 <= c <= 13 or 28 <= c <= 31:
            i += 1
        else:
            break
    return i


def _name_end(s: str, i: int, n: int) -> int:
    """The end of the name ``[A-Za-z_][A-Za-z0-9_]*`` at ``i``, or -1."""
    if i >= n:
        return -1
    c = ord(s[i])
    if not (97 <= c <= 122 or 65 <= c <= 90 or c == 95):
        return -1
    i += 1
    while i < n:
        c = ord(s[i])
        if 97 <= c <= 122 or 65 <= c <= 90 or c == 95 or 48 <= c <= 57:
            i += 1
        else:
            break
    return i


def _digits_end(s: str, i: int, n: int) -> int:
    while i < n and 48 <= ord(s[i]) <= 57:
        i += 1
    return i


class _Scalar:
    """A scanned flat scalar: its value and where it ends (``end`` -1: none at that position);
    ``error``: the first number ``int`` refused (past Python's digit limit), raised only once the
    whole text is known to be flat, as the regex reader raises it after its match."""

    __slots__ = ("end", "error", "value")

    def __init__(self) -> None:
        self.value: Any = None
        self.end = -1
        self.error: ValueError | None = None


def _scan_scalar(s: str, i: int, n: int, out: _Scalar) -> None:
    """The flat scalar (:data:`_FLAT_SCALAR`) at ``i`` into ``out``: a plain string, a decimal
    number or a name other than ``true`` / ``false`` / ``null``; ``out.end`` -1 when there is none."""
    out.end = -1
    if i >= n:
        return
    c = ord(s[i])
    if c == 39 or c == 34:  # ' or "
        j = i + 1
        while j < n:
            d = ord(s[j])
            if d == c:
                out.value = s[i + 1 : j]
                out.end = j + 1
                return
            if d == 92 or d == 10:  # a backslash or a newline: not a plain string
                return
            j += 1
        return
    if c == 45 or 48 <= c <= 57:  # - or a digit
        j = i + 1 if c == 45 else i
        if j >= n:
            return
        d = ord(s[j])
        if d == 48:
            j += 1
        elif 49 <= d <= 57:
            j = _digits_end(s, j + 1, n)
        else:
            return
        real = False
        if j + 1 < n and ord(s[j]) == 46 and 48 <= ord(s[j + 1]) <= 57:  # .digits
            j = _digits_end(s, j + 2, n)
            real = True
        if j < n and (ord(s[j]) == 101 or ord(s[j]) == 69):  # e or E, only with its digits
            k = j + 1
            if k < n and (ord(s[k]) == 43 or ord(s[k]) == 45):
                k += 1
            if k < n and 48 <= ord(s[k]) <= 57:
                j = _digits_end(s, k + 1, n)
                real = True
        v = s[i:j]
        if real:
            out.value = float(v)
        else:
            try:
                out.value = int(v)
            except ValueError as exc:
                out.value = None
                if out.error is None:
                    out.error = exc
        out.end = j
        return
    j = _name_end(s, i, n)
    if j < 0:
        return
    v = s[i:j]
    if v in BARE:  # true / false / null: decided by the schema, on the ast path
        return
    if v in CONST:
        out.value = CONST[v]
    elif v in KEYWORDS:  # f(a=if): a SyntaxError to Python
        return
    else:
        out.value = v
    out.end = j


def _after_item(s: str, i: int, n: int, closer: int) -> tuple[int, bool]:
    """After an item ending at ``i``: the next position (past blanks, and a comma with the blanks
    after it) and whether another item follows (a comma not directly before ``closer``)."""
    i = _skip_ws(s, i, n)
    if i < n and ord(s[i]) == 44:  # ,
        i = _skip_ws(s, i + 1, n)
        return i, not (i < n and ord(s[i]) == closer)
    return i, False


def _scan_flat(s: str) -> list[tuple[str, dict[str, Any]]] | None:
    """:func:`read_flat_re` by one pass over an ASCII text: the grammar of :data:`_FLAT` (each of
    its repetitions decided by the next character, so the scan never backtracks), the values of
    :func:`_group_args_of`."""
    n = len(s)
    if n < 2 or ord(s[0]) != 91 or ord(s[n - 1]) != 93:  # [ ... ]
        return None
    sc = _Scalar()
    calls: list[tuple[str, dict[str, Any]]] = []
    i = _skip_ws(s, 1, n)
    while True:  # a call: name(.name)* ( args )
        e = _name_end(s, i, n)
        if e < 0:
            return None
        while e < n and ord(s[e]) == 46:
            e = _name_end(s, e + 1, n)
            if e < 0:
                return None
        name = s[i:e]
        if _has_keyword(name):  # if(...), True(...): not a call Python reads as one
            return None
        i = _skip_ws(s, e, n)
        if i >= n or ord(s[i]) != 40:  # (
            return None
        i = _skip_ws(s, i + 1, n)
        args: dict[str, Any] = {}
        if i < n and ord(s[i]) != 41:
            while True:  # key = value
                e = _name_end(s, i, n)
                if e < 0:
                    return None
                key = s[i:e]
                if key in KEYWORDS:  # f(if=1): a SyntaxError to Python
                    return None
                i = _skip_ws(s, e, n)
                if i >= n or ord(s[i]) != 61:  # =
                    return None
                i = _skip_ws(s, i + 1, n)
                if i < n and ord(s[i]) == 91:  # a one-level list of scalars
                    items: list[Any] = []
                    i = _skip_ws(s, i + 1, n)
                    if i < n and ord(s[i]) != 93:
                        while True:
                            _scan_scalar(s, i, n, sc)
                            if sc.end < 0:
                                return None
                            items.append(sc.value)
                            i, more = _after_item(s, sc.end, n, 93)  # ]
                            if not more:
                                break
                    if i >= n or ord(s[i]) != 93:
                        return None
                    args[key] = items
                    i += 1
                else:
                    _scan_scalar(s, i, n, sc)
                    if sc.end < 0:
                        return None
                    args[key] = sc.value
                    i = sc.end
                i, more = _after_item(s, i, n, 41)  # )
                if not more:
                    break
        if i >= n or ord(s[i]) != 41:  # )
            return None
        calls.append((name, args))
        i, more = _after_item(s, i + 1, n, 93)  # ]
        if not more:
            break
    if i != n - 1:  # the closing ] (checked above) and nothing else
        return None
    if sc.error is not None:
        raise sc.error
    return calls


def _flat_scalar(v: str) -> Any:
    c = v[0]
    if c == "'" or c == '"':
        return v[1:-1]
    if c == "-" or c <= "9":
        return float(v) if "." in v or "e" in v or "E" in v else int(v)
    return CONST.get(v, v)


def _has_keyword(name: str) -> bool:
    """Whether a (dotted) name the scanner read has a keyword for a part."""
    if "." not in name:
        return name in KEYWORDS
    return any(part in KEYWORDS for part in name.split("."))
