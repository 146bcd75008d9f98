"""The ToolRL reward pinned on hand-computed cases (format ∈ {0,1}, correctness ∈ [-3, 3])."""

from __future__ import annotations

import json
from typing import Any

import pytest

from robustcall.rewards import toolrl_correctness_reward, toolrl_format_reward, toolrl_reward
from robustcall.rewards._toolrl import GoldenFormatError, match_score, partial_score

THINK = "<think> reasoning </think>"


def calls_text(*calls: dict[str, Any]) -> str:
    return "<tool_call>\n" + "\n".join(json.dumps(c) for c in calls) + "\n</tool_call>"


def out(*calls: dict[str, Any], response: str | None = None) -> str:
    text = f"{THINK}\n{calls_text(*calls)}" if calls else THINK
    return text + (f"\n<response>{response}</response>" if response is not None else "")


WEATHER = {"name": "get_weather", "parameters": {"city": "Paris"}}
GT_ONE = out(WEATHER)


def test_worked_example_right_name_and_key_wrong_value_is_plus_one() -> None:
    wrong = {"name": "get_weather", "parameters": {"city": "Lyon"}}
    pred = out(wrong)
    assert partial_score([WEATHER], [wrong]) == (2.0, 3.0)  # S = 1 name + 1 key + 0 values; S_max = 1 + (1 + 1)
    assert toolrl_correctness_reward(pred, GT_ONE) == pytest.approx(1.0)


def test_exact_match_is_plus_three_and_golden_totals_four() -> None:
    assert toolrl_correctness_reward(GT_ONE, GT_ONE) == 3.0
    assert toolrl_format_reward(GT_ONE, GT_ONE) == 1.0
    assert toolrl_reward(GT_ONE, GT_ONE) == 4.0


def test_ground_truth_without_tool_call_gives_zero_correctness() -> None:
    gt = f"{THINK}\n<response>Hello</response>"
    assert toolrl_correctness_reward(out(WEATHER), gt) == 0.0
    assert toolrl_correctness_reward("garbage", gt) == 0.0


@pytest.mark.parametrize(
    "pred",
    [
        f"{THINK}\n<response>no call</response>",  # missing tag
        f'{THINK}\n<tool_call>\n{{"name": "get_weather", "parameters": {{"city": }}\n</tool_call>',  # JSON
        f"{THINK}\n<tool_call>\n{json.dumps(WEATHER)}\n",  # no closing tag
        f"{THINK}\n<tool_call>\n{json.dumps(WEATHER)}\n\n{json.dumps(WEATHER)}\n</tool_call>",  # empty line
        f"{THINK}\n<tool_call>\n[{json.dumps(WEATHER)}]\n</tool_call>",  # not an object
        f'{THINK}\n<tool_call>\n{{"name": "get_weather"}}\n</tool_call>',  # no parameters
    ],
)
def test_missing_tag_or_json_error_is_minus_three(pred: str) -> None:
    assert toolrl_correctness_reward(pred, GT_ONE) == -3.0


def test_wrong_name_scores_minus_three_via_partial_credit() -> None:
    # names: match([get_weather], [get_time]) = 0; no same-name call -> S = 0, S_max = 3 -> -3
    pred = out({"name": "get_time", "parameters": {"city": "Paris"}})
    assert toolrl_correctness_reward(pred, GT_ONE) == pytest.approx(-3.0)


def test_right_name_no_params_gets_name_credit_only() -> None:
    # S = 1 (names) + best same-name (keys 0 + values 0 = 0, not > 0, so no match) = 1; S_max = 3
    pred = out({"name": "get_weather", "parameters": {}})
    assert toolrl_correctness_reward(pred, GT_ONE) == pytest.approx(6 * 1 / 3 - 3)


