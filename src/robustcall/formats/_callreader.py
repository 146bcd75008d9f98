"""The token reader of BFCL call lists: ``[f(a=1, b={'k': [1, 2]})]`` beyond the flat shape.

``ast.parse`` costs about 30 µs on a typical BFCL answer; this reader does the same job for the
literal subset in a few µs and returns ``None`` for anything else (the ``ast`` path goes on from
there). The text is tokenised by one compiled regex (``findall``) and the tokens are walked with a
list iterator. It also reads two Appendix I variants in the same pass: ``[f(a:1)]`` (colon
separators) and ``[func_name="X", params={...}]`` (keyword lists).
"""

from __future__ import annotations

from typing import Any

from robustcall.formats._bounds import charge, check_call_count
from robustcall.formats._flatreader import read_flat
from robustcall.formats._pytokens import KEYWORDS, NAME, TOKENS, Bail, Next, plain_name, token_value
from robustcall.formats._types import RawCall

_KW_NAME = frozenset({"func_name", "function_name", "name", "function", "tool_name", "tool"})
_KW_ARGS = frozenset({"params", "parameters", "arguments", "args"})


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
    toks: list[str] = TOKENS.findall(text)
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
                if sep == "(" and plain_name(t):
                    call, c = _call(t, nxt)
                    calls.append(call)
                    check_call_count(len(calls))  # stop reading at the bound
                    colon = colon or c
                    t = nxt()
                elif sep == "=" and NAME.fullmatch(t) is not None:
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
    except (Bail, StopIteration, ValueError, SyntaxError):
        return None


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
            if t in KEYWORDS or not t.isascii():  # a keyword, or non-ASCII (ast folds it to NFKC)
                raise Bail
            if sep == ":":
                colon = True
            v = nxt()
            if v[:1] == "'" and len(v) > 1 and v[-1] == "'" and "\\" not in v:
                args[t] = v[1:-1]
            else:
                args[t] = token_value(v, nxt)
            p = nxt()
        else:
            if args:  # positional after keyword: not Python; let the ast path judge
                raise Bail
            c = t[:1]
            if c == "[" or c == "{":  # rare: a positional container goes to the ast path
                raise Bail
            positional.append(token_value(t, nxt))
            p = sep
        if p == ")":
            return RawCall(name, args, positional), colon
        if p != ",":
            raise Bail
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
            raise Bail  # before its value is read: a long value of another key is no call
        val = token_value(nxt(), nxt)
        if key in _KW_NAME and isinstance(val, str):
            if cur_name is not None:
                calls.append(RawCall(cur_name, cur_args or {}))
                cur_args = None
            cur_name = val
        elif key in _KW_ARGS and isinstance(val, dict):
            cur_args = {str(k): v for k, v in val.items()}
        else:
            raise Bail
        after = nxt()
        if after != ",":
            break
        key = nxt()
        if key == "]":
            after = "]"
            break
        if nxt() != "=":
            raise Bail
    if cur_name is None:
        raise Bail
    calls.append(RawCall(cur_name, cur_args or {}))
    return after
