"""A fast reader for the common shape of BFCL output, ``[f(a=1, b='x'), g.h(c=[1, 2])]``.

``ast.parse`` costs about 30 µs on a typical BFCL answer; this token reader does the same job for
the literal subset in a few µs and hands everything else (nested calls, arithmetic, prefixed or
implicitly concatenated strings, unusual numbers...) back to the ``ast`` path by returning ``None``.
It also reads two Appendix I variants in the same pass: ``[f(a:1)]`` (colon separators) and
``[func_name="X", params={...}]`` (keyword lists). Values come out exactly as the ``ast`` path
(:mod:`robustcall.formats._pyvalues`) gives them.

Two stages. The flat shape (keyword arguments whose values are plain strings, decimal numbers,
``True``/``False``/``None`` or bare names; about three BFCL answers in four) is recognised by one
compiled regex and its ``(call | key = value)`` units pulled out by a second, so that Python runs
once per argument rather than once per token. Anything else is tokenised (one compiled regex,
``findall``) and the tokens are walked with a list iterator; anything unexpected raises ``_Bail``
(or runs into the ``""`` sentinel) and means "fall back to ``ast``".
"""

from __future__ import annotations

import ast
import bisect
import keyword
import re
from collections.abc import Callable
from typing import Any

from robustcall.formats._bounds import charge, check_call_count
from robustcall.formats._pyvalues import BareName
from robustcall.formats._types import RawCall

