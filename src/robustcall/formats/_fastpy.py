"""A fast reader for the common shape of BFCL output, ``[f(a=1, b='x'), g.h(c=[1, 2])]``.

``ast.parse`` costs about 30 µs on a typical BFCL answer; this token reader does the same job for
the literal subset in a few µs and hands everything else (nested calls, arithmetic, prefixed or
implicitly concatenated strings, unusual numbers...) back to the ``ast`` path by returning ``None``.
It also reads two Appendix I variants in the same pass: ``[f(a:1)]`` (colon separators) and
``[func_name="X", params={...}]`` (keyword lists). Values come out exactly as the ``ast`` path
(:mod:`robustcall.formats._pyvalues`) gives them.
"""

from __future__ import annotations

import ast
import re
from typing import Any

from robustcall.formats._types import RawCall

_TOKENS = re.compile(r"""'[^'\\\n]*(?:\\.[^'\\\n]*)*'|"[^"\\\n]*(?:\\.[^"\\\n]*)*"|[^\s'"\[\](){}:,=]+|\S""")
_NUMBER = re.compile(r"-?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
_CONST = {"True": True, "False": False, "None": None}
_KW_NAME = frozenset({"func_name", "function_name", "name", "function", "tool_name", "tool"})
_KW_ARGS = frozenset({"params", "parameters", "arguments", "args"})
_PUNCT = frozenset("[](){}:,=")
_END = ("",)


class _Bail(Exception):
    pass


class FastResult:
    __slots__ = ("calls", "variant")

    def __init__(self, calls: list[RawCall], variant: str) -> None:
        self.calls = calls
        self.variant = variant


def read_calls(text: str) -> FastResult | None:
    """Calls of a bracketed BFCL list (``text`` must start with ``[``), or ``None`` to fall back."""
    toks = _TOKENS.findall(text)
    toks.append("")  # sentinel: never a valid token, so running off the end bails
    try:
        return _Reader(toks).top()
    except (_Bail, IndexError, ValueError, SyntaxError):
        return None


def _is_name(tok: str) -> bool:
    return _NAME.fullmatch(tok) is not None


class _Reader:
    __slots__ = ("colon", "i", "kwlist", "toks")

    def __init__(self, toks: list[str]) -> None:
        self.toks = toks
        self.i = 0
        self.colon = False
        self.kwlist = False

    def top(self) -> FastResult:
        toks = self.toks
        if toks[0] != "[":
            raise _Bail
        self.i = 1
        calls: list[RawCall] = []
        if toks[1] == "]":
            self.i = 2
        else:
            while True:
                name = toks[self.i]
                nxt = toks[self.i + 1]
                if nxt == "(" and _is_name(name):
                    self.i += 2
                    calls.append(self._call(name))
                elif nxt == "=" and _is_name(name):
                    calls.extend(self._kwlist())
                else:
                    raise _Bail
                p = toks[self.i]
                self.i += 1
                if p == "]":
                    break
                if p != ",":
                    raise _Bail
                if toks[self.i] == "]":
                    self.i += 1
                    break
        if self.i != len(toks) - 1:
            raise _Bail
        variant = "bfcl_keyword_list" if self.kwlist else "bfcl_colon" if self.colon else "bfcl"
        return FastResult(calls, variant)

    def _call(self, name: str) -> RawCall:
        toks = self.toks
        args: dict[str, Any] = {}
        positional: list[Any] = []
        if toks[self.i] == ")":
            self.i += 1
            return RawCall(name, args, positional)
        while True:
            t = toks[self.i]
            sep = toks[self.i + 1]
            if (sep == "=" or sep == ":") and t.isidentifier():
                if sep == ":":
                    self.colon = True
                self.i += 2
                args[t] = self._value()
            else:
                if args:  # positional after keyword: not Python; let the ast path judge
                    raise _Bail
                positional.append(self._value())
            p = toks[self.i]
            self.i += 1
            if p == ")":
                return RawCall(name, args, positional)
            if p != ",":
                raise _Bail
            if toks[self.i] == ")":
                self.i += 1
                return RawCall(name, args, positional)

    def _kwlist(self) -> list[RawCall]:
        """``func_name="X", params={...}`` pairs up to the closing ``]``; several calls allowed."""
        self.kwlist = True
        toks = self.toks
        calls: list[RawCall] = []
        cur_name: str | None = None
        cur_args: dict[str, Any] | None = None
        while True:
            key = toks[self.i]
            if toks[self.i + 1] != "=" or not key.isidentifier():
                raise _Bail
            self.i += 2
            val = self._value()
            if key in _KW_NAME and isinstance(val, str):
                if cur_name is not None:
                    calls.append(RawCall(cur_name, cur_args or {}))
                    cur_args = None
                cur_name = val
            elif key in _KW_ARGS and isinstance(val, dict):
                cur_args = {str(k): v for k, v in val.items()}
            else:
                raise _Bail
            if toks[self.i] != "," or toks[self.i + 1] == "]":
                break
            self.i += 1
        if cur_name is None:
            raise _Bail
        calls.append(RawCall(cur_name, cur_args or {}))
        return calls

    def _value(self) -> Any:
        toks = self.toks
        t = toks[self.i]
        self.i += 1
        c = t[:1]
        if c == "'" or c == '"':
            if len(t) < 2 or t[-1] != c:
                raise _Bail
            if "\\" not in t:
                return t[1:-1]
            return ast.literal_eval(t)
        if c == "[":
            out: list[Any] = []
            if toks[self.i] == "]":
                self.i += 1
                return out
            while True:
                out.append(self._value())
                q = toks[self.i]
                self.i += 1
                if q == "]":
                    return out
                if q != ",":
                    raise _Bail
                if toks[self.i] == "]":
                    self.i += 1
                    return out
        if c == "{":
            d: dict[Any, Any] = {}
            if toks[self.i] == "}":
                self.i += 1
                return d
            while True:
                k = self._value()
                if isinstance(k, list | dict):
                    raise _Bail
                if toks[self.i] != ":":
                    raise _Bail
                self.i += 1
                d[k] = self._value()
                q = toks[self.i]
                self.i += 1
                if q == "}":
                    return d
                if q != ",":
                    raise _Bail
                if toks[self.i] == "}":
                    self.i += 1
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
        if "." in t or toks[self.i] == "(" or not t.isidentifier():
            raise _Bail
        return t
