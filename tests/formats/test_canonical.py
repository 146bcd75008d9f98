"""The fast path for canonical renderings gives what the general readers give, or declines."""

from __future__ import annotations

import json
import random
from typing import Any

from robustcall.core import ToolCall, ToolSpec
from robustcall.formats import OutputFormat, parse_tool_calls, render_calls
from robustcall.formats._canonical import canonical_calls
from robustcall.formats._parse import dispatch, read_tool_calls_shared

FORMATS: tuple[OutputFormat, ...] = ("bfcl", "tool_call", "react", "json")
TOOLS = [
    ToolSpec(name="get_weather", parameters={"type": "dict", "properties": {"city": {"type": "string"}}}),
    ToolSpec(name="x**2", parameters={"type": "dict", "properties": {}}),
]
# pieces of string values that other readers react to: BFCL lists, tags, fences, ReAct labels,
# colons after a name (the colon variant), quotes, escapes, prose with a query string
_PIECES = [
    "Paris", "New York, NY", "[f(a=1)]", "[get_weather(city='x')]", "<tool_call>", "</tool_call>", "<tool x>",
    "```", "<think>no</think>", "Action: f", "\nAction Input: {}", "(note: x)", "a, b: c", "it's", 'say "hi"',
    "back\\slash", "tab\there", "é ü 中", "get_weather", "x**2", "search?q=1&p=2", "{\"name\": \"g\"}", "",
    "Function: f\nParameters: {}", "e.g(1)", "TRUE", "null", " padded ",
]  # fmt: skip
_NAMES = ["get_weather", "math.factorial", "x**2", "spotify-play", "f", "get_weather ", "ä_tool", "Action", "[f(x=1)]"]


def _value(rng: random.Random, depth: int = 0) -> Any:
    k = rng.randrange(9 if depth < 3 else 6)
    if k == 0:
        return rng.randrange(-(10**6), 10**6)
    if k == 1:
        return rng.choice([0.5, -2.25, 1e-7, 3.0, 1e300, 10**25, -(10**20)])
    if k == 2:
        return rng.choice([True, False, None])
    if k in (3, 4, 5):
        return "".join(rng.choice(_PIECES) for _ in range(rng.randrange(1, 3)))
    if k in (6, 7):
        return [_value(rng, depth + 1) for _ in range(rng.randrange(0, 3))]
    keys = ["name", "function", "tool", "parameters", "a", "city", "action_input", "tool_calls"]
    return {rng.choice(keys): _value(rng, depth + 1) for _ in range(rng.randrange(0, 3))}


def _calls(rng: random.Random) -> list[ToolCall]:
    out = []
    for _ in range(rng.randrange(1, 4)):
        args = {rng.choice(["city", "name", "function", "n", "a b", "tool_calls", "x"]): _value(rng) for _ in range(3)}
        out.append(ToolCall(name=rng.choice(_NAMES), arguments=args))
    return out


def _mutations(text: str, rng: random.Random) -> list[str]:
    """Near-canonical texts: each must be read by the general readers or, if by the fast path, alike."""
    cut = rng.randrange(len(text) + 1)
    return [
        text,
        " " + text,
        text + "\n",
        text.replace("\n", "\r\n"),
        text.replace('"parameters"', '"arguments"'),
        text.replace('"name"', '"tool"'),
        text.replace("<tool_call>", "<TOOL_CALL>"),
        text.replace("Action: ", "Action:  "),
        text.replace("Action: ", "**Action**: "),
        text[:cut] + "\n" + text[cut:],
        text[:cut] + "[g(a=1)]" + text[cut:],
        text[:cut] + "<tool>" + text[cut:],
        text[:cut] + "```" + text[cut:],
        "<think>x</think>" + text,
        text + "\n" + text,
    ]


def _shape(calls: list[tuple[str, dict[str, Any]]]) -> str:
    return repr(calls)  # repr tells 1 from 1.0 from True, and keeps key order