_KEYWORDS = frozenset(keyword.kwlist)
"""Names that are no Python name (``if``, ``True``...): a text using one as a name is no expression."""
_NOT_KEYWORD = r"(?!(?:" + "|".join(sorted(_KEYWORDS)) + r")(?![A-Za-z0-9_]))"
"""Before a name in the flat patterns: it is not a keyword (``ast`` refuses ``f(if=1)``, ``f(a=if)``)."""
_NAME_RE = _NOT_KEYWORD + r"[A-Za-z_][A-Za-z0-9_]*+"
_DOTTED_RE = _NAME_RE + r"(?:\." + _NAME_RE + r")*+"
_TOKENS = re.compile(r"""'[^'\\\n]*+(?:\\.[^'\\\n]*+)*+'?+|"[^"\\\n]*+(?:\\.[^"\\\n]*+)*+"?+|[^\s'"\[\](){}:,=]++|\S""")
"""A string (an unclosed one, up to its line's end, is a token the readers refuse: matching it keeps
the scan linear), a run of other characters, or one punctuation character."""
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
_FLAT = re.compile(r"\[\s*+" + _FLAT_CALL + r"(?:,\s*+" + _FLAT_CALL + r")*+,?+\s*+\]")
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
_FLAT_GROUPS = re.compile(r"\[\s*+" + _GROUP_CALL + r"(?:,\s*+" + _GROUP_CALL + r")?+,?+\s*+\]")
""":data:`_FLAT` for one or two calls of at most :data:`_GROUP_ARGS` arguments each (most BFCL
answers), with every name, key and value in its own group: one match reads the whole text. Groups:
per call its name, then ``(key, value)`` pairs (``None`` past the last argument)."""
_GROUP_SPAN = 1 + 2 * _GROUP_ARGS
_SCAN = not __file__.endswith(".py")
"""Whether this module runs compiled by mypyc (an extension module), where :func:`read_flat` reads
ASCII text with the hand scanner."""
_NUMBER = re.compile(r"-?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
_CONST = {"True": True, "False": False, "None": None}
_BARE = frozenset({"true", "false", "null"})
_KW_NAME = frozenset({"func_name", "function_name", "name", "function", "tool_name", "tool"})
_KW_ARGS = frozenset({"params", "parameters", "arguments", "args"})
_PUNCT = frozenset("[](){}:,=")

Next = Callable[[], str]


class _Bail(Exception):
    pass


class FastResult:
    __slots__ = ("calls", "variant")

    def __init__(self, calls: list[RawCall], variant: str) -> None:
        self.calls = calls
        self.variant = variant


def read_calls(text: str) -> FastResult | None:
    """Calls of a bracketed BFCL list (``text`` must start with ``[``), or ``None`` to fall back."""
    flat = read_flat(text)
    if flat is not None:
        return FastResult([RawCall(name, args, []) for name, args in flat], "bfcl")
    return read_tokens(text)


def read_tokens(text: str) -> FastResult | None:
    """:func:`read_calls` without the flat stage (for a caller that already ran :func:`read_flat`)."""
    toks: list[str] = _TOKENS.findall(text)
    charge(len(text), "tokens")
    toks.append("")  # sentinel: never a valid token, so running off the end bails
    nxt = iter(toks).__next__
    try:
        if nxt() != "[":
            return None
        calls: list[RawCall] = []
        colon = False
        kwlist = False
        t = nxt()
        if t != "]":
            while True:
                sep = nxt()
                if sep == "(" and _plain_name(t):
                    call, c = _call(t, nxt)
                    calls.append(call)
                    check_call_count(len(calls))  # stop reading at the bound
                    colon = colon or c
                    t = nxt()
                elif sep == "=" and _NAME.fullmatch(t) is not None:
                    kwlist = True
                    t = _kwlist(t, nxt, calls)
                else:
                    return None
                if t == "]":
                    break
                if t != ",":
                    return None
                t = nxt()
                if t == "]":
                    break
        if nxt() != "":  # the sentinel must come right after the closing bracket
            return None
        variant = "bfcl_keyword_list" if kwlist else "bfcl_colon" if colon else "bfcl"
        return FastResult(calls, variant)
    except (_Bail, StopIteration, ValueError, SyntaxError):
        return None


def read_flat(text: str) -> list[tuple[str, dict[str, Any]]] | None:
    """The ``(name, arguments)`` calls of a flat call list (see :data:`_FLAT`), ``None`` for any
    other text; values are read as :func:`_value` reads them.

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
    m = _FLAT_GROUPS.fullmatch(text)
    if m is not None:
        g = m.groups()
        if g[_GROUP_SPAN] is None:
            return [(g[0], _group_args_of(g, 1))]
        return [(g[0], _group_args_of(g, 1)), (g[_GROUP_SPAN], _group_args_of(g, _GROUP_SPAN + 1))]
    if _FLAT.fullmatch(text) is None:
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
            args[key] = _CONST.get(v, v)
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
            args[key] = _CONST.get(v, v)
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
    if v in _BARE:  # true / false / null: decided by the schema, on the ast path
        return
    if v in _CONST:
        out.value = _CONST[v]
    elif v in _KEYWORDS:  # f(a=if): a SyntaxError to Python
        return
    else:
        out.value = v
    out.end = j


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
                if key in _KEYWORDS:  # f(if=1): a SyntaxError to Python
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
                            i = _skip_ws(s, sc.end, n)
                            if i < n and ord(s[i]) == 44:  # ,
                                i = _skip_ws(s, i + 1, n)
                                if i < n and ord(s[i]) == 93:
                                    break
                                continue
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
                i = _skip_ws(s, i, n)
                if i < n and ord(s[i]) == 44:  # ,
                    i = _skip_ws(s, i + 1, n)
                    if i < n and ord(s[i]) == 41:
                        break
                    continue
                break
        if i >= n or ord(s[i]) != 41:  # )
            return None
        calls.append((name, args))
        i = _skip_ws(s, i + 1, n)
        if i < n and ord(s[i]) == 44:  # ,
            i = _skip_ws(s, i + 1, n)
            if i < n and ord(s[i]) == 93:
                break
            continue
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
    return _CONST.get(v, v)


def _call(name: str, nxt: Next) -> tuple[RawCall, bool]:
    """Arguments up to the closing ``)``; also says whether ``a:1`` separators were used."""
    args: dict[str, Any] = {}
    positional: list[Any] = []
    colon = False
    t = nxt()
    if t == ")":
        return RawCall(name, args, positional), colon
    while True:
        sep = nxt()
        if (sep == "=" or sep == ":") and t.isidentifier():
            if t in _KEYWORDS or not t.isascii():  # a keyword, or non-ASCII (ast folds it to NFKC)
                raise _Bail
            if sep == ":":
                colon = True
            v = nxt()
            if v[:1] == "'" and len(v) > 1 and v[-1] == "'" and "\\" not in v:
                args[t] = v[1:-1]
            else:
                args[t] = _value(v, nxt)
            p = nxt()
        else:
            if args:  # positional after keyword: not Python; let the ast path judge
                raise _Bail
            c = t[:1]
            if c == "[" or c == "{":  # rare: a positional container goes to the ast path
                raise _Bail
            positional.append(_value(t, nxt))
            p = sep
        if p == ")":
            return RawCall(name, args, positional), colon
        if p != ",":
            raise _Bail
        t = nxt()
        if t == ")":
            return RawCall(name, args, positional), colon


def _kwlist(key: str, nxt: Next, calls: list[RawCall]) -> str:
    """``func_name="X", params={...}`` pairs (the first key given, its ``=`` read) up to the closing
    ``]``; several calls allowed. Returns the token after the last pair."""
    cur_name: str | None = None
    cur_args: dict[str, Any] | None = None
    while True:
        if not key.isidentifier() or (key not in _KW_NAME and key not in _KW_ARGS):
            raise _Bail  # before its value is read: a long value of another key is no call
        val = _value(nxt(), nxt)
        if key in _KW_NAME and isinstance(val, str):
            if cur_name is not None:
                calls.append(RawCall(cur_name, cur_args or {}))
                cur_args = None
            cur_name = val
        elif key in _KW_ARGS and isinstance(val, dict):
            cur_args = {str(k): v for k, v in val.items()}
        else:
            raise _Bail
        after = nxt()
        if after != ",":
            break
        key = nxt()
        if key == "]":
            after = "]"
            break
        if nxt() != "=":
            raise _Bail
    if cur_name is None:
        raise _Bail
    calls.append(RawCall(cur_name, cur_args or {}))
    return after


def _value(t: str, nxt: Next) -> Any:
    c = t[:1]
    if c == "'" or c == '"':
        if len(t) < 2 or t[-1] != c:
            raise _Bail
        if "\\" not in t:
            return t[1:-1]
        return ast.literal_eval(t)
    if c == "[":
        out: list[Any] = []
        t = nxt()
        if t == "]":
            return out
        while True:
            out.append(_value(t, nxt))
            q = nxt()
            if q == "]":
                return out
            if q != ",":
                raise _Bail
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
                raise _Bail  # an unhashable key: declined before it is read
            k = _value(t, nxt)
            if nxt() != ":":
                raise _Bail
            d[k] = _value(nxt(), nxt)
            q = nxt()
            if q == "}":
                return d
            if q != ",":
                raise _Bail
            t = nxt()
            if t == "}":
                return d
    if not c or c in _PUNCT:
        raise _Bail
    if c.isdigit() or c == "-" or c == ".":
        if _NUMBER.fullmatch(t) is None:
            raise _Bail
        if "." in t or "e" in t or "E" in t:
            return float(t)
        digits = t.lstrip("-")
        if len(digits) > 1 and digits[0] == "0" and digits.strip("0"):
            raise _Bail  # 007 is a syntax error in Python
        return int(t)
    if t in _CONST:
        return _CONST[t]
    if "." in t or not t.isidentifier() or t in _KEYWORDS or not t.isascii():  # ast: no name, or NFKC
        raise _Bail
    if t in _BARE:  # decided by the parameter's schema once the call is known (resolve_bare)
        return BareName(t)
    return t


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
        toks: list[str] = _TOKENS.findall(text, start, end)
        charge(end - start, "literal")
        toks.append("")  # sentinel: never a valid token
        try:
            value, i = _literal(toks, 0, 0)
            if toks[i] == "":
                if end == stop:
                    return (value,), -1
                i = len(toks) - 1  # read to the chunk's end: read on
            else:
                return None, -1  # the value ends before the span does (read no further)
        except _Bail as exc:
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
        return None, _token_start(text, start, end, i)


def _token_start(text: str, start: int, end: int, k: int) -> int:
    """Where the ``k``-th token of ``text[start:end]`` starts (``end`` for the sentinel)."""
    for n, m in enumerate(_TOKENS.finditer(text, start, end)):
        if n == k:
            return m.start()
    return end


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
    _plain_names.clear()


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


def _literal(toks: list[str], i: int, depth: int) -> tuple[Any, int]:
    """The value whose first token is ``toks[i]``, as ``_pyvalues.value_of`` gives it, and the index
    after it. Calls with keyword arguments only are ``{name: {keyword: value}}``; ``f()`` is ``"f()"``."""
    t = toks[i]
    c = t[:1]
    if depth >= _AST_MAX_BRACKETS and (c == "[" or c == "{" or toks[i + 1] == "("):
        raise _Bail(i)
    depth += 1
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
                v, i = _literal(toks, i, depth)
                items.append(v)
            i = _after_item(toks, i, "]")
            if i < 0:
                return items, -i
    if c == "{":
        d: dict[Any, Any] = {}
        i += 1
        if toks[i] == "}":
            return d, i + 1
        while True:
            if toks[i][:1] == "[" or toks[i][:1] == "{":
                raise _Bail(i)  # an unhashable key: declined before it is read
            k, i = _literal(toks, i, depth)
            if isinstance(k, list | dict) or toks[i] != ":":
                raise _Bail(i)  # a call's value is a dict: unhashable too
            d[k], i = _literal(toks, i + 1, depth)
            i = _after_item(toks, i, "}")
            if i < 0:
                return d, -i
    if toks[i + 1] == "(":
        if not _plain_name(t):
            raise _Bail(i)
        i += 2
        if toks[i] == ")":
            return t + "()", i + 1  # ast.unparse of a call without arguments
        args: dict[str, Any] = {}
        while True:
            k = toks[i]
            if toks[i + 1] != "=" or "." in k or not _plain_name(k) or k in args:
                raise _Bail(i)  # positional, ** or a repeated keyword (a SyntaxError to Python)
            args[k], i = _literal(toks, i + 2, depth)
            i = _after_item(toks, i, ")")
            if i < 0:
                return {t: args}, -i
    if c.isalpha() or c == "_":
        if t in _CONST:
            return _CONST[t], i + 1
        if not _plain_name(t):
            raise _Bail(i)
        if "." in t:
            return t, i + 1  # ast.unparse of an attribute chain
        return (BareName(t) if t in _BARE else t), i + 1
    try:
        return _value(t, _no_token), i + 1  # a string or a number: _value reads no further token
    except (_Bail, ValueError, SyntaxError):
        raise _Bail(i) from None


def _plain_int(t: str) -> bool:
    """An ASCII decimal integer token that :func:`_value` reads as ``int(t)`` (no leading zero, and
    short enough for ``int``): the others take the general path."""
    return t.isdigit() and t.isascii() and (t[0] != "0" or len(t) == 1) and len(t) < 4_000


def _no_token() -> str:
    return ""


def _after_item(toks: list[str], i: int, close: str) -> int:
    """Past the separator after an item at ``toks[i]``: the next item's index, or minus the index
    after ``close`` when the container ends there (a trailing comma allowed)."""
    q = toks[i]
    if q == close:
        return -(i + 1)
    if q != ",":
        raise _Bail(i)
    if toks[i + 1] == close:
        return -(i + 2)
    return i + 1


def _has_keyword(name: str) -> bool:
    """Whether a (dotted) name the scanner read has a keyword for a part."""
    if "." not in name:
        return name in _KEYWORDS
    return any(part in _KEYWORDS for part in name.split("."))


def _plain_name(t: str) -> bool:
    """An ASCII name or dotted name with no keyword in it (``ast`` folds non-ASCII names to NFKC)."""
    known = _plain_names.get(t)
    if known is not None:
        return known
    plain = _NAME.fullmatch(t) is not None and not any(part in _KEYWORDS for part in t.split("."))
    if len(_plain_names) >= _PLAIN_NAMES_KEPT:
        _plain_names.clear()
    _plain_names[t] = plain
    return plain


_plain_names: dict[str, bool] = {}
""":func:`_plain_name`'s answers (a list of ten thousand calls names the same few again and again)."""
_PLAIN_NAMES_KEPT = 4_096
