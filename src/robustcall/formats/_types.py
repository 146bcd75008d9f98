"""Closed vocabularies and the parse result."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from robustcall.core import ToolCall, ToolSpec

OutputFormat = Literal["bfcl", "tool_call", "react", "json"]
"""Prompt-mode output formats of Table 3: BFCL AST ``[f(a=1)]``, ``<tool_call>{json}</tool_call>``,
ReAct ``Action: X / Action Input: {json}``, and a bare JSON object."""

OUTPUT_FORMATS: tuple[OutputFormat, ...] = ("bfcl", "tool_call", "react", "json")


@dataclass(frozen=True)
class ParseResult:
    """What :func:`parse_tool_calls` read out of a model's text."""

    calls: list[ToolCall]
    """The calls, in the order the text gives them (``[]`` when no variant found any)."""
    variant: str | None
    """The Appendix I variant that matched (e.g. ``bfcl``, ``bfcl_colon``, ``tool_call``, ``react``,
    ``json``, ``python``), ``None`` when none did."""
    dropped: list[str] = field(default_factory=list)
    """What could not be read (an unsupported argument expression, a positional argument with no
    schema slot, an undecodable ``Action Input``...), said rather than silently dropped."""
    refused: str | None = None
    """Why the whole text was not read (past the parser's bounds, or unreadable), else ``None``: the
    answer is then a model-format error, scored as no call."""


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()
"""A positional argument that could not be read: it keeps its slot but yields no argument."""


@dataclass
class RawCall:
    """A call as a variant read it, before positional arguments are mapped to the schema."""

    name: str
    arguments: dict[str, Any]
    positional: list[Any] = field(default_factory=list)


@dataclass
class Ctx:
    """Per-parse context: the tool schemas (for positional arguments) and the dropped-report list."""

    tools: dict[str, ToolSpec]
    dropped: list[str] = field(default_factory=list)
    report: bool = True
    """False when nobody reads ``dropped`` (batch scoring): costly messages may then be skipped."""

    def drop(self, what: str) -> None:
        self.dropped.append(what)
