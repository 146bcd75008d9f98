# ruff: noqa: E501  (test data: long literal model outputs)
"""Every Appendix I parser variant, fences, positional arguments, and adversarial text."""

from __future__ import annotations

from typing import Any

import pytest

from robustcall.core import ToolCall, ToolSpec
from robustcall.formats import OutputFormat, parse_tool_calls

TOOLS = [
    ToolSpec(
        name="get_weather",
        parameters={
            "type": "dict",
            "properties": {"city": {"type": "string"}, "days": {"type": "integer"}, "unit": {"type": "string"}},
            "required": ["city"],
        },
    ),
    ToolSpec(name="mutation_type.find", parameters={"type": "dict", "properties": {"snp_id": {"type": "string"}}}),
]


def _calls(text: str, fmt: OutputFormat, tools: list[ToolSpec] | None = TOOLS) -> list[tuple[str, dict[str, Any]]]:
    return [(c.name, c.arguments) for c in parse_tool_calls(text, fmt, tools).calls]


CASES: list[tuple[str, OutputFormat, str, list[tuple[str, dict[str, Any]]]]] = [
    # BFCL AST
    ("[get_weather(city='Paris', days=3)]", "bfcl", "bfcl", [("get_weather", {"city": "Paris", "days": 3})]),
    (
        "[mutation_type.find(snp_id='rs1'), get_weather(city=\"Rome\")]",
        "bfcl",
        "bfcl",
        [("mutation_type.find", {"snp_id": "rs1"}), ("get_weather", {"city": "Rome"})],
    ),
    ("[get_weather(city:'Oslo', days:2)]", "bfcl", "bfcl_colon", [("get_weather", {"city": "Oslo", "days": 2})]),
    (
        '[func_name="get_weather", params={"city": "Lima"}]',
        "bfcl",
        "bfcl_keyword_list",
        [("get_weather", {"city": "Lima"})],
    ),
    ("get_weather(city='Kyiv')", "bfcl", "bfcl_unbracketed", [("get_weather", {"city": "Kyiv"})]),
    ("```python\n[get_weather(city='Bern')]\n```", "bfcl", "bfcl", [("get_weather", {"city": "Bern"})]),
    ("Sure, here it is: [get_weather(city='Nice')]", "bfcl", "bfcl", [("get_weather", {"city": "Nice"})]),
    (
        "[get_weather(city='X', days=2*3, unit=C)]",
        "bfcl",
        "bfcl",
        [("get_weather", {"city": "X", "days": 6, "unit": "C"})],
    ),
    # <tool_call> and its variants
    (
        '<tool_call>\n{"name": "get_weather", "parameters": {"city": "Pisa"}}\n</tool_call>',
        "tool_call",
        "tool_call",
        [("get_weather", {"city": "Pisa"})],
    ),
    (
        '<tool_call>\n{"name": "get_weather", "parameters": {"city": "A"}}\n{"name": "get_weather", "arguments": {"city": "B"}}\n</tool_call>',
        "tool_call",
        "tool_call",
        [("get_weather", {"city": "A"}), ("get_weather", {"city": "B"})],
    ),
    (
        '<tool_call>[{"name": "get_weather", "parameters": {"city": "A"}}, {"name": "get_weather", "parameters": {"city": "B"}}]</tool_call>',
        "tool_call",
        "tool_call",
        [("get_weather", {"city": "A"}), ("get_weather", {"city": "B"})],
    ),
    (
        '<tool_call>{"name": "get_weather", "parameters": {"city": "A"}}</tool_call>\n<tool_call>{"name": "get_weather", "parameters": {"city": "B"}}</tool_call>',
        "tool_call",
        "tool_call",
        [("get_weather", {"city": "A"}), ("get_weather", {"city": "B"})],
    ),
    ('<tool>get_weather</tool>\n{"city": "Riga"}', "tool_call", "tool_call", [("get_weather", {"city": "Riga"})]),
    (
        '<tool name="get_weather" parameters={"city": "Turin"}/>',
        "tool_call",
        "tool_call",
        [("get_weather", {"city": "Turin"})],
    ),
    (
        '<toolcall tool="get_weather">{"city": "Graz"}</toolcall>',
        "tool_call",
        "tool_call",
        [("get_weather", {"city": "Graz"})],
    ),
    (
        '<tool_call tool_name="get_weather">{"city": "Linz"}</tool_call>',
        "tool_call",
        "tool_call",
        [("get_weather", {"city": "Linz"})],
    ),
    (
        '<think>maybe <tool_call>{"name": "nope"}</tool_call></think>\n<tool_call>{"name": "get_weather", "parameters": {"city": "Ulm"}}</tool_call>',
        "tool_call",
        "tool_call",
        [("get_weather", {"city": "Ulm"})],
    ),
    # ReAct
    (
        'Thought: need weather\nAction: get_weather\nAction Input: {"city": "Bonn"}',
        "react",
        "react",
        [("get_weather", {"city": "Bonn"})],
    ),
    (
        'Action: get_weather\nAction Input: {"city": "A"}\nObservation: ok\nAction: get_weather\nAction Input: {"city": "B"}',
        "react",
        "react",
        [("get_weather", {"city": "A"}), ("get_weather", {"city": "B"})],
    ),
    ("ActionCode: gw_alias\nAction Input: {}", "react", "react_actioncode", [("gw_alias", {})]),
    # ToolAlpaca ad-hoc
    ('get_weather: {"city": "Faro"}', "react", "adhoc_name_json", [("get_weather", {"city": "Faro"})]),
    (
        'Function: get_weather\nParameters: {"city": "Cork"}',
        "react",
        "adhoc_function_parameters",
        [("get_weather", {"city": "Cork"})],
    ),
    (
        "I will call get_weather?city=Gent&days=2",
        "react",
        "adhoc_query_string",
        [("get_weather", {"city": "Gent", "days": "2"})],
    ),
    # JSON blobs
    (
        '{"function": "get_weather", "parameters": {"city": "Baku"}}',
        "json",
        "json",
        [("get_weather", {"city": "Baku"})],
    ),
    ('{"tool_name": "get_weather", "args": {"city": "Oran"}}', "json", "json", [("get_weather", {"city": "Oran"})]),
    (
        '{"action": "get_weather", "action_input": {"city": "Sfax"}}',
        "json",
        "json",
        [("get_weather", {"city": "Sfax"})],
    ),
    (
        '[{"type": "function", "function": {"name": "get_weather", "arguments": "{\\"city\\": \\"Nis\\"}"}}]',
        "json",
        "json",
        [("get_weather", {"city": "Nis"})],
    ),
    (
        '```json\n{"name": "get_weather", "arguments": {"city": "Split"}}\n```',
        "bfcl",
        "json",
        [("get_weather", {"city": "Split"})],
    ),
    ("{'name': 'get_weather', 'parameters': {'city': 'Bari'}}", "json", "json", [("get_weather", {"city": "Bari"})]),
    # bare Python
    ("Let me do it.\nresult = get_weather(city='Hue')\nDone.", "react", "python", [("get_weather", {"city": "Hue"})]),
]


