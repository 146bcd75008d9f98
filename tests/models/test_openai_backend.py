"""The OpenAI-compatible backend against the in-process mock server: retries, errors, fc and prompt."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import pytest

from robustcall.core import Message, Sample, ToolCall
from robustcall.models import ModelRequest, ModelResponse, ModelSettings, OpenAIChatModel, _openai, chat_url

FAST = ModelSettings(timeout_s=0.5, max_retries=3, backoff_base_s=0.01, backoff_max_s=0.02)


def ask(
    base_url: str, sample: Sample, *, mode: str = "prompt", settings: ModelSettings = FAST, **req: Any
) -> ModelResponse:
    async def go() -> ModelResponse:
        model = OpenAIChatModel("m", base_url, settings, mode=mode)  # type: ignore[arg-type]
        try:
            messages = req.pop("messages", sample.conversation)
            return await model.complete(ModelRequest(messages=messages, tools=sample.tools, sample=sample, **req))
        finally:
            await model.aclose()

    return asyncio.run(go())


@pytest.fixture()
def sleeps(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """Records every backoff wait the client makes."""
    waits: list[float] = []
    real = asyncio.sleep

    async def record(delay: float) -> None:
        waits.append(delay)
        await real(delay)

    monkeypatch.setattr(_openai, "_sleep", record)
    return waits


def test_429_with_retry_after_is_retried_after_the_requested_wait(mock_openai, sample, sleeps):
    mock_openai.status(429, "slow down", {"Retry-After": "0.3"})
    r = ask(mock_openai.base_url, sample)
    assert (r.text, r.error, r.attempts) == ("hello", None, 2)
    assert sleeps and sleeps[0] >= 0.3
    assert mock_openai.times[1] - mock_openai.times[0] >= 0.29


def test_500_and_503_are_retried_with_backoff(mock_openai, sample, sleeps):
    mock_openai.status(500)
    mock_openai.status(503)
    r = ask(mock_openai.base_url, sample)
    assert (r.text, r.error_kind, r.attempts) == ("hello", None, 3)
    assert len(sleeps) == 2
    assert all(0.0 <= s <= FAST.backoff_max_s for s in sleeps)


def test_a_request_hanging_past_the_timeout_is_retried(mock_openai, sample):
    mock_openai.hang(3.0)
    start = time.monotonic()
    r = ask(mock_openai.base_url, sample, settings=ModelSettings(timeout_s=0.3, backoff_base_s=0.01))
    assert (r.text, r.attempts) == ("hello", 2)
    assert time.monotonic() - start < 2.0


def test_a_dropped_connection_is_retried(mock_openai, sample):
    mock_openai.drop()
    r = ask(mock_openai.base_url, sample)
    assert (r.text, r.error, r.attempts) == ("hello", None, 2)


def test_retries_exhausted_give_an_infra_error(mock_openai, sample, sleeps):
    for _ in range(10):
        mock_openai.status(503, "overloaded")
    r = ask(mock_openai.base_url, sample)
    assert r.error_kind == "infra"
    assert r.attempts == FAST.max_retries + 1 == len(mock_openai.requests)
    assert len(sleeps) == FAST.max_retries
    assert r.error is not None and "503" in r.error and "overloaded" in r.error
    assert r.text == "" and r.tool_calls is None


def test_other_4xx_is_an_infra_error_at_once(mock_openai, sample, sleeps):
    mock_openai.status(400, "context length exceeded")
    r = ask(mock_openai.base_url, sample)
    assert (r.error_kind, r.attempts, len(mock_openai.requests), sleeps) == ("infra", 1, 1, [])
    assert r.error is not None and "context length exceeded" in r.error


def test_llama_cpp_parse_failure_is_model_format_with_the_raw_text(mock_openai, sample, sleeps):
    raw = '```json\n{"name": "weather.get_forecast", "arguments": {"city": "Paris", "days": 3}}\n```'
    mock_openai.status(500, f"Failed to parse input at pos 0: {raw}")
    r = ask(mock_openai.base_url, sample, mode="fc")
    assert (r.error_kind, r.attempts, len(mock_openai.requests), sleeps) == ("model_format", 1, 1, [])
    assert r.text == raw
    assert r.tool_calls is None  # the raw text goes to robustcall's own tolerant parser


def test_refused_fc_text_reads_wire_aliases_back_as_tool_names(mock_openai, sample, sleeps):
    """llama.cpp refuses fc output and quotes it: the quoted calls name the tools by their wire
    aliases (``weather_get_forecast``); the text path reads them back as the dotted names, as the
    structured path does, so a right call scores right."""
    from robustcall.run import answer
    from robustcall.score import reparse, score_prediction

    raw = '{"name": "weather_get_forecast", "arguments": {"city": "Paris", "days": 3}}'

    async def go(mode: str) -> Any:
        model = OpenAIChatModel("m", mock_openai.base_url, FAST, mode=mode)  # type: ignore[arg-type]
        try:
            return await answer(sample, model)
        finally:
            await model.aclose()

    mock_openai.status(500, f"Failed to parse input at pos 0: {raw}")
    pred = asyncio.run(go("fc"))
    assert pred.error_kind == "model_format" and pred.raw_output == raw
    assert pred.tool_calls == [ToolCall(name="weather.get_forecast", arguments={"city": "Paris", "days": 3})]
    assert score_prediction(sample, pred).correct is True
    # re-parsing the saved record: the run's mode says whether the text answered an fc request
    from robustcall.core import PredictionRecord

    rec = PredictionRecord(**dict(sample), prediction=pred.model_copy(update={"tool_calls": []}))
    assert reparse(rec, "fc").prediction.tool_calls == pred.tool_calls
    assert reparse(rec, "prompt").prediction.tool_calls[0].name == "weather_get_forecast"  # prompt: as written


def test_newer_llama_cpp_format_message_is_model_format(mock_openai, sample):
    mock_openai.status(500, "The model produced output that does not match the expected Hermes 2 Pro format")
    r = ask(mock_openai.base_url, sample, mode="fc")
    assert (r.error_kind, r.attempts, r.text) == ("model_format", 1, "")


def test_fc_mode_sends_json_schema_tools_under_safe_names_and_reads_calls_back(mock_openai, sample):
    forecast = {"name": "weather_get_forecast", "arguments": '{"city": "Paris", "days": 3}'}
    book = {"name": "hotel_book_room", "arguments": {"city": "Paris"}}  # an object, not a string
    mock_openai.calls(
        [{"id": "a", "type": "function", "function": forecast}, {"id": "b", "type": "function", "function": book}]
    )
    r = ask(mock_openai.base_url, sample, mode="fc")
    assert r.error is None
    assert r.tool_calls == [
        ToolCall(name="weather.get_forecast", arguments={"city": "Paris", "days": 3}),
        ToolCall(name="hotel.book_room", arguments={"city": "Paris"}),
    ]
    sent = mock_openai.requests[0]
    fns = [t["function"] for t in sent["tools"]]
    assert [f["name"] for f in fns] == ["hotel_book_room", "weather_get_forecast", "fastWeatherForecastTool"]
    assert fns[1]["parameters"]["type"] == "object"
    assert (sent["temperature"], sent["max_tokens"]) == (0.0, 1024)


def test_fc_mode_reports_unparseable_arguments_and_keeps_the_call(mock_openai, sample):
    bad = '{"city": "Paris", "days": 3'
    mock_openai.calls([{"id": "a", "type": "function", "function": {"name": "weather_get_forecast", "arguments": bad}}])
    r = ask(mock_openai.base_url, sample, mode="fc")
    assert r.error_kind == "model_format"
    assert r.error is not None and "not valid JSON" in r.error and "weather.get_forecast" in r.error
    assert r.tool_calls == [ToolCall(name="weather.get_forecast", arguments={})]
    assert bad in r.text


def test_fc_mode_without_calls_gives_an_empty_call_list(mock_openai, sample):
    mock_openai.text("I cannot help with that.")
    r = ask(mock_openai.base_url, sample, mode="fc")
    assert (r.text, r.tool_calls) == ("I cannot help with that.", [])


def test_prompt_mode_sends_no_tools_and_returns_text_only(mock_openai, sample):
    mock_openai.text('[weather.get_forecast(city="Paris", days=3)]')
    r = ask(mock_openai.base_url, sample, mode="prompt")
    assert (r.text, r.tool_calls, r.error) == ('[weather.get_forecast(city="Paris", days=3)]', None, None)
    assert "tools" not in mock_openai.requests[0]
    assert mock_openai.requests[0]["messages"][0] == {"role": "system", "content": "You can call tools."}


def test_pass_two_messages_carry_matching_deterministic_call_ids(mock_openai, sample):
    call = ToolCall(name="weather.get_forecast", arguments={"city": "Paris", "days": 3})
    messages = [
        *sample.conversation,
        Message(role="assistant", content="", tool_calls=[call]),
        Message(role="tool", name="weather.get_forecast", content="Error: 503 Service Unavailable"),
    ]
    ask(mock_openai.base_url, sample, mode="fc", messages=messages, pass_index=1)
    sent = mock_openai.requests[0]["messages"]
    assert sent[2]["tool_calls"][0] == {
        "id": "call_2_0",
        "type": "function",
        "function": {"name": "weather_get_forecast", "arguments": json.dumps({"city": "Paris", "days": 3})},
    }
    assert sent[2]["content"] is None
    assert sent[3] == {
        "role": "tool",
        "tool_call_id": "call_2_0",
        "content": "Error: 503 Service Unavailable",
        "name": "weather_get_forecast",
    }


def test_api_key_from_the_environment_and_extra_body(mock_openai, sample, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    settings = ModelSettings(extra_body={"chat_template_kwargs": {"enable_thinking": False}})
    ask(mock_openai.base_url, sample, settings=settings)
    assert mock_openai.headers[0]["Authorization"] == "Bearer sk-test"
    assert mock_openai.requests[0]["chat_template_kwargs"] == {"enable_thinking": False}


def test_many_concurrent_requests_share_one_session(mock_openai, sample):
    async def go() -> list[ModelResponse]:
        model = OpenAIChatModel("m", mock_openai.base_url, FAST, concurrency=16)
        try:
            req = ModelRequest(messages=sample.conversation, tools=sample.tools, sample=sample)
            return await asyncio.gather(*(model.complete(req) for _ in range(64)))
        finally:
            await model.aclose()

    out = asyncio.run(go())
    assert [r.text for r in out] == ["hello"] * 64


@pytest.mark.parametrize(
    ("base", "url"),
    [
        ("http://h:1", "http://h:1/v1/chat/completions"),
        ("http://h:1/v1/", "http://h:1/v1/chat/completions"),
        ("https://api.x.com/v1/chat/completions", "https://api.x.com/v1/chat/completions"),
    ],
)
def test_chat_url(base, url):
    assert chat_url(base) == url


def test_a_backoff_wait_runs_inside_the_run_loops_lender(mock_openai, sample, sleeps):
    """The wait (and only the wait) happens with the request's place lent to the run loop."""
    from contextlib import asynccontextmanager

    from robustcall.models import backoff_lender

    events: list[str] = []

    @asynccontextmanager
    async def lend():
        events.append(f"lent after {len(sleeps)} waits")
        yield
        events.append(f"back after {len(sleeps)} waits")

    mock_openai.status(500)
    mock_openai.status(429, "slow down", {"Retry-After": "0.1"})
    token = backoff_lender.set(lend)
    try:
        r = ask(mock_openai.base_url, sample)
    finally:
        backoff_lender.reset(token)
    assert (r.text, r.attempts) == ("hello", 3)
    assert events == ["lent after 0 waits", "back after 1 waits", "lent after 1 waits", "back after 2 waits"]