def test_fast_path_equals_the_general_readers_on_generated_texts() -> None:
    rng = random.Random(20)
    taken = declined = 0
    for _ in range(600):
        calls = _calls(rng)
        for style in ("tool_call", "react", "json"):
            rendered = render_calls(calls, style)  # type: ignore[arg-type]
            for text in _mutations(rendered, rng):
                for fmt in FORMATS:
                    fast = canonical_calls(text, fmt)
                    if fast is None:
                        declined += 1
                        continue
                    taken += 1
                    general = dispatch(text, fmt, TOOLS)
                    assert _shape([(c.name, c.arguments) for c in general.calls]) == _shape(fast[0]), (text, fmt)
                    assert general.variant == fast[1] and general.dropped == [], (text, fmt)
                    for tools in (None, TOOLS):  # the batch reader's answer, whatever the tool list
                        assert read_tool_calls_shared(text, fmt, tools) == (fast[0], True)
    assert taken > 5000 and declined > 20000  # both paths were exercised


def test_the_canonical_shapes_are_read_by_the_fast_path() -> None:
    calls = [ToolCall(name="get_weather", arguments={"city": "Paris", "days": [1, 2.5]}), ToolCall(name="f")]
    want = [("get_weather", {"city": "Paris", "days": [1, 2.5]}), ("f", {})]
    for style, fmts in (
        ("tool_call", ("bfcl", "tool_call")),
        ("json", ("bfcl", "tool_call", "json")),
        ("react", FORMATS),
    ):
        text = render_calls(calls, style)  # type: ignore[arg-type]
        for fmt in fmts:
            assert canonical_calls(text, fmt) == (want, style), (style, fmt)
            got = parse_tool_calls(text, fmt)
            assert [(c.name, c.arguments) for c in got.calls] == want and got.variant == style
    one = render_calls(calls[:1], "json")
    assert one.startswith("{") and canonical_calls(one, "bfcl") == (want[:1], "json")


def test_what_the_fast_path_declines() -> None:
    tagged = '<tool_call>\n{"name": "f", "parameters": {"q": "[g(a=1)]"}}\n</tool_call>'
    assert canonical_calls(tagged, "bfcl") is None  # the BFCL variant reads the embedded list first
    assert [c.name for c in parse_tool_calls(tagged, "bfcl").calls] == ["g"]
    assert canonical_calls(tagged.replace("[g(a=1)]", "x"), "bfcl") is not None
    for text in (
        '<tool_call>\n{"name": "f", "parameters": {}, "id": 1}\n</tool_call>',  # another key
        '<tool_call>\n{"name": "f", "parameters": "{}"}\n</tool_call>',  # arguments as a JSON string
        '<tool_call>\n{"name": " ", "parameters": {}}\n</tool_call>',  # no name
        '<tool_call>\n{"name": "f", "parameters": {}}\n<tool_call>\n{"name": "g", "parameters": {}}\n</tool_call>',
        '{"name": "f", "parameters": {"n": NaN}} and more',
        '[{"name": "f", "parameters": {}}, 1]',
        "[]",
        'Action: f\nAction Input: {"a": 1}\nObservation: ok',
        'Action: f g\nAction Input: {"a": 1}',
        'Action: f\nAction Input: ["a"]',
    ):
        for fmt in FORMATS:
            assert canonical_calls(text, fmt) is None, (text, fmt)
    # a tagged text under the react dispatch, a blob under it: the general readers decide
    assert canonical_calls(render_calls([ToolCall(name="f")], "tool_call"), "react") is None
    assert canonical_calls(render_calls([ToolCall(name="f")], "json"), "react") is None


def test_bounds_still_apply_on_the_fast_path() -> None:
    deep: Any = 1
    for _ in range(120):
        deep = [deep]
    text = render_calls([ToolCall(name="f", arguments={"a": deep})], "tool_call")
    assert canonical_calls(text, "tool_call") is not None  # shape-wise canonical...
    result = parse_tool_calls(text, "tool_call")
    assert result.calls == [] and result.refused is not None and "nested" in result.refused  # ...but refused
    assert read_tool_calls_shared(text, "tool_call")[0] == []
    long = render_calls([ToolCall(name="f", arguments={"a": "x" * 100_001})], "json")
    assert parse_tool_calls(long, "json").refused is not None
    assert read_tool_calls_shared(long, "json")[0] == []
    assert json.loads(long)["parameters"]["a"] == "x" * 100_001
