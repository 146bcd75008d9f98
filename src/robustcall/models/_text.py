"""A prompt in, the model's text out, synchronously: for the build-time tools that need a model
(the LLM rewriter of ``perturb``, the Appendix H audit judge).

It goes through the same client as a run: a ``make_model`` spec, the settings file (decoding,
timeouts, retries, ``extra_body``; ``temperature: null`` leaves the temperature to the endpoint)
and ``OpenAIChatModel.send``'s retry loop (backoff with jitter, ``Retry-After`` honoured). Any
OpenAI-compatible backend works: ``openai:<model>@<url>`` or the embedded ``local`` model.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Final, Literal

import orjson

from robustcall.core import DEFAULTS, EvalConfig, Message, Sample, SourceInfo
from robustcall.models._api import ChatModel, ModelRequest
from robustcall.models._factory import make_model
from robustcall.models._http import HttpResponse
from robustcall.models._openai import OpenAIChatModel, RetryRequest, _error_message


class TextModelError(RuntimeError):
    """No text could be had from the model (a refused request, or retries spent)."""


_PROMPT_SAMPLE: Final = Sample(
    id="prompt",
    benchmark="robustcall",
    category="prompt",
    source=SourceInfo(original_id="prompt", benchmark="robustcall"),
    conversation=[],
    tools=[],
    golden_answers=[],
    eval_config=EvalConfig(method="exact"),
)
"""``ModelRequest`` names the sample it answers; a bare prompt answers none."""

Keep = Literal["settings"]
KEEP: Final[Keep] = "settings"
"""``complete(temperature=KEEP)``: the settings' temperature (the default)."""


async def openai_endpoint(model: ChatModel) -> OpenAIChatModel | None:
    """The OpenAI-compatible client behind a backend (starting the embedded server), else ``None``."""
    if isinstance(model, OpenAIChatModel):
        return model
    start = getattr(model, "start", None)
    if start is not None:
        client = await start()
        return client if isinstance(client, OpenAIChatModel) else None
    return None


def _read(resp: HttpResponse) -> str | TextModelError:
    if resp.status != 200:  # what was worth retrying has been retried
        return TextModelError(f"HTTP {resp.status}: {_error_message(resp.body.decode('utf-8', 'replace'))[:500]}")
    try:
        message = orjson.loads(resp.body)["choices"][0]["message"]
    except (ValueError, KeyError, IndexError, TypeError) as exc:
        raise RetryRequest(f"malformed 200 response: {type(exc).__name__}: {exc}") from exc
    content = message.get("content") if isinstance(message, dict) else None
    return content if isinstance(content, str) else ""


class TextModel:
    """One model, spoken to one user prompt at a time. Close it (or use ``with``) when done."""

    def __init__(self, spec: str, *, settings_file: Path | None = None) -> None:
        self.spec = spec
        self._model = make_model(spec, mode="prompt", settings_file=settings_file, concurrency=1)
        settings = getattr(self._model, "settings", None)
        self.temperature: float | None = getattr(settings, "temperature", DEFAULTS.temperature)
        """The settings' temperature (``None``: not sent)."""
        self.model_name = self._model.model if isinstance(self._model, OpenAIChatModel) else self._model.name
        """What the endpoint is asked for (``gpt-5-mini`` of ``openai:gpt-5-mini@…``), or the spec's name."""
        self._runner: asyncio.Runner | None = None
        self.requests = 0

    def complete(self, prompt: str, *, temperature: float | Keep | None = KEEP) -> str:
        """The model's answer to ``prompt`` (a single user message). ``temperature``: a value, ``None``
        (not sent) or ``KEEP`` (the settings'). Raises ``TextModelError``."""
        if self._runner is None:
            self._runner = asyncio.Runner()
        return self._runner.run(self._complete(prompt, temperature))

    async def _complete(self, prompt: str, temperature: float | Keep | None) -> str:
        client = await openai_endpoint(self._model)
        if client is None:
            raise TextModelError(f"{self.spec}: needs an OpenAI-compatible model (openai:<model>@<url> or local)")
        req = ModelRequest(messages=[Message(role="user", content=prompt)], tools=[], sample=_PROMPT_SAMPLE)
        body, _ = client.request_body(req)
        if temperature is None:
            body.pop("temperature", None)
        elif temperature != KEEP:
            body["temperature"] = temperature
        self.requests += 1
        got, _, gave_up = await client.send(orjson.dumps(body), _read)
        if got is None:
            raise TextModelError(f"{self.spec}: {gave_up}")
        if isinstance(got, TextModelError):
            raise TextModelError(f"{self.spec}: {got}")
        return got

    def close(self) -> None:
        if self._runner is not None:
            self._runner.run(self._model.aclose())
            self._runner.close()
            self._runner = None

    def __enter__(self) -> TextModel:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()