@pytest.fixture()
def fake_sleeps(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """Records every backoff wait without waiting."""
    waits: list[float] = []

    async def record(delay: float) -> None:
        waits.append(delay)

    monkeypatch.setattr(_openai, "_sleep", record)
    return waits


def test_retry_after_waits_are_capped_in_all_per_request(mock_openai, sample, fake_sleeps, capsys):
    """Issue 30, item 12: a 429 with ``Retry-After: 300`` on every retry held a record for 25 minutes
    (300 s per retry); the waits of one request are now capped in all, and the cap is said once."""
    for _ in range(10):
        mock_openai.status(429, "slow down", {"Retry-After": "300"})
    r = ask(mock_openai.base_url, sample, settings=ModelSettings(max_retries=5))
    assert fake_sleeps == [300.0]  # the default cap: max_retry_wait_s = 300
    assert r.error_kind == "infra" and r.attempts == 2
    assert r.error is not None and "max_retry_wait_s = 300" in r.error and "HTTP 429" in r.error
    assert capsys.readouterr().err.count("a request waits at most 300 s in all (setting max_retry_wait_s)") == 1

    mock_openai.reset()
    for _ in range(10):
        mock_openai.status(429, "slow down", {"Retry-After": "300"})
    settings = ModelSettings(max_retries=5, max_retry_wait_s=700)
    r = ask(mock_openai.base_url, sample, settings=settings)
    assert fake_sleeps[1:] == [300.0, 300.0, 100.0] and r.attempts == 4 and r.error_kind == "infra"
    assert "warning:" in capsys.readouterr().err

    mock_openai.reset()
    mock_openai.status(429, "slow down", {"Retry-After": "300"})
    r = ask(mock_openai.base_url, sample, settings=settings)  # within the cap: waited, then answered
    assert (r.text, r.error, fake_sleeps[-1]) == ("hello", None, 300.0)
