"""Obfuscation (§4): random names, consistent everywhere, schema keys reordered, gold still correct."""

from __future__ import annotations

from robustcall.core import EvalConfig, GoldenAnswer, Message, Sample, SourceInfo, ToolCall, ToolSpec
from robustcall.rewards import calls_text, obfuscate
from robustcall.rewards._rewardbench import is_correct
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


NO_CALL = SAMPLE.model_copy(
    update={
        "id": "irr1",
        "conversation": [Message(role="user", content="Tell me a joke about stocks.")],
        "golden_answers": [],
    }
)


def test_rm_training_data_keeps_no_call_samples_with_an_irrelevance_pair() -> None:
    from robustcall.rewards import IRRELEVANCE_ERROR, assemble, toolrm_messages

    pool = {
        "irr1": [("gen", "Sure, here is a joke: ..."), ("gen", '[{"name": "get_time", "arguments": {}}]')],
        "x1": [("gen", '[{"name": "QueryStock", "arguments": {"symbol": "MSFT"}}]')],
    }
    (irr, rel) = assemble([NO_CALL, SAMPLE], pool, seed=0, irrelevance=True)
    assert (irr.test_id, irr.chosen_output, irr.error_type) == ("irr1", "[]", IRRELEVANCE_ERROR)
    assert irr.rejected_output == '[{"name": "get_time", "arguments": {}}]' and irr.model_name == "gen"
    assert rel.test_id == "x1" and rel.error_type == "Incorrect Parameter Value"
    # FC-RewardBench keeps queries with possible answers only
    assert [p.test_id for p in assemble([NO_CALL, SAMPLE], pool, seed=0)] == ["x1"]
    # without a pool draw that calls, a top-up calls the catalog's first tool
    (topped,) = assemble([NO_CALL], {}, seed=0, irrelevance=True, top_up=True, size=1)
    assert topped.rejected_output == '[{"name": "QueryStock", "arguments": {}}]'
    assert topped.model_name == "synthetic:Irrelevance error"
    # the RM sees "no call" as Listing 1's empty call list
    msgs = toolrm_messages(irr.conversation, irr.tools, irr.chosen_output)
    assert msgs[-1] == {"role": "assistant", "content": "```json\n[]\n```"}
