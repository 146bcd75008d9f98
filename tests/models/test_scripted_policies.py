"""Scripted policies give exactly known answers on a hand-built sample."""

from __future__ import annotations

import asyncio

import pytest

from robustcall.core import GoldenAnswer, Message, Sample, ToolCall
from robustcall.models import GIVE_UP_TEXT, ModelRequest, ModelResponse, ScriptedModel, make_model

FORECAST = ToolCall(name="weather.get_forecast", arguments={"city": "Paris", "days": 3})


def run(policy: str, sample: Sample, pass_index: int = 0, messages: list[Message] | None = None) -> ModelResponse:
    model = make_model(f"scripted:{policy}")
    req = ModelRequest(
        messages=messages or sample.conversation, tools=sample.tools, sample=sample, pass_index=pass_index
    )
    return asyncio.run(model.complete(req))


def test_oracle_calls_the_golden_answers(sample):
    r = run("oracle", sample)
    assert r.tool_calls == [FORECAST]
    assert r.text == '[{"name": "weather.get_forecast", "parameters": {"city": "Paris", "days": 3}}]'


def test_oracle_makes_no_call_when_golden_is_empty(sample):
    r = run("oracle", sample.model_copy(update={"golden_answers": []}))
    assert (r.text, r.tool_calls) == ("", [])


def test_give_up_after_error_is_oracle_then_gives_up(sample):
    assert run("give_up_after_error", sample).tool_calls == [FORECAST]
    r = run("give_up_after_error", sample, pass_index=1)
    assert (r.text, r.tool_calls) == (GIVE_UP_TEXT, [])
    assert GIVE_UP_TEXT == "The tool failed; please try again later."


def test_always_first_tool_uses_the_first_tool_with_golden_arguments(sample):
    r = run("always_first_tool", sample)
    assert r.tool_calls == [ToolCall(name="hotel.book_room", arguments={"city": "Paris", "days": 3})]


def test_name_biased_picks_the_tool_sharing_most_words_with_the_query(sample):
    # "weather" + "forecast" appear in the query for both weather tools: the tie goes to the first listed
    r = run("name_biased", sample)
    assert r.tool_calls == [ToolCall(name="weather.get_forecast", arguments={"city": "Paris", "days": 3})]
    query = Message(role="user", content="Give me the fast weather forecast for Paris")
    r = run("name_biased", sample, messages=[query])
    assert r.tool_calls is not None and r.tool_calls[0].name == "fastWeatherForecastTool"


def test_name_biased_ties_with_no_overlap_go_to_the_first_tool(sample):
    r = run("name_biased", sample, messages=[Message(role="user", content="hello")])
    assert r.tool_calls is not None and r.tool_calls[0].name == "hotel.book_room"


def test_repeat_same_call_repeats_the_pass_0_calls(sample):
    other = ToolCall(name="hotel.book_room", arguments={"city": "Rome"})
    fc_turn = Message(role="assistant", content="", tool_calls=[other])
    err = Message(role="tool", name="hotel.book_room", content="Error")
    assert run("repeat_same_call", sample).tool_calls == [FORECAST]
    assert run("repeat_same_call", sample, 1, [*sample.conversation, fc_turn, err]).tool_calls == [other]
    # prompt mode: the assistant turn carries the pass-0 text only
    text_turn = Message(role="assistant", content=run("oracle", sample).text)
    obs = Message(role="user", content="Result of weather.get_forecast: Error")
    assert run("repeat_same_call", sample, 1, [*sample.conversation, text_turn, obs]).tool_calls == [FORECAST]


def test_multiple_golden_calls_are_all_made(sample):
    two = sample.model_copy(
        update={"golden_answers": [*sample.golden_answers, GoldenAnswer(name="hotel.book_room", parameters={})]}
    )
    assert run("oracle", two).tool_calls == [FORECAST, ToolCall(name="hotel.book_room")]


def test_unknown_policy_names_the_known_ones():
    with pytest.raises(ValueError, match="oracle"):
        ScriptedModel("nope")
