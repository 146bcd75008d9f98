"""Sampling several outputs per sample from a generator, with a seed and (where the endpoint gives
them) token log-probabilities.

OpenAI-compatible endpoints (``openai:...``, the embedded ``local`` model) get one request per sample
index with ``temperature``, ``seed = f(seed, sample id, index)`` and ``logprobs: true``, so that a
rerun with the same seed asks for the same draws (llama-server and vLLM honour ``seed``). Other
backends (``scripted:``, ``replay:``) are asked ``n`` times through ``ChatModel.complete``; they
give no log-probabilities.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable
from dataclasses import dataclass
from typing import Any, TypeVar

from robustcall.core import Sample, seeded_rng
from robustcall.formats import render_calls, render_messages, sample_format
from robustcall.models import ChatModel, HttpResponse, ModelRequest, OpenAIChatModel, RetryRequest

T = TypeVar("T")


@dataclass(frozen=True)
class Draw:
    """One sampled output."""

    text: str
    """The output text (structured fc calls rendered in the sample's format)."""
    logprob: float | None = None
    """Sum of token log-probabilities, when the endpoint returned them."""
    error: str | None = None
    """Why no output could be had (then ``text`` is ``""``)."""


async def _endpoint(model: ChatModel) -> OpenAIChatModel | None:
    if isinstance(model, OpenAIChatModel):
        return model
    start = getattr(model, "start", None)  # the embedded local model: its server's client
    if start is not None:
        client = await start()
        return client if isinstance(client, OpenAIChatModel) else None
    return None


def _logprob(choice: dict[str, Any]) -> float | None:
    content = (choice.get("logprobs") or {}).get("content")
    if not isinstance(content, list) or not content:
        return None
    return float(sum(float(t.get("logprob", 0.0)) for t in content if isinstance(t, dict)))


async def _post(client: OpenAIChatModel, body: dict[str, Any]) -> Draw:
    def read(resp: HttpResponse) -> Draw:
        if resp.status != 200:  # what is worth retrying, the client has retried; this one is not
            raise client.refusal(resp.status, resp.body.decode("utf-8", errors="replace"))
        try:
            choice = json.loads(resp.body)["choices"][0]
        except (json.JSONDecodeError, KeyError, IndexError, TypeError) as exc:
            raise RetryRequest(f"malformed 200 response: {type(exc).__name__}: {exc}") from exc
        text = (choice.get("message") or {}).get("content") or ""
        return Draw(text=text, logprob=_logprob(choice))

    draw, _, gave_up = await client.send(json.dumps(body, ensure_ascii=False).encode("utf-8"), read)
    return draw if draw is not None else Draw(text="", error=gave_up)


async def _gated(gate: asyncio.Semaphore | None, request: Awaitable[T]) -> T:
    if gate is None:
        return await request
    async with gate:
        return await request


async def sample_outputs(
    model: ChatModel,
    sample: Sample,
    n: int,
    *,
    temperature: float,
    seed: int,
    logprobs: bool = True,
    max_tokens: int | None = None,
    gate: asyncio.Semaphore | None = None,
) -> list[Draw]:
    """``n`` outputs of ``model`` for ``sample`` (prompt-mode rendering in the sample's format);
    ``max_tokens`` caps the endpoint's length limit (tool calls are short; a runaway draw is not).
    ``gate``: held by each request while it is in flight (a caller's ``--concurrency`` bound, shared
    by every sample and generator it draws from)."""
    client = await _endpoint(model)
    if client is not None and client.mode == "prompt":
        req = ModelRequest(messages=render_messages(sample, "prompt"), tools=sample.tools, sample=sample)
        base, _ = client.request_body(req)
        bodies = []
        for i in range(n):
            body = dict(base, temperature=temperature)
            if max_tokens is not None:
                body["max_tokens"] = min(int(body.get("max_tokens", max_tokens)), max_tokens)
            body["seed"] = seeded_rng(seed, sample.id, str(i)).randrange(2**31)
            if logprobs:
                body["logprobs"] = True
            bodies.append(body)
        return list(await asyncio.gather(*(_gated(gate, _post(client, b)) for b in bodies)))
    fmt = sample_format(sample)
    out: list[Draw] = []
    for i in range(n):
        req = ModelRequest(
            messages=render_messages(sample, model.mode), tools=sample.tools, sample=sample, pass_index=0
        )
        resp = await _gated(gate, model.complete(req))
        if resp.error_kind == "infra":
            out.append(Draw(text="", error=resp.error))
            continue
        text = resp.text if resp.tool_calls is None else render_calls(resp.tool_calls, fmt)
        out.append(Draw(text=text))
        del i
    return out