@pytest.mark.parametrize(("text", "fmt", "variant", "expected"), CASES, ids=[c[2] + ":" + c[0][:30] for c in CASES])
def test_variant_is_read(
    text: str, fmt: OutputFormat, variant: str, expected: list[tuple[str, dict[str, Any]]]
) -> None:
    result = parse_tool_calls(text, fmt, TOOLS)
    assert [(c.name, c.arguments) for c in result.calls] == expected
    assert result.variant == variant


def test_positional_args_map_to_schema_parameter_order() -> None:
    result = parse_tool_calls("[get_weather('Paris', 3)]", "bfcl", TOOLS)
    assert result.calls == [ToolCall(name="get_weather", arguments={"city": "Paris", "days": 3})]
    assert result.dropped == []


def test_positional_arg_without_a_slot_is_reported_not_silently_dropped() -> None:
    result = parse_tool_calls("[get_weather('Paris', 3, 'C', 'extra')]", "bfcl", TOOLS)
    assert result.calls[0].arguments == {"city": "Paris", "days": 3, "unit": "C"}
    assert any("positional argument 3" in d for d in result.dropped)
    unknown = parse_tool_calls("[other_tool('x')]", "bfcl", TOOLS)
    assert unknown.calls[0].arguments == {}
    assert any("no tool schema" in d for d in unknown.dropped)


