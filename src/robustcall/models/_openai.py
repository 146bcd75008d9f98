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
import re
import sys
import time
from collections.abc import Callable
from typing import Any, TypeVar
from urllib.parse import urlsplit

import orjson

from robustcall.models._api import Mode, ModelRequest, ModelResponse
from robustcall.models._convert import NameMap, openai_messages, openai_tools, parse_choice, read_usage
from robustcall.models._endpoints import EndpointPool
from robustcall.models._http import HttpConnectionError, HttpResponse, HttpResponseTooLarge, Limits
from robustcall.models._proxy import proxy_for
from robustcall.models._retry import (
    backoff_lender,
    backoff_s,
    model_format_error,
    retry_after_s,
    retryable_status,
)
from robustcall.models._settings import DEFAULT_CONCURRENCY, ModelSettings
from robustcall.models._watch import STOPPED_NOTE, Watch, failure_watch

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


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def decode_answer(body: bytes) -> tuple[Any, int]:
    """The JSON of a 200 answer, and how many lone surrogates it had. A lone surrogate escape
    (``"\\ud800"``) is not Unicode text, so orjson refuses the body; but it is the model's own
    output, not the endpoint failing: the standard decoder reads it, and each lone surrogate becomes
    U+FFFD (the caller records a model-format error). Raises ``ValueError`` on anything else."""
    try:
        return orjson.loads(body), 0
    except orjson.JSONDecodeError as exc:
        if b"\\u" not in body:
            raise
        try:
            data, lone = _replace_lone_surrogates(json.loads(body))
        except (ValueError, RecursionError):
            raise exc from None
        if lone == 0:
            raise
        return data, lone


def _replace_lone_surrogates(value: Any) -> tuple[Any, int]:
    if isinstance(value, str):
        return _LONE_SURROGATE.subn("\ufffd", value)
    if isinstance(value, list):
        out: list[Any] = []
        total = 0
        for item in value:
            item, n = _replace_lone_surrogates(item)
            out.append(item)
            total += n
        return out, total
    if isinstance(value, dict):
        obj: dict[Any, Any] = {}
        total = 0
        for key, item in value.items():
            key, n = _replace_lone_surrogates(key)
            item, m = _replace_lone_surrogates(item)
            obj[key] = item
            total += n + m
        return obj, total
    return value, 0


