"""BFCL AST output (``[f(a=1), g.h(b="x")]`` and its Appendix I variants) and bare Python calls."""

from __future__ import annotations

import ast
import re

from robustcall.formats._bounds import MAX_NESTING, charge, check_call_count, recall
from robustcall.formats._callreader import FastResult, read_calls
from robustcall.formats._pyvalues import Unsupported, call_of, parse_expr
from robustcall.formats._scan import next_opener_to_decode, span_of
from robustcall.formats._types import Ctx, RawCall

_EMBEDDED_LIST = re.compile(r"\[\s*[A-Za-z_][\w.]*\s*[(=]")
_COLON_ARG = re.compile(r"[(,][\s\\]*+[^\W\d]\w*+[\s\\]*+:(?!=)")
"""What ``_colons_to_equals`` rewrites needs this (``(`` or ``,``, a name, ``:``, with only blanks
and line continuations between) or a comment: a necessary condition, checked before scanning.
Linear: each blank run and each name is read from the one opener before it."""
_PY_STRINGS = (
    r"'''(?:[^'\\]|\\[\s\S]|'(?!''))*+(?P<s1>''')?",
    r'"""(?:[^"\\]|\\[\s\S]|"(?!""))*+(?P<s2>""")?',
    r"'(?:[^'\\\n]|\\[\s\S])*+(?P<s3>')?",
    r'"(?:[^"\\\n]|\\[\s\S])*+(?P<s4>")?',
)
_PY_TOKEN = re.compile(
    "|".join(_PY_STRINGS)
    + r"|(?P<skip>(?:[^\S\r\n]|\\\r?\n|\r?\n|\r|#[^\r\n]*+)++)|(?P<name>[^\W\d]\w*+)|\d\w*+|:="
    + r"""|[^'"#\w\s()\[\]{},:\\]++|[\s\S]"""
)
"""Python's tokens as far as ``_colons_to_equals`` tells them apart: a string (its closing quote in
a group; an unclosed one runs to the end of its line, or of the text), blanks, line breaks, line
continuations and comments (``skip``), a name, a number, ``:=``, a run of other operator characters,
one character. Every alternative is possessive and keeps what it read, so one pass over the text is
linear (Python's own ``tokenize`` took minutes on a 100 KB answer)."""
_LIST_HEAD = re.compile(r"""\[\s*(?:\]|[^\s'"\[\](){}:,=]+\s*[(=])""")
"""How every list the fast reader reads begins: ``[`` then ``]``, or a name then ``(`` or ``=``
(a necessary condition: text of another format is not tokenized only to be declined)."""
_CALL_START = re.compile(r"(?<![\w.])[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*\(")


def bfcl_calls(text: str, ctx: Ctx) -> tuple[list[RawCall], str]:
    """Calls of a BFCL answer: canonical, colon-separated, keyword-list, unbracketed, or a bracketed
    list inside prose. Returns ``([], "")`` when none is there, ``([], "bfcl")`` for an explicit ``[]``."""
    s = text.strip("`\n ").strip().strip("'")
    if not s:
        return [], ""
    wrapped = s if s.startswith("[") else "[" + s
    if not wrapped.endswith("]"):
        wrapped += "]"
    calls, variant = _read_list(wrapped, ctx)
    if calls or (variant and wrapped == s):  # a well-formed "[]" says "no call": nothing more to try
        return calls, variant if s.startswith("[") else "bfcl_unbracketed"
    for m in _EMBEDDED_LIST.finditer(text):
        span = span_of(text, m.start())
        if span is None or span[1] > MAX_NESTING:  # deeper spans are no call list the readers take
            continue
        end = span[0]
        calls, variant = _read_list(text[m.start() : end], ctx)
        if calls:
            return calls, variant
    return [], ""


def _read_list(src: str, ctx: Ctx) -> tuple[list[RawCall], str]:
    fast = token_calls(src) if _LIST_HEAD.match(src) is not None else None
    if fast is not None:
        return fast.calls, fast.variant
    if src.startswith("[<"):  # a tag: never a Python expression, with or without colons fixed
        return [], ""
    if "(" not in src:  # no call can be read (a list of no calls: what it drops, the dispatch discards)
        return [], "bfcl" if src.strip() == "[]" else ""
    calls = _ast_calls(src, ctx)
    if calls is not None:
        return calls, "bfcl" if calls or src.strip() == "[]" else ""
    colon = recall("colons", src, _colons_to_equals)
    if colon is not None:
        calls = _ast_calls(colon, ctx)
        if calls is not None:
            return calls, "bfcl_colon"
    return [], ""


def token_calls(src: str) -> FastResult | None:
    """``read_calls(src)``, counted against the open parse and recalled within it."""
    return recall("calls", src, read_calls)  # which charges the parse's work account