def test_adversarial_code_is_never_executed(tmp_path: Any) -> None:
    marker = tmp_path / "pwned"
    payloads = [
        f"[get_weather(city=__import__('os').system('touch {marker}'))]",
        f"[get_weather(city=(lambda: __import__('os').system('touch {marker}'))())]",
        f"get_weather(city=[x for x in __import__('os').popen('touch {marker}')])",
        f'<tool_call>{{"name": "get_weather", "parameters": "__import__(\'os\').system(\'touch {marker}\')"}}</tool_call>',
        f"Action: get_weather\nAction Input: __import__('os').system('touch {marker}')",
        f"[get_weather(city=exec(\"open('{marker}','w')\"))]",
        "[get_weather(city=9**9**9**9)]",
    ]
    for fmt in ("bfcl", "tool_call", "react", "json"):
        for text in payloads:
            result = parse_tool_calls(text, fmt, TOOLS)  # type: ignore[arg-type]
            for call in result.calls:
                for value in call.arguments.values():
                    assert isinstance(value, str | int | float | list | dict | None)
    assert not marker.exists()
    first = parse_tool_calls(payloads[0], "bfcl", TOOLS)
    assert first.calls[0].arguments["city"] == f"__import__('os').system('touch {marker}')"
    comp = parse_tool_calls(payloads[2], "bfcl", TOOLS)
    # unreadable values keep their place as a marker that fails the call (never executed, never lost)
    assert list(comp.calls[0].arguments) == ["city"] and any("ListComp" in d for d in comp.dropped)
    assert comp.calls[0].arguments["city"]["__unreadable__"].startswith("ListComp: [x for x in")
    power = parse_tool_calls(payloads[-1], "bfcl", TOOLS)
    assert power.calls[0].arguments == {"city": {"__unreadable__": "power too large: 9 ** 9 ** 9 ** 9"}}


def test_no_call_in_prose_gives_empty_list() -> None:
    for fmt in ("bfcl", "tool_call", "react", "json"):
        result = parse_tool_calls("I cannot help with that (sorry).", fmt, TOOLS)  # type: ignore[arg-type]
        assert result.calls == [] and result.variant is None
    assert parse_tool_calls("   ", "bfcl").calls == []
    explicit = parse_tool_calls("[]", "bfcl", TOOLS)
    assert explicit.calls == [] and explicit.variant == "bfcl"


def test_dispatch_order_prefers_the_formats_own_variant() -> None:
    text = 'Action: get_weather\nAction Input: {"city": "A"}\n{"name": "get_weather", "parameters": {"city": "B"}}'
    assert _calls(text, "react") == [("get_weather", {"city": "A"})]
    assert _calls(text, "json") == [("get_weather", {"city": "B"})]


