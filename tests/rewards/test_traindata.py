"""Obfuscation (§4): random names, consistent everywhere, schema keys reordered, gold still correct."""

from __future__ import annotations

from robustcall.core import EvalConfig, GoldenAnswer, Message, Sample, SourceInfo, ToolCall, ToolSpec
from robustcall.rewards import calls_text, obfuscate
from robustcall.rewards._bench import is_correct
from robustcall.score import SampleScorer

SAMPLE = Sample(
    id="x1",
    benchmark="apibank",
    category="level-1",
    source=SourceInfo(original_id="x1", benchmark="apibank"),
    conversation=[
        Message(role="user", content="Use QueryStock for AAPL then get_time."),
        Message(role="assistant", content="", tool_calls=[ToolCall(name="QueryStock", arguments={"symbol": "MSFT"})]),
        Message(role="tool", name="QueryStock", content="42"),
        Message(role="user", content="Now AAPL please"),
    ],
    tools=[
        ToolSpec(
            name="QueryStock",
            description="Stock price.",
            parameters={
                "type": "object",
                "properties": {"symbol": {"type": "string"}, "date": {"type": "string"}},
                "required": ["symbol"],
            },
        ),
        ToolSpec(name="get_time", parameters={"type": "object", "properties": {}}),
    ],
    golden_answers=[GoldenAnswer(name="QueryStock", parameters={"symbol": "AAPL"})],
    eval_config=EvalConfig(method="exact"),
)


def test_obfuscation_renames_consistently_and_is_seeded() -> None:
    hidden = obfuscate(SAMPLE, seed=3)
    assert hidden == obfuscate(SAMPLE, seed=3)
    assert hidden != obfuscate(SAMPLE, seed=4)
    fname = hidden.golden_answers[0].name
    assert fname not in {"QueryStock", "get_time"} and 7 <= len(fname) <= 12
    tool = hidden.tool(fname)
    assert tool is not None and tool.description == "Stock price."
    (pname,) = hidden.golden_answers[0].parameters
    assert pname in tool.properties() and tool.required() == [pname]
    assert set(tool.properties()) & {"symbol", "date"} == set()
    assert fname in hidden.conversation[0].content and "QueryStock" not in hidden.conversation[0].content
    assert hidden.conversation[1].tool_calls is not None and hidden.conversation[1].tool_calls[0].name == fname
    assert hidden.conversation[2].name == fname
    scorer = SampleScorer(hidden)
    assert is_correct(scorer, calls_text([g.as_call() for g in hidden.golden_answers]))


def test_schema_keys_are_reordered_for_some_seed() -> None:
    orders = {tuple(obfuscate(SAMPLE, seed=s).tools[0].parameters) for s in range(8)}
    assert len(orders) > 1