def _ast_calls(src: str, ctx: Ctx) -> list[RawCall] | None:
    node = parse_expr(src)
    if node is None:
        return None
    elts = node.elts if isinstance(node, ast.List | ast.Tuple) else [node]
    out: list[RawCall] = []
    not_calls = 0
    source: _Source | None = None
    for elt in elts:
        if not isinstance(elt, ast.Call):
            not_calls += 1
            if ctx.report and not_calls <= _NOT_CALLS_SAID:  # nobody reads the drops in a batch
                source = source or _Source(src)
                ctx.drop(f"list item is not a call: {source.at(elt)}")
            continue
        try:
            out.append(call_of(elt, ctx))
        except Unsupported as exc:
            ctx.drop(f"call not read: {exc}")
    if ctx.report and not_calls > _NOT_CALLS_SAID:
        ctx.drop(f"{not_calls - _NOT_CALLS_SAID:,} more list items are not calls")
    return out


_NOT_CALLS_SAID = 10
"""List items that are not calls said one by one in the drops (a list of 50,000 such items would
cost more to report than to parse)."""
_LINE_BREAK = re.compile(rb"\r\n|\r|\n")


class _Source:
    """Where a node of ``ast.parse(src)`` begins, as text: the first 80 characters from there
    (``ast.unparse`` or ``ast.get_source_segment`` cost as much as the parse on a big node)."""

    def __init__(self, src: str) -> None:
        self.data = src.encode("utf-8", "surrogatepass")  # ast's columns count UTF-8 bytes
        self.starts = [0] + [m.end() for m in _LINE_BREAK.finditer(self.data)]

    def at(self, node: ast.expr, n: int = 80) -> str:
        i = self.starts[node.lineno - 1] + node.col_offset
        end = i + 4 * n
        if node.end_lineno is not None and node.end_col_offset is not None:
            end = min(end, self.starts[node.end_lineno - 1] + node.end_col_offset)
        return self.data[i:end].decode("utf-8", "replace")[:n]


def _colons_to_equals(src: str) -> str | None:
    """``f(a: 1)`` -> ``f(a= 1)``: a name then ``:`` directly inside call parentheses (read as Python
    tokenizes it, so that colons inside strings, comments and dicts are left alone). ``None`` when
    nothing changes or a string is left open (no Python expression either way)."""
    if "#" not in src and _COLON_ARG.search(src) is None:  # most texts of another format stop here
        return None
    charge(len(src), "colons")
    stack: list[str] = []
    fixes: list[int] = []
    prev = before = ""  # the last two tokens ("name" for a name, "str" for a string)
    for m in _PY_TOKEN.finditer(src):
        kind = m.lastgroup
        if kind == "skip":
            continue
        tok = m.group()
        c = tok[0]
        if c == "'" or c == '"':
            if kind is None:  # no closing quote
                return None
            tok = "str"
        elif kind == "name":
            tok = "name"
        elif c in "([{":
            stack.append(c)
        elif c in ")]}":
            if stack:
                stack.pop()
        elif tok == ":" and prev == "name" and (before == "(" or before == ",") and stack and stack[-1] == "(":
            fixes.append(m.start())
        before, prev = prev, tok
    if not fixes:
        return None
    chars = list(src)
    for pos in fixes:
        chars[pos] = "="
    return "".join(chars)


def _name_start(text: str, opener: int, floor: int) -> int:
    """Where the name before ``opener`` starts (not before ``floor``): a search for the next call
    resumes there, skipping the calls in between (every opener between is one that
    :func:`~robustcall.formats._scan.next_opener_to_decode` skips: a run of ``f(a=`` twenty
    thousand deep is stepped over at once)."""
    k = opener
    while k > floor and (text[k - 1].isalnum() or text[k - 1] in "_."):
        k -= 1
    return max(k, floor)


def python_calls(text: str, ctx: Ctx) -> list[RawCall]:
    """Bare Python calls anywhere in the text (the last-resort variant). With a tool list, only calls
    to listed tools are taken, so that prose like ``e.g(`` is not mistaken for a call."""
    out: list[RawCall] = []
    pos = 0
    while True:
        m = _CALL_START.search(text, pos)
        if m is None:
            return out
        name = m.group(0)[:-1]
        if ctx.tools and name not in ctx.tools:
            pos = m.end()
            continue
        span = span_of(text, m.end() - 1)
        if span is None or span[1] > MAX_NESTING:  # unclosed, or deeper than the readers go
            pos = _name_start(text, next_opener_to_decode(text, m.end() - 1), m.end())
            continue
        end = span[0]
        node = parse_expr(text[m.start() : end])
        if not isinstance(node, ast.Call):
            pos = m.end()
            continue
        try:
            out.append(call_of(node, ctx))
        except Unsupported as exc:
            ctx.drop(f"call not read: {exc}")
        check_call_count(len(out))  # stop reading at the bound, not after ten thousand parses
        pos = end