def test_two_golden_calls_partial_and_extra_call() -> None:
    g1 = {"name": "a", "parameters": {"x": 1, "y": 2}}
    g2 = {"name": "b", "parameters": {"z": "q"}}
    gt = out(g1, g2)
    # predicted: a with x right, y wrong; b exact; plus an extra call c
    p = [
        {"name": "a", "parameters": {"x": 1, "y": 3}},
        {"name": "b", "parameters": {"z": "q"}},
        {"name": "c", "parameters": {}},
    ]
    # names: |{a,b} ∩ {a,b,c}| / (2 + 3 - 2) = 2/3
    # a: keys 1 + values 1 = 2; b: keys 1 + values 1 = 2 -> S = 2/3 + 4 = 14/3
    # S_max = 1 + (1 + 2) + (1 + 1) = 6 -> R = 6 * (14/3) / 6 - 3 = 14/3 - 3 = 5/3
    assert partial_score([g1, g2], p) == (pytest.approx(14 / 3), 6.0)
    assert toolrl_correctness_reward(out(*p), gt) == pytest.approx(5 / 3)


def test_order_matters_for_exact_match_but_not_partial() -> None:
    g1 = {"name": "a", "parameters": {"x": 1}}
    g2 = {"name": "b", "parameters": {}}
    # swapped order: not equal lists -> partial; names match 1.0 (multiset); a: 1 + 1 = 2;
    # b: keys match([], []) = 1 (equal lists) + 0 values = 1 -> S = 4; S_max = 1 + 2 + 1 = 4 -> +3
    assert toolrl_correctness_reward(out(g2, g1), out(g1, g2)) == pytest.approx(3.0)


def test_each_golden_call_uses_a_predicted_call_once() -> None:
    g = {"name": "a", "parameters": {"x": 1}}
    # two golden a's, one predicted a: names 1/2; first golden takes it (2), second gets nothing
    # S = 0.5 + 2 = 2.5; S_max = 1 + 2 + 2 = 5 -> R = 6 * 0.5 - 3 = 0
    assert toolrl_correctness_reward(out(g), out(g, g)) == pytest.approx(0.0)


def test_value_equality_is_exact_type_and_value() -> None:
    # "1" != 1: keys 1 + values 0 = 1; S = 2 -> +1 (the worked example's shape)
    gt = out({"name": "a", "parameters": {"x": 1}})
    assert toolrl_correctness_reward(out({"name": "a", "parameters": {"x": "1"}}), gt) == pytest.approx(1.0)


def test_unreadable_ground_truth_raises() -> None:
    with pytest.raises(GoldenFormatError):
        toolrl_correctness_reward(GT_ONE, f"{THINK}\n<tool_call>\nnot json\n</tool_call>")


def test_match_score_cases() -> None:
    assert match_score([], []) == 1.0
    assert match_score(["a"], []) == 0.0
    assert match_score(["a", "a", "b"], ["a", "b", "b"]) == pytest.approx(2 / 4)


@pytest.mark.parametrize(
    ("gt", "good", "bad"),
    [
        (out(WEATHER), out(WEATHER), out(WEATHER, response="extra")),
        (f"{THINK}\n<response>hi</response>", f"{THINK}\n<response>hi</response>", out(WEATHER)),
        (out(WEATHER, response="ok"), out(WEATHER, response="ok"), out(WEATHER)),
        (THINK, "<think>just thinking</think>", "no think"),
    ],
)
def test_format_regex_follows_the_ground_truth_tags(gt: str, good: str, bad: str) -> None:
    assert toolrl_format_reward(good, gt) == 1.0
    assert toolrl_format_reward(bad, gt) == 0.0


def test_format_rejects_repeated_tags_and_missing_think() -> None:
    twice = f"{THINK}\n{calls_text(WEATHER)}\n{calls_text(WEATHER)}"
    assert toolrl_format_reward(twice, GT_ONE) == 0.0
    assert toolrl_format_reward(calls_text(WEATHER), GT_ONE) == 0.0
    assert toolrl_format_reward(f"{THINK}\n<tool_call>{json.dumps(WEATHER)}</tool_call>", GT_ONE) == 0.0
    assert toolrl_format_reward("  " + GT_ONE, GT_ONE) == 0.0