class RetryRequest(Exception):
    """An attempt failed in a way worth retrying."""

    def __init__(self, reason: str, wait_s: float | None = None, *, final: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.wait_s = wait_s
        self.final = final
        """Not worth asking again after all (e.g. a response over the size limit)."""


def _timeout_reason(exc: TimeoutError, s: ModelSettings) -> str:
    """Which limit a timed-out attempt ran into, with its setting."""
    why = str(exc)
    if "first-byte" in why:
        return f"timeout: no answer began within {s.first_byte_timeout_s:g}s (first_byte_timeout_s)"
    if "idle" in why:
        return f"timeout: the answer stalled for {s.idle_timeout_s:g}s (idle_timeout_s)"
    if "connect" in why:
        return f"timeout: no connection within {s.connect_timeout_s:g}s (connect_timeout_s)"
    return f"timeout after {s.timeout_s:g}s"


class OpenAIChatModel:
    """A ``ChatModel`` talking to an OpenAI-compatible ``/v1/chat/completions`` endpoint, or to
    several replicas of one (a list of base URLs, balanced by ``EndpointPool``)."""

    def __init__(
        self,
        model: str,
        base_url: str | list[str],
        settings: ModelSettings | None = None,
        *,
        mode: Mode | None = None,
        concurrency: int = DEFAULT_CONCURRENCY,
        api_key: str | None = None,
        name: str | None = None,
        trust_env: bool = True,
        notice: str | None = None,
    ) -> None:
        self.settings = settings or ModelSettings()
        self.model = model
        self.mode: Mode = mode or self.settings.mode
        bases = [base_url] if isinstance(base_url, str) else list(base_url)
        if not bases:
            raise ValueError("no base URL")
        self.name = name or f"openai:{model}@{','.join(bases)}"
        self.urls = [chat_url(b) for b in bases]
        self.url = self.urls[0] if len(self.urls) == 1 else ",".join(self.urls)
        self.concurrency = max(1, concurrency)
        self._wait_capped_said = False
        self._api_key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY")
        self._trust_env = trust_env
        """Whether the environment's proxy variables apply (not for our own llama-server on 127.0.0.1)."""
        for url in self.urls if trust_env else ():
            parts = urlsplit(url)
            proxy_for(parts.scheme, parts.hostname or "", parts.port or 0)  # a proxy we cannot use fails here
        self._pool: EndpointPool | None = None
        self._notice = notice
        """One line printed on stderr before the first request (where requests go, when no one said)."""

    def _endpoints(self) -> EndpointPool:
        if self._pool is None:
            if self._notice:
                print(self._notice, file=sys.stderr, flush=True)
                self._notice = None
            headers = {"Content-Type": "application/json"}
            if self._api_key:
                headers["Authorization"] = f"Bearer {self._api_key}"
            self._pool = EndpointPool(self.urls, limit=self.concurrency, headers=headers, trust_env=self._trust_env)
        return self._pool

    async def post(self, payload: bytes) -> HttpResponse:
        """POST a JSON body to the chat endpoint (the least busy healthy one) once, within the
        settings' timeout and phase limits (no retries). Raises ``HttpConnectionError`` or ``TimeoutError``."""
        return await self._endpoints().post(payload, timeout_s=self.settings.timeout_s, limits=self._limits)

    def endpoint_stats(self) -> list[dict[str, Any]]:
        """Per endpoint: URL, requests sent, answered, failed (connection / timeout), times marked down."""
        if self._pool is None:
            return [
                {"url": u, "requests": 0, "ok": 0, "failed": 0, "marked_down": 0, "healthy": True} for u in self.urls
            ]
        return self._pool.stats()

    @property
    def _limits(self) -> Limits:
        s = self.settings
        return Limits(
            total_s=s.timeout_s,
            connect_s=s.connect_timeout_s or None,
            first_byte_s=s.first_byte_timeout_s or None,
            idle_s=s.idle_timeout_s or None,
            max_body_bytes=s.max_response_bytes,
        )

    def request_body(self, req: ModelRequest) -> tuple[dict[str, Any], NameMap]:
        """The JSON body for ``req`` and the tool-name map used to build it."""
        # fc mode names every tool up front (aliases in tool order); prompt mode sends no tools
        names = NameMap.for_tools(req.tools) if self.mode == "fc" else NameMap()
        body: dict[str, Any] = {"model": self.model, "messages": openai_messages(req.messages, names)}
        if self.settings.temperature is not None:
            body["temperature"] = self.settings.temperature
        body["max_tokens"] = (
            self.settings.max_tokens if req.max_tokens is None else min(req.max_tokens, self.settings.max_tokens)
        )
        if req.seed is not None:  # one per trial: OpenAI, vLLM, SGLang and llama-server read it
            body["seed"] = req.seed
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
        return ModelResponse(got.text, got.tool_calls, got.error, got.error_kind, latency, attempts, got.usage)

    async def send(self, payload: bytes, read: Callable[[HttpResponse], T]) -> tuple[T | None, int, str | None]:
        """POST ``payload`` and ``read`` the answer, retrying with exponential backoff and jitter
        (``Retry-After`` honoured) on timeouts, dropped connections, 429 and 5xx that are not the
        model's own format error, and whatever ``read`` raises ``RetryRequest`` for. Returns ``(value,
        attempts, None)``, or ``(None, attempts, why)`` once the retries are spent. Every attempt is
        reported to the context's ``failure_watch``; once it has stopped, nothing more is sent and
        a backoff wait ends at once."""
        s = self.settings
        watch = failure_watch.get()
        attempt = 0
        waited = 0.0
        last: str | None = None
        while True:
            if watch is not None and watch.stopped is not None:
                why = f"{last} ({STOPPED_NOTE})" if last else f"not sent: {watch.stopped} ({STOPPED_NOTE})"
                watch.gave_up(why)
                return None, attempt, why
            attempt += 1
            sent_at = watch.began() if watch is not None else 0.0
            try:
                value = read(await self._post_checked(payload))
            except RetryRequest as retry:
                last = retry.reason
                if watch is not None:
                    watch.failed(retry.reason, sent_at)
                if retry.final or attempt > s.max_retries:
                    why = retry.reason if retry.final else f"{retry.reason} (gave up after {attempt} attempts)"
                    if watch is not None:
                        watch.gave_up(why)
                    return None, attempt, why
                if watch is not None and watch.stopped is not None:
                    continue  # said at the top of the loop
                wait = backoff_s(attempt - 1, s.backoff_base_s, s.backoff_max_s)
                if retry.wait_s is not None:
                    wait = max(wait, min(retry.wait_s, RETRY_AFTER_CAP_S))
                left = s.max_retry_wait_s - waited
                if wait > left:  # the request's waits are capped in all, not only each one
                    self._say_wait_capped(wait)
                    if left <= 0:
                        why = f"gave up after {attempt} attempts and {waited:.0f} s of waiting"
                        why = f"{retry.reason} ({why}: max_retry_wait_s = {s.max_retry_wait_s:g})"
                        if watch is not None:
                            watch.gave_up(why)
                        return None, attempt, why
                    wait = left
                waited += wait
                lend = backoff_lender.get()
                if lend is None:
                    await self._backoff(wait, watch)
                else:  # the run's place for this request serves another one while we wait
                    async with lend():
                        await self._backoff(wait, watch)
                continue
            except BaseException:  # cancelled, or a bug of ours: neither an answer nor a failure
                if watch is not None:
                    watch.ended(sent_at)
                raise
            if watch is not None:
                watch.succeeded(sent_at)
            return value, attempt, None

    @staticmethod
    async def _backoff(seconds: float, watch: Watch | None) -> None:
        if watch is None:
            await _sleep(seconds)
        else:  # ends early when the command stops
            await watch.backoff(seconds, _sleep)

    def _say_wait_capped(self, wait: float) -> None:
        """Say once per model that a request's retries outlast ``max_retry_wait_s``."""
        if self._wait_capped_said:
            return
        self._wait_capped_said = True
        cap = self.settings.max_retry_wait_s
        print(
            f"warning: {self.url}: a retry asks to wait {wait:.0f} s; a request waits at most {cap:g} s in all "
            "(setting max_retry_wait_s), then is recorded as an infrastructure error",
            file=sys.stderr,
            flush=True,
        )

    async def _post_checked(self, payload: bytes) -> HttpResponse:
        """One attempt; raises ``RetryRequest`` for what is worth asking again."""
        try:
            resp = await self.post(payload)
        except TimeoutError as exc:
            raise RetryRequest(_timeout_reason(exc, self.settings)) from exc
        except HttpResponseTooLarge as exc:
            raise RetryRequest(f"response too large from {self.url}: {exc}", final=True) from exc
        except HttpConnectionError as exc:
            raise RetryRequest(f"connection error: {exc}") from exc
        if resp.status != 200 and retryable_status(resp.status):
            message = _error_message(resp.body.decode("utf-8", errors="replace"))
            if model_format_error(resp.status, message) is None:
                wait = retry_after_s(resp.headers.get("retry-after"))
                raise RetryRequest(f"HTTP {resp.status}: {message[:500]}", wait_s=wait)
        return resp

    def _read(self, resp: HttpResponse, names: NameMap) -> ModelResponse:
        """A chat completion's text and calls, or a model-format error; raises ``RetryRequest`` for
        an answer that is the endpoint's failure (``final`` when not worth asking again)."""
        if resp.status == 200:
            try:
                data, lone = decode_answer(resp.body)
                parsed = parse_choice(data, names, fc=self.mode == "fc")
            except ValueError as exc:  # orjson.JSONDecodeError is one
                raise RetryRequest(f"malformed 200 response: {exc}") from exc
            problems = parsed.problems
            usage = read_usage(data)
            if lone:
                lone_why = f"the answer has {lone} lone surrogate escape(s), not Unicode text (read as U+FFFD)"
                problems = [lone_why, *problems]
            if problems:
                return ModelResponse(
                    text=parsed.text,
                    tool_calls=parsed.tool_calls,
                    error="; ".join(problems),
                    error_kind="model_format",
                    usage=usage,
                )
            return ModelResponse(text=parsed.text, tool_calls=parsed.tool_calls, usage=usage)
        status = resp.status
        body = resp.body.decode("utf-8", errors="replace")
        message = _error_message(body)
        fmt = model_format_error(status, message)
        if fmt is not None:
            return ModelResponse(
                text=fmt.raw_text,
                tool_calls=None,  # the quoted raw text, if any, goes to our own tolerant parser
                error=f"HTTP {status}: {fmt.message[:2000]}",
                error_kind="model_format",
            )
        raise self.refusal(status, body)

    def refusal(self, status: int, body: str) -> RetryRequest:
        """The failure of an answer with HTTP ``status`` (not 200) and ``body`` (its ``error.message``
        when it is an OpenAI-style error): not retried (a 4xx is the request's fault), but an
        attempt that failed all the same. Every command names it this way."""
        return RetryRequest(f"HTTP {status} from {self.url}: {_error_message(body)[:2000]}", final=True)

    async def aclose(self) -> None:
        if self._pool is not None:
            await self._pool.aclose()
        self._pool = None
