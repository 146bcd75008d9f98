"""Format-tolerant parsing of model text into ``ToolCall``s (Appendix I).

Variants are tried in a dispatch order keyed on the output format until one returns a non-empty
list. Code fences are looked into first, ``<think>…</think>`` blocks are ignored, positional
arguments are mapped onto the tool schema's parameter order, and nothing is ever executed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from robustcall.core import ToolCall, ToolSpec, read_call
from robustcall.formats._bfcl import bfcl_calls, python_calls, token_calls
from robustcall.formats._bounds import (
    MAX_CALLS,
    MAX_NESTING,
    MAX_PARSE_CHARS,
    READ_ERRORS,
    ParseWorkExceeded,
    calls_refusal,
    charge,
    check_call_count,
    end_work,
    start_work,
)
from robustcall.formats._canonical import canonical_calls
from robustcall.formats._flatreader import read_flat
from robustcall.formats._jsonblob import json_calls
from robustcall.formats._literalreader import forget_texts as _forget_literal_tables
from robustcall.formats._pyvalues import has_bare, resolve_args
from robustcall.formats._react import adhoc_calls, react_calls
from robustcall.formats._scan import fenced_blocks, only_fence, refusal, strip_think, too_many_brackets
from robustcall.formats._scan import forget_texts as _forget_bracket_tables
from robustcall.formats._tags import tag_calls
from robustcall.formats._types import MISSING, Ctx, OutputFormat, ParseResult, RawCall

Variant = Callable[[str, Ctx], tuple[list[RawCall], str]]


def _v_bfcl(text: str, ctx: Ctx) -> tuple[list[RawCall], str]:
    return bfcl_calls(text, ctx)


def _v_tags(text: str, ctx: Ctx) -> tuple[list[RawCall], str]:
    calls = tag_calls(text, ctx)
    return calls, "tool_call" if calls else ""


def _v_json(text: str, ctx: Ctx) -> tuple[list[RawCall], str]:
    calls = json_calls(text, ctx)
    return calls, "json" if calls else ""


def _v_python(text: str, ctx: Ctx) -> tuple[list[RawCall], str]:
    calls = python_calls(text, ctx)
    return calls, "python" if calls else ""


DISPATCH: dict[OutputFormat, tuple[Variant, ...]] = {
    "bfcl": (_v_bfcl, _v_tags, _v_json, react_calls, adhoc_calls, _v_python),
    "tool_call": (_v_tags, _v_json, react_calls, _v_bfcl, adhoc_calls, _v_python),
    "react": (react_calls, adhoc_calls, _v_json, _v_tags, _v_bfcl, _v_python),
    "json": (_v_json, _v_tags, react_calls, _v_bfcl, adhoc_calls, _v_python),
}
"""Per output format, the variants in the order they are tried (the format's own first)."""


def parse_tool_calls(
    text: str, fmt: OutputFormat, tools: list[ToolSpec] | None = None, *, report: bool = True
) -> ParseResult:
    """Calls in a model's text, read with the Appendix I variants in ``fmt``'s dispatch order.

    ``tools`` (optional) maps positional arguments to parameter names and keeps the bare-Python
    fallback to calls of listed tools. Unreadable parts are reported in ``ParseResult.dropped``
    (with ``report=False`` some may be left out there; the calls are the same).
    Never raises on any text: a text past the bounds (:mod:`robustcall.formats._bounds`) or one the
    readers fail on (a 5,000-digit integer, ``1e999 // 1``...) gives no calls and says why in
    ``ParseResult.refused``.
    """
    why = refusal(text)
    if why is not None:
        return ParseResult([], None, [why], refused=why)
    outer = start_work(len(text))  # the fast readers charge it too (one account for every reader)
    try:
        fast = _fast_read(text, fmt)
        if fast is not None and len(fast[0]) <= MAX_CALLS:  # past it, the parse below says why it refuses
            return ParseResult([read_call(name, args) for name, args in fast[0]], fast[1], [])
        return _bounded_parse(text, fmt, tools, report)
    finally:
        end_work(outer)


def _bounded_parse(text: str, fmt: OutputFormat, tools: list[ToolSpec] | None, report: bool) -> ParseResult:
    """:func:`parse_tool_calls` of a text within the length and depth bounds, in its open work account."""
    try:
        got = _parse_tool_calls(text, fmt, tools, report)
    except READ_ERRORS as exc:
        why = f"unreadable: {type(exc).__name__}: {str(exc)[:200]}"
    except ParseWorkExceeded as exc:
        why = str(exc)
    else:
        # a value nests no deeper than the text has openers; past that, JSON decoded out of
        # strings may nest deeper than the text's own brackets
        if text.count("(") + text.count("[") + text.count("{") <= MAX_NESTING:
            return got
        refused = calls_refusal([c.arguments for c in got.calls])
        if refused is None:
            return got
        why = refused
    return ParseResult([], None, [why], refused=why)


def _parse_tool_calls(text: str, fmt: OutputFormat, tools: list[ToolSpec] | None, report: bool) -> ParseResult:
    s = _plain_bfcl_list(text) if fmt == "bfcl" else None
    if s is not None:  # the common case, the flat canonical list or "[]": no dispatch needed
        flat = [] if s == "[]" else read_flat(s)
        if flat is not None:
            check_call_count(len(flat))
            return ParseResult([ToolCall(name=name, arguments=args) for name, args in flat], "bfcl", [])
    charge(len(text), "json")  # the canonical readers decode the text's JSON once
    canonical = canonical_calls(text, fmt)
    if canonical is not None:  # tagged JSON lines, a JSON blob or ReAct steps, as render_calls writes them
        check_call_count(len(canonical[0]))
        return ParseResult([ToolCall(name=name, arguments=args) for name, args in canonical[0]], canonical[1], [])
    return dispatch(text, fmt, tools, report)


def dispatch(text: str, fmt: OutputFormat, tools: list[ToolSpec] | None, report: bool = True) -> ParseResult:
    """The general path: the variants in ``fmt``'s dispatch order, fences first (no bounds
    checked, no fast path tried; :func:`parse_tool_calls` does both)."""
    ctx = Ctx(tools={t.name: t for t in tools} if tools else {}, report=report)
    body = strip_think(text)
    if not body.strip():
        return ParseResult([], None, [])
    fence = only_fence(body)
    # the text whose "no call" is the format's own: the fence's contents when the text is one fence
    main = body if fence is None else fence
    # identical blocks read alike: each distinct one once (33,000 empty fences took 55 ms)
    candidates = list(dict.fromkeys([*fenced_blocks(body), body])) if fence is None else [fence]
    try:
        order = DISPATCH.get(fmt, DISPATCH["json"])
        for variant in order:
            for cand in candidates:
                raw, name = variant(cand, ctx)
                if raw:
                    check_call_count(len(raw))
                    return ParseResult([_finish(c, ctx) for c in raw], name, ctx.dropped)
                if name and variant is order[0] and cand is main:
                    return ParseResult([], name, ctx.dropped)  # the format's own "no call", e.g. "[]"
                del ctx.dropped[:]  # what a variant that found nothing could not read is no news
    except RecursionError:
        ctx.drop("text nested too deeply to read")
    return ParseResult([], None, ctx.dropped)


def forget_texts() -> None:
    """Drop every table the readers keep of the last texts they read: the next parse of any text
    costs what a new answer's does (benchmarks time it so)."""
    _forget_bracket_tables()
    _forget_literal_tables()


def _plain_bfcl_list(text: str) -> str | None:
    """The bracketed list a BFCL answer is, as ``bfcl_calls`` strips it, when no fence or
    ``<think>`` asks for the full dispatch; else ``None``."""
    if "```" in text or ("<" in text and ("<think>" in text or "<THINK>" in text)):
        return None
    s = text.strip("`\n ").strip().strip("'")
    return s if s[:1] == "[" and s[-1:] == "]" else None


def _finish(raw: RawCall, ctx: Ctx) -> ToolCall:
    """The call with positional arguments mapped onto the schema and bare ``true`` / ``false`` /
    ``null`` decided by it (:func:`resolve_args`, the one place that does)."""
    args = raw.arguments
    if raw.positional:
        tool = ctx.tools.get(raw.name)
        names = list(tool.properties()) if tool is not None else []
        for i, value in enumerate(raw.positional):
            if value is MISSING:
                continue
            if i < len(names) and names[i] not in args:
                args[names[i]] = value
            else:
                why = "no tool schema" if tool is None else "no free parameter at that position"
                ctx.drop(f"{raw.name}: positional argument {i} = {value!r:.60} not mapped ({why})")
    if any(has_bare(v) for v in args.values()):
        args = resolve_args(args, ctx.tools.get(raw.name))
    return ToolCall(name=raw.name, arguments=args)


def read_tool_calls(
    text: str, fmt: OutputFormat, tools: list[ToolSpec] | None = None
) -> list[tuple[str, dict[str, Any]]]:
    """``parse_tool_calls(text, fmt, tools).calls`` as ``(name, arguments)`` pairs, for batch scoring.

    The common case of BFCL output (a bracketed list of calls with literal keyword arguments, no
    fence, no ``<think>``) is read directly by the fast reader, without the dispatch and without
    building ``ToolCall`` objects; anything else goes through :func:`parse_tool_calls`. Both give the
    same calls.
    """
    return read_tool_calls_shared(text, fmt, tools)[0]


def read_tool_calls_shared(
    text: str, fmt: OutputFormat, tools: list[ToolSpec] | None = None
) -> tuple[list[tuple[str, dict[str, Any]]], bool]:
    """:func:`read_tool_calls`, and whether the calls are the same for every ``tools`` (so that a
    batch may reuse them for the same text under another sample).

    ``tools`` reaches the result in three places only: positional arguments (mapped onto a schema;
    they need a ``(``), the bare-Python variant (calls of listed tools; a ``(``) and BFCL's decoded
    JSON shape ``{name: {...}}`` (a ``{``). The fast readers never use them (the BFCL one declines
    positional arguments; the canonical tagged, JSON-blob and ReAct renderings are read by their
    name keys). So a text read by a fast reader, or one with neither ``(`` nor ``{``, reads the same
    under any tool list; anything else is said to depend on it.
    """
    if len(text) <= MAX_PARSE_CHARS:  # else parse_tool_calls refuses it
        fast = _fast_read(text, fmt)
        if fast is not None:  # read by name keys only: no tool list reaches them
            return _bounded(fast[0]), True
        s = _plain_bfcl_list(text) if fmt == "bfcl" else None
        if s is not None and refusal(text) is None:
            # one work account for the token reading and the parse after it, which recalls it
            outer = start_work(len(text))
            try:
                try:
                    got = _token_bfcl(s)
                except READ_ERRORS:  # parse_tool_calls says why
                    got = None
                except ParseWorkExceeded:
                    got = None
                if got is not None:
                    return _bounded(got), True
                parsed = _bounded_parse(text, fmt, tools, False)
            finally:
                end_work(outer)
            return [(c.name, c.arguments) for c in parsed.calls], "(" not in text and "{" not in text
    calls = [(c.name, c.arguments) for c in parse_tool_calls(text, fmt, tools, report=False).calls]
    return calls, "(" not in text and "{" not in text


def _fast_read(text: str, fmt: OutputFormat) -> tuple[list[tuple[str, dict[str, Any]]], str] | None:
    """The calls and variant name of a text that a fast reader reads as :func:`parse_tool_calls`
    does (a flat plain BFCL list, or a canonical tagged / JSON-blob / ReAct rendering nesting within
    the bounds), past :data:`MAX_CALLS` too; ``None`` when they decline. No work account is needed:
    each reads the text once, in linear time."""
    if too_many_brackets(text):
        return None  # parse_tool_calls refuses it
    first = text[:1]  # a text that begins with one of these is no plain BFCL list: not stripped off
    s = _plain_bfcl_list(text) if fmt == "bfcl" and first != "<" and first != "{" and first != "A" else None
    if s == "[]":  # the explicit empty answer (many in BFCL's irrelevance categories): no reader needed
        return [], "bfcl"
    if s is not None:
        try:
            flat = read_flat(s)  # a flat list nests 3 deep: no depth to check
        except READ_ERRORS:  # parse_tool_calls says why
            flat = None
        if flat is not None:
            return flat, "bfcl"
    canonical = canonical_calls(text, fmt)
    # a canonical text's brackets are its JSON's (strings aside), so it nests no deeper than it
    # has [ and {: within the bounds, and so are its values
    if canonical is not None and text.count("[") + text.count("{") <= MAX_NESTING:
        return canonical
    return None


def _bounded(calls: list[tuple[str, dict[str, Any]]]) -> list[tuple[str, dict[str, Any]]]:
    """``calls``, or none past :data:`MAX_CALLS` (what ``parse_tool_calls`` gives: it refuses them)."""
    return calls if len(calls) <= MAX_CALLS else []


def _token_bfcl(s: str) -> list[tuple[str, dict[str, Any]]] | None:
    """The calls of a plain BFCL list (``s``: as ``_plain_bfcl_list`` gives it) that is not flat,
    read by the token reader; ``None`` when it declines."""
    if s == "[]":
        return []
    fast = token_calls(s)
    if fast is not None:
        out = []
        for c in fast.calls:
            if c.positional or any(has_bare(v) for v in c.arguments.values()):
                break  # mapped onto / decided by the schema in parse_tool_calls
            out.append((c.name, c.arguments))
        else:
            return out  # [] for an explicit "[]"
    return None
