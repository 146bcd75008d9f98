"""Reading ReAct-style gold steps and the tool list of a ToolBench-style ReAct system prompt."""

from __future__ import annotations

import json
import re
from typing import Any

from robustcall.core import ToolSpec
from robustcall.sources._common import decode_json_list_at

TOOLS_MARKER = "you have access of the following tools:\n"
"""Where the JSON tool list starts in the RoTBench / ToolEyes system prompt (their spelling)."""

_STEP = re.compile(r"^Thought:(?P<thought>.*?)\nAction: (?P<action>.*?)\nAction Input: (?P<input>.*)$", re.S)


def parse_react_step(text: str) -> tuple[str, dict[str, Any] | None] | None:
    """``Thought: …\\nAction: X\\nAction Input: {json}`` -> ``(X, arguments)``.

    ``None`` when the text is not such a step; arguments ``None`` when the input is not a JSON object.
    """
    m = _STEP.match(text.strip())
    if m is None:
        return None
    return m.group("action").strip(), parse_action_input(m.group("input"))


def parse_action_input(text: str) -> dict[str, Any] | None:
    """A JSON object of arguments, or ``None`` when ``text`` is not one."""
    try:
        value = json.loads(text.strip())
    except json.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None


def tools_from_system_prompt(system: str) -> list[ToolSpec] | None:
    """The JSON tool list of a ReAct system prompt, or ``None`` when there is none to read."""
    found = decode_json_list_at(system, TOOLS_MARKER)
    if found is None:
        return None
    tools, _ = found
    return [ToolSpec.model_validate(t) for t in tools]
