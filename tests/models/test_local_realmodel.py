"""End to end through the real embedded model (two requests); skipped when it is not set up."""

from __future__ import annotations

import asyncio

import pytest

from robustcall.core import Message, Sample
from robustcall.models import ModelRequest, ModelResponse, ModelSettings, OpenAIChatModel
from robustcall.models.local import LocalModel, check

pytestmark = [
    pytest.mark.realmodel,
    pytest.mark.skipif(not check().ready, reason="embedded model not set up: run `robustcall model setup`"),
    pytest.mark.timeout(300),
]

SYSTEM = (
    "You are an expert in composing functions. You are given a question and a set of possible functions. "
    "Based on the question, make one or more function calls to achieve the purpose.\n"
    "If you decide to invoke any of the function(s), you MUST put it in the format of "
    "[func_name1(params_name1=params_value1, params_name2=params_value2...), func_name2(params)]\n"
    "You SHOULD NOT include any other text in the response.\n\n"
    "Here is a list of functions in JSON format that you can invoke.\n"
)


def test_local_model_answers_in_prompt_mode_and_fc_mode(sample: Sample) -> None:
    tools_json = "\n".join(t.model_dump_json() for t in sample.tools)
    prompt_msgs = [Message(role="system", content=SYSTEM + tools_json), sample.conversation[-1]]
    settings = ModelSettings(max_tokens=64, timeout_s=120)

    async def go() -> tuple[ModelResponse, ModelResponse]:
        model = LocalModel(settings, concurrency=1)
        try:
            prompt = await model.complete(ModelRequest(messages=prompt_msgs, tools=sample.tools, sample=sample))
            fc = OpenAIChatModel("local", model.server.base_url, settings, mode="fc")
            try:
                fc_out = await fc.complete(
                    ModelRequest(messages=[sample.conversation[-1]], tools=sample.tools, sample=sample)
                )
            finally:
                await fc.aclose()
            return prompt, fc_out
        finally:
            await model.aclose()
            assert not model.server.running

    prompt, fc = asyncio.run(go())
    assert prompt.error is None and prompt.tool_calls is None
    assert prompt.text.strip(), "the local model returned no text"
    assert "get_forecast" in prompt.text or "weather" in prompt.text.lower()
    # fc through llama-server's own parser: structured calls with the original dotted names, or a
    # model_format answer when the model's text missed the format; never an infrastructure error
    assert fc.error_kind != "infra", fc.error
    if fc.error_kind is None:
        assert fc.tool_calls is not None
        assert all(c.name in {t.name for t in sample.tools} for c in fc.tool_calls)


def test_recorded_usage_is_llama_servers_own_count(sample: Sample) -> None:
    """The usage our client records is the one llama-server reports: the same request posted raw and
    through the client (greedy, so the same answer) gives the same prompt and completion counts."""
    import json
    import urllib.request

    settings = ModelSettings(max_tokens=32, timeout_s=120, temperature=0.0)
    req = ModelRequest(messages=[sample.conversation[-1]], tools=sample.tools, sample=sample)

    async def go() -> tuple[ModelResponse, dict[str, object]]:
        model = LocalModel(settings, concurrency=1, reuse_answers=False)
        try:
            ours = await model.complete(req)
            client = OpenAIChatModel("local", model.server.base_url, settings, mode=model.mode)
            body, _ = client.request_body(req)
            url = f"{model.server.base_url.rstrip('/')}/v1/chat/completions"
            raw = urllib.request.Request(url, json.dumps(body).encode(), {"Content-Type": "application/json"})
            reply = await asyncio.to_thread(lambda: json.loads(urllib.request.urlopen(raw, timeout=120).read()))
            return ours, reply["usage"]
        finally:
            await model.aclose()

    ours, usage = asyncio.run(go())
    assert ours.usage is not None, "llama-server's answer carried no usage"
    assert (ours.usage.prompt_tokens, ours.usage.completion_tokens) == (
        usage["prompt_tokens"],
        usage["completion_tokens"],
    )
    assert 0 < ours.usage.completion_tokens <= 32
