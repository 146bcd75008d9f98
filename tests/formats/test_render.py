"""Prompt rendering per output format, and the render -> parse round trip."""

from __future__ import annotations

from typing import Any

import pytest

from robustcall.core import EvalConfig, GoldenAnswer, Message, Sample, SourceInfo, ToolCall, ToolSpec
from robustcall.formats import (
    OUTPUT_FORMATS,
    OutputFormat,
    parse_tool_calls,
    render_calls,
    render_messages,
    render_system_prompt,
)

TOOL = ToolSpec(
    name="math.gcd",
    description="Greatest common divisor.",
    parameters={
        "type": "dict",
        "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
        "required": ["a", "b"],
    },
)
CALLS = [
    ToolCall(name="math.gcd", arguments={"a": 12, "b": 18}),
    ToolCall(
        name="math.gcd", arguments={"a": 3, "b": -4, "note": 'it\'s "quoted"', "xs": [1.5, None, True], "d": {"k": "v"}}
    ),
]


@pytest.mark.parametrize("fmt", OUTPUT_FORMATS)
def test_render_then_parse_round_trips(fmt: OutputFormat) -> None:
    text = render_calls(CALLS, fmt)
    assert parse_tool_calls(text, fmt, [TOOL]).calls == CALLS
    single = render_calls(CALLS[:1], fmt)
    assert parse_tool_calls(single, fmt, [TOOL]).calls == CALLS[:1]


def test_system_prompts_name_the_tools_and_the_format() -> None:
    assert "[func_name1(params_name1=params_value1" in render_system_prompt([TOOL], "bfcl")
    assert "<tool_call>" in render_system_prompt([TOOL], "tool_call")
    assert "Action Input:" in render_system_prompt([TOOL], "react")
    for fmt in OUTPUT_FORMATS:
        assert "math.gcd" in render_system_prompt([TOOL], fmt)
    with pytest.raises(ValueError, match="unknown output format"):
        render_system_prompt([TOOL], "yaml")  # type: ignore[arg-type]


def _sample(conversation: list[Message], **cfg: Any) -> Sample:
    return Sample(
        id="s",
        benchmark="b",
        category="c",
        source=SourceInfo(original_id="1", benchmark="b"),
        conversation=conversation,
        tools=[TOOL],
        golden_answers=[GoldenAnswer(name="math.gcd", parameters={"a": 1, "b": 2})],
        eval_config=EvalConfig(method="bfcl_ast", **cfg),
    )


def test_render_messages_prompt_merges_system_and_writes_calls_as_text() -> None:
    conv = [
        Message(role="system", content="Be terse."),
        Message(role="user", content="gcd of 12 and 18?"),
        Message(role="assistant", tool_calls=[CALLS[0]]),
        Message(role="tool", name="math.gcd", content="6"),
    ]
    msgs = render_messages(_sample(conv), "prompt")
    assert [m.role for m in msgs] == ["system", "user", "assistant", "user"]
    assert msgs[0].content.startswith("You are an expert in composing functions") and msgs[0].content.endswith(
        "Be terse."
    )
    assert msgs[2].content == "[math.gcd(a=12, b=18)]" and msgs[2].tool_calls is None
    assert "6" in msgs[3].content
    react = render_messages(_sample(conv, output_format="react"), "prompt")
    assert react[3].content == "Observation: 6"


def test_render_messages_fc_is_the_conversation() -> None:
    conv = [Message(role="user", content="hi")]
    assert render_messages(_sample(conv), "fc") == conv
