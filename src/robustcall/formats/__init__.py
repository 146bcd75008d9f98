"""Prompt rendering per output format, and format-tolerant parsing back to ``ToolCall``s.

Parsing never executes model text: Python-looking output is read by walking ``ast`` nodes (or a
token reader for the common literal case) and JSON with :mod:`json`.
"""

from robustcall.formats._bounds import MAX_NESTING, MAX_PARSE_CHARS, calls_refusal
from robustcall.formats._parse import DISPATCH, parse_tool_calls, read_tool_calls, read_tool_calls_shared
from robustcall.formats._pyvalues import UNREADABLE
from robustcall.formats._render import (
    DEFAULT_FORMATS,
    render_calls,
    render_messages,
    render_observation,
    render_system_prompt,
    sample_format,
)
from robustcall.formats._types import OUTPUT_FORMATS, OutputFormat, ParseResult

__all__ = [
    "DEFAULT_FORMATS",
    "DISPATCH",
    "MAX_NESTING",
    "MAX_PARSE_CHARS",
    "OUTPUT_FORMATS",
    "UNREADABLE",
    "OutputFormat",
    "ParseResult",
    "calls_refusal",
    "parse_tool_calls",
    "read_tool_calls",
    "read_tool_calls_shared",
    "render_calls",
    "render_messages",
    "render_observation",
    "render_system_prompt",
    "sample_format",
]