def test_a_react_answer_is_read_as_react_under_every_dispatch() -> None:
    # The Action Input is the step's arguments even when it has a key the JSON-blob reader takes
    # for a tool name ("function", "name", "tool"...): once read as a call of "x**2" under the
    # BFCL, tool_call and json dispatches (where the JSON-blob variant runs before ReAct).
    text = (
        'Thought: integrate it\nAction: integrate\nAction Input: {"function": "x**2", "start_x": 1, "end_x": 3}\n'
        'Action: get_weather\nAction Input: {"name": "Paris", "args": {"tool": "t"}}'
    )
    expected = [
        ("integrate", {"function": "x**2", "start_x": 1, "end_x": 3}),
        ("get_weather", {"name": "Paris", "args": {"tool": "t"}}),
    ]
    for fmt in ("bfcl", "tool_call", "react", "json"):
        result = parse_tool_calls(text, fmt, TOOLS)  # type: ignore[arg-type]
        assert [(c.name, c.arguments) for c in result.calls] == expected
        assert result.variant == "react"
    # a JSON blob beside the steps is still a blob: the json dispatch reads it first
    blob = 'Action: get_weather\nAction Input: {"name": "A"}\n{"name": "get_weather", "parameters": {"city": "B"}}'
    assert _calls(blob, "json") == [("get_weather", {"city": "B"})]
    assert _calls(blob, "react") == [("get_weather", {"name": "A"})]


def test_undecodable_action_input_is_reported() -> None:
    result = parse_tool_calls("Action: get_weather\nAction Input: city is Paris", "react", TOOLS)
    assert result.calls == [ToolCall(name="get_weather", arguments={})]
    assert result.dropped and "Action Input" in result.dropped[0]


def test_fast_reader_and_ast_path_agree() -> None:
    from robustcall.formats._bfcl import _ast_calls
    from robustcall.formats._callreader import read_calls
    from robustcall.formats._types import Ctx

    texts = [
        "[f(a=1, b=-2.5, c='x\\'y', d=\"q\", e=[1, [2, {'k': None}]], g={'a': True, 1: 'v'}, h=1e3, i=.5)]",
        "[a.b.c(x=[], y={}), d(z='')]",
        "[f(a=name_like, b=False)]",
        # the flat shape (one regex) and its edges
        "[f(a='x', b=\"y\", c=-3, d=0, e=1.5e-3, g=None, h=True, i=name)]",
        "[ f ( a = 1 , ) , g.h() , ]",
        "[f(a=-0, b=0.0, c=10E2)]",
        "[f(a='x(y=1)', b='[1]')]",
        "[f(a=1.)]",
        "[f(a=.5)]",
        # flat lists of scalars; one or two calls of up to 8 arguments are read by one grouped match
        "[f(a=[1, 'x', \"y\", None, -2.5e3, name], b=[], c=[ 1 , 2 , ])]",
        "[f(a=1), g.h(b=[True], c='z')]",
        "[f(a=1, b=2, c=3, d=4, e=5, g=6, h=7, i=8)]",
        "[f(a=1, b=2, c=3, d=4, e=5, g=6, h=7, i=8, j=9)]",
        "[f(a=1), g(b=2), h(c=[3])]",
        "[f(), g()]",
    ]
    for text in texts:
        fast = read_calls(text)
        slow = _ast_calls(text, Ctx({}))
        assert fast is not None and slow is not None, text
        assert [(c.name, c.arguments) for c in fast.calls] == [(c.name, c.arguments) for c in slow], text
    for text in [
        "[f(a=007)]",
        "[f(a=g(b=1))]",
        "[f(a=1 b=2)]",
        "[f(a=)]",
        "[f(,)]",
        "[f(a='x)]",
        "[f(a='it''s')]",
        "[f(a=b.c)]",
        "[f(a=[,])]",
        "[f(a=[1 2])]",
        "[f(a=1)(b=2)]",
    ]:
        assert read_calls(text) is None, text  # left to the ast path


def test_a_query_string_call_reads_at_most_max_query_fields() -> None:
    from robustcall.formats._react import MAX_QUERY_FIELDS

    def query(n: int) -> str:
        return "Function: f\nParameters: " + "&".join(f"p{i}={i}" for i in range(n))

    got = parse_tool_calls(query(MAX_QUERY_FIELDS), "react")
    assert got.refused is None and len(got.calls) == 1 and len(got.calls[0].arguments) == MAX_QUERY_FIELDS
    over = parse_tool_calls(query(MAX_QUERY_FIELDS + 1), "react")
    assert over.calls == [] and over.refused is not None and "Max number of fields exceeded" in over.refused
