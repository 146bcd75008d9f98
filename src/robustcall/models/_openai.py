"""OpenAI-compatible chat completions (vLLM, SGLang, llama.cpp server, OpenAI).

Over our lean keep-alive client (``_http.py``) rather than the openai SDK or aiohttp: the SDK's
client collapses at high concurrency (see the evaluation issue) and aiohttp's per-request CPU caps
the harness near 0.5 of the ideal rate at C = 256 on 2 cores (docs/run.md). One connection pool per
model, sized to the concurrency, and a total timeout on every request.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from collections.abc import Callable
from typing import Any, TypeVar
from urllib.parse import urlsplit

import orjson

from robustcall.models._api import Mode, ModelRequest, ModelResponse
from robustcall.models._convert import NameMap, openai_messages, openai_tools, parse_choice
from robustcall.models._http import HttpClient, HttpConnectionError, HttpResponse
from robustcall.models._proxy import proxy_for
from robustcall.models._retry import backoff_s, model_format_error, retry_after_s, retryable_status
from robustcall.models._settings import DEFAULT_CONCURRENCY, ModelSettings

_sleep = asyncio.sleep
"""Backoff waits go through here (tests record them)."""

T = TypeVar("T")

RETRY_AFTER_CAP_S = 300.0
"""Longest ``Retry-After`` honoured; a server asking for more is treated as asking for this."""


def chat_url(base_url: str) -> str:
    """``.../v1/chat/completions`` from a base URL given with or without ``/v1``."""
    base = base_url.rstrip("/")
    if base.endswith("/chat/completions"):
        return base
    if base.endswith("/v1"):
        return f"{base}/chat/completions"
    return f"{base}/v1/chat/completions"


def _error_message(body: str) -> str:
    """The ``error.message`` of an OpenAI-style error body, else the body itself (shortened)."""
    try:
        data = json.loads(body)
    except json.JSONDecodeError:
        return body[:2000]
    if isinstance(data, dict):
        err = data.get("error", data)
        if isinstance(err, dict) and isinstance(err.get("message"), str):
            return str(err["message"])
        if isinstance(err, str):
            return err
    return body[:2000]


class RetryRequest(Exception):
    """An attempt failed in a way worth retrying."""

    def __init__(self, reason: str, wait_s: float | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.wait_s = wait_s


class OpenAIChatModel:
    """A ``ChatModel`` talking to one OpenAI-compatible ``/v1/chat/completions`` endpoint."""

    def __init__(
        self,
        model: str,
        base_url: str,
        settings: ModelSettings | None = None,
        *,
        mode: Mode | None = None,
        concurrency: int = DEFAULT_CONCURRENCY,
        api_key: str | None = None,
        name: str | None = None,
    ) -> None:
        self.settings = settings or ModelSettings()
        self.model = model
        self.mode: Mode = mode or self.settings.mode
        self.name = name or f"openai:{model}@{base_url}"
        self.url = chat_url(base_url)
        self.concurrency = max(1, concurrency)
        self._api_key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY")
        parts = urlsplit(self.url)
        self._path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        proxy_for(parts.scheme, parts.hostname or "", parts.port or 0)  # a proxy we cannot use fails here, early
        self._http: HttpClient | None = None

    def _client(self) -> HttpClient:
        if self._http is None:
            headers = {"Content-Type": "application/json"}
            if self._api_key:
                headers["Authorization"] = f"Bearer {self._api_key}"
            self._http = HttpClient(self.url, limit=self.concurrency, headers=headers)
        return self._http

    async def post(self, payload: bytes) -> HttpResponse:
        """POST a JSON body to the chat endpoint once, within the settings' timeout (no retries).
        Raises ``HttpConnectionError`` or ``TimeoutError``."""
        return await self._client().request("POST", self._path, payload, timeout_s=self.settings.timeout_s)

    def request_body(self, req: ModelRequest) -> tuple[dict[str, Any], NameMap]:
        """The JSON body for ``req`` and the tool-name map used to build it."""
        # fc mode names every tool up front (aliases in tool order); prompt mode sends no tools
        names = NameMap.for_tools(req.tools) if self.mode == "fc" else NameMap()
        body: dict[str, Any] = {"model": self.model, "messages": openai_messages(req.messages, names)}
        if self.settings.temperature is not None:
            body["temperature"] = self.settings.temperature
        body["max_tokens"] = self.settings.max_tokens
        if self.mode == "fc" and req.tools:
            body["tools"] = openai_tools(req.tools, names)
            if self.settings.tool_choice is not None:
                body["tool_choice"] = self.settings.tool_choice
            if self.settings.parallel_tool_calls is not None:
                body["parallel_tool_calls"] = self.settings.parallel_tool_calls
        body.update(self.settings.extra_body)
        return body, names

    async def complete(self, req: ModelRequest) -> ModelResponse:
        body, names = self.request_body(req)
        start = time.perf_counter()
        got, attempts, gave_up = await self.send(orjson.dumps(body), lambda resp: self._read(resp, names))
        latency = time.perf_counter() - start
        if got is None:
            return ModelResponse(
                text="", tool_calls=None, error=gave_up, error_kind="infra", latency_s=latency, attempts=attempts
            )
        # not dataclasses.replace: it costs several times a plain construction on this hot path
        return ModelResponse(got.text, got.tool_calls, got.error, got.error_kind, latency, attempts)

    async def send(self, payload: bytes, read: Callable[[HttpResponse], T]) -> tuple[T | None, int, str | None]:
        """POST ``payload`` and ``read`` the answer, retrying with exponential backoff and jitter
        (``Retry-After`` honoured) on timeouts, dropped connections, 429 and 5xx that are not the
        model's own format error, and whatever ``read`` raises ``RetryRequest`` for. Returns ``(value,
        attempts, None)``, or ``(None, attempts, why)`` once the retries are spent."""
        s = self.settings
        attempt = 0
        while True:
            attempt += 1
            try:
                return read(await self._post_checked(payload)), attempt, None
            except RetryRequest as retry:
                if attempt > s.max_retries:
                    return None, attempt, f"{retry.reason} (gave up after {attempt} attempts)"
                wait = backoff_s(attempt - 1, s.backoff_base_s, s.backoff_max_s)
                if retry.wait_s is not None:
                    wait = max(wait, min(retry.wait_s, RETRY_AFTER_CAP_S))
                await _sleep(wait)

    async def _post_checked(self, payload: bytes) -> HttpResponse:
        """One attempt; raises ``RetryRequest`` for what is worth asking again."""
        try:
            resp = await self.post(payload)
        except TimeoutError as exc:
            raise RetryRequest(f"timeout after {self.settings.timeout_s:g}s") from exc
        except HttpConnectionError as exc:
            raise RetryRequest(f"connection error: {exc}") from exc
        if resp.status != 200 and retryable_status(resp.status):
            message = _error_message(resp.body.decode("utf-8", errors="replace"))
            if model_format_error(resp.status, message) is None:
                wait = retry_after_s(resp.headers.get("retry-after"))
                raise RetryRequest(f"HTTP {resp.status}: {message[:500]}", wait_s=wait)
        return resp

    def _read(self, resp: HttpResponse, names: NameMap) -> ModelResponse:
        """A chat completion's text and calls, a model-format error, or an infra error."""
        if resp.status == 200:
            try:
                parsed = parse_choice(orjson.loads(resp.body), names, fc=self.mode == "fc")
            except ValueError as exc:  # orjson.JSONDecodeError is one
                raise RetryRequest(f"malformed 200 response: {exc}") from exc
            if parsed.problems:
                return ModelResponse(
                    text=parsed.text,
                    tool_calls=parsed.tool_calls,
                    error="; ".join(parsed.problems),
                    error_kind="model_format",
                )
            return ModelResponse(text=parsed.text, tool_calls=parsed.tool_calls)
        status = resp.status
        message = _error_message(resp.body.decode("utf-8", errors="replace"))
        fmt = model_format_error(status, message)
        if fmt is not None:
            return ModelResponse(
                text=fmt.raw_text,
                tool_calls=None,  # the quoted raw text, if any, goes to our own tolerant parser
                error=f"HTTP {status}: {fmt.message[:2000]}",
                error_kind="model_format",
            )
        return ModelResponse(
            text="", tool_calls=None, error=f"HTTP {status} from {self.url}: {message[:2000]}", error_kind="infra"
        )

    async def aclose(self) -> None:
        if self._http is not None:
            await self._http.aclose()
        self._http = None
