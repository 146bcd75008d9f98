"""The 8-type classifier on hand-made pairs (one per Table 1 type), and the mutators agreeing with it."""

from __future__ import annotations

import json

import pytest

from robustcall.core import GoldenAnswer, ToolSpec, seeded_rng
from robustcall.rewards import ERROR_TYPES, MUTATORS, TABLE1_COUNTS, calls_text, classify_error, mutate, table1_targets
from robustcall.rewards._output import output_calls

WEATHER = ToolSpec(
    name="get_weather",
    description="Weather for a city.",
    parameters={
        "type": "dict",
        "properties": {
            "city": {"type": "string", "description": "City name."},
            "days": {"type": "integer", "description": "Forecast days."},
            "unit": {"type": "string", "description": "celsius or fahrenheit"},
        },
        "required": ["city"],
    },
)
TIME = ToolSpec(
    name="get_time",
    description="Local time.",
    parameters={"type": "dict", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)
TOOLS = [WEATHER, TIME]
GOLD = [
    GoldenAnswer(
        name="get_weather",
        parameters={"city": "Paris", "days": 3},
        acceptable={"city": ["Paris"], "days": [3], "unit": ["", "celsius"]},
    )
]


def out(*calls: tuple[str, dict[str, object]]) -> str:
    return json.dumps([{"name": n, "arguments": a} for n, a in calls])


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        (out(("get_weather", {"city": "London", "days": 3})), "Incorrect Parameter Value"),
        (out(("get_time", {"city": "Paris"})), "Incorrect Function Name"),
        (
            out(("get_weather", {"city": "Paris", "days": 3}), ("get_time", {"city": "Paris"})),
            "Incorrect number of functions",
        ),
        ("I cannot help with that.", "Incorrect number of functions"),
        ("[]", "Incorrect number of functions"),
        (out(("get_weather", {"city": "Paris"})), "Missing Optional Parameter"),
        (out(("get_weather", {"days": 3})), "Missing Required Parameter"),
        (out(("get_weather", {"city": "Paris", "days": "3"})), "Incorrect Parameter Type"),
        (out(("get_weather", {"city": "Paris", "days": 3, "verbose": True})), "Unexpected Parameter"),
        ('[{"name": "get_weather", "arguments": {"city": "Paris"', "Incorrect output format"),
        ('{"get_weather": {"city": "Paris", "days": 3', "Incorrect output format"),
    ],
)
def test_classifier_names_each_table1_type(output: str, expected: str) -> None:
    assert classify_error(output, GOLD, TOOLS) == expected


def test_correct_output_has_no_error_type() -> None:
    assert classify_error(out(("get_weather", {"city": "Paris", "days": 3})), GOLD, TOOLS) is None
    assert classify_error("[get_weather(city='Paris', days=3, unit='celsius')]", GOLD, TOOLS) is None


def test_parallel_calls_are_paired_order_free() -> None:
    gold = [
        GoldenAnswer(name="get_time", parameters={"city": "Rome"}, acceptable={"city": ["Rome"]}),
        GoldenAnswer(name="get_time", parameters={"city": "Oslo"}, acceptable={"city": ["Oslo"]}),
    ]
    swapped = out(("get_time", {"city": "Oslo"}), ("get_time", {"city": "Rome"}))
    assert classify_error(swapped, gold, TOOLS) is None
    wrong = out(("get_time", {"city": "Oslo"}), ("get_time", {"city": "Bern"}))
    assert classify_error(wrong, gold, TOOLS) == "Incorrect Parameter Value"


def test_output_reader_takes_every_shape() -> None:
    want = [("get_time", {"city": "Rome"})]
    for text in (
        '[{"name": "get_time", "arguments": {"city": "Rome"}}]',
        '{"name": "get_time", "parameters": {"city": "Rome"}}',
        '```json\n[\n    {"get_time": {"city": "Rome"}}\n]\n```',
        "[get_time(city='Rome')]",
    ):
        calls = output_calls(text, TOOLS)
        assert calls is not None and [(c.name, c.arguments) for c in calls] == want, text
    assert output_calls("no calls here", TOOLS) is None


@pytest.mark.parametrize("kind", ERROR_TYPES)
def test_mutator_makes_its_own_type(kind: str) -> None:
    calls = [GOLD[0].as_call()]
    text = mutate(kind, calls, GOLD, TOOLS, seeded_rng(0, kind), lambda t: classify_error(t, GOLD, TOOLS) is not None)  # type: ignore[arg-type]
    if kind == "Missing Required Parameter":
        assert text is not None  # city is required
    assert text is not None
    assert classify_error(text, GOLD, TOOLS) == kind
    assert text != calls_text(calls)
    assert set(MUTATORS) == set(ERROR_TYPES)


def test_table1_targets_keep_the_proportions() -> None:
    assert table1_targets(1500) == TABLE1_COUNTS
    t = table1_targets(100)
    assert sum(t.values()) == 100 and t["Incorrect Parameter Value"] == 43
