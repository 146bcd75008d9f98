"""Fixtures for model backend tests: a mock OpenAI server and a hand-built BFCL-like sample.

The mock is aiohttp.web on 127.0.0.1 (random port) in its own thread and loop. Tests queue one
action per coming request; with the queue empty it answers 200 with text, or with a tool call to
the first tool when the request carries ``tools``.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from aiohttp import web

from robustcall.core import EvalConfig, GoldenAnswer, Message, Sample, SourceInfo, ToolSpec


@dataclass
class Action:
    kind: str  # "status" | "hang" | "drop" | "text" | "calls" | "raw"
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: Any = None
    seconds: float = 0.0


def status(code: int, message: str = "boom", headers: dict[str, str] | None = None) -> Action:
    return Action("status", code, headers or {}, {"error": {"code": code, "message": message, "type": "server_error"}})


def hang(seconds: float = 5.0) -> Action:
    return Action("hang", seconds=seconds)


def drop() -> Action:
    return Action("drop")


def text(content: str) -> Action:
    return Action("text", body=content)


def calls(tool_calls: list[dict[str, Any]]) -> Action:
    return Action("calls", body=tool_calls)


def completion(message: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": "cmpl-1",
        "object": "chat.completion",
        "choices": [{"index": 0, "message": {"role": "assistant", **message}, "finish_reason": "stop"}],
    }


class MockOpenAI:
    def __init__(self) -> None:
        self.actions: deque[Action] = deque()
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.times: list[float] = []
        self.port = 0
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._runner: web.AppRunner | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def queue(self, *actions: Action) -> None:
        self.actions.extend(actions)

    # one method per kind of answer, so tests need no imports from here
    def status(self, code: int, message: str = "boom", headers: dict[str, str] | None = None) -> None:
        self.queue(status(code, message, headers))

    def hang(self, seconds: float = 5.0) -> None:
        self.queue(hang(seconds))

    def drop(self) -> None:
        self.queue(drop())

    def text(self, content: str) -> None:
        self.queue(text(content))

    def calls(self, tool_calls: list[dict[str, Any]]) -> None:
        self.queue(calls(tool_calls))

    def reset(self) -> None:
        self.actions.clear()
        self.requests.clear()
        self.headers.clear()
        self.times.clear()

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        self.requests.append(body)
        self.headers.append(dict(request.headers))
        self.times.append(time.monotonic())
        action = self.actions.popleft() if self.actions else None
        if action is None:
            if body.get("tools"):
                name = body["tools"][0]["function"]["name"]
                fn = {"name": name, "arguments": json.dumps({"x": 1})}
                call = {"id": "c0", "type": "function", "function": fn}
                return web.json_response(completion({"content": None, "tool_calls": [call]}))
            return web.json_response(completion({"content": "hello"}))
        if action.kind == "status":
            return web.json_response(action.body, status=action.status, headers=action.headers)
        if action.kind == "hang":
            await asyncio.sleep(action.seconds)
            return web.json_response(completion({"content": "too late"}))
        if action.kind == "drop":
            assert request.transport is not None
            request.transport.abort()
            return web.Response()
        if action.kind == "text":
            return web.json_response(completion({"content": action.body}))
        if action.kind == "calls":
            return web.json_response(completion({"content": None, "tool_calls": action.body}))
        raise AssertionError(action.kind)

    async def _start(self) -> None:
        app = web.Application()
        app.router.add_post("/v1/chat/completions", self._handle)
        self._runner = web.AppRunner(app, shutdown_timeout=0.1)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        server = site._server
        assert server is not None
        self.port = server.sockets[0].getsockname()[1]  # type: ignore[union-attr]

    def start(self) -> MockOpenAI:
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._start(), self._loop).result(timeout=10)
        return self

    async def _cancel_pending(self) -> None:
        tasks = [t for t in asyncio.all_tasks(self._loop) if t is not asyncio.current_task()]
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    def stop(self) -> None:
        if self._runner is not None:
            asyncio.run_coroutine_threadsafe(self._runner.cleanup(), self._loop).result(timeout=10)
        asyncio.run_coroutine_threadsafe(self._cancel_pending(), self._loop).result(timeout=10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)


@pytest.fixture(scope="session")
def _mock_server() -> Iterator[MockOpenAI]:
    server = MockOpenAI().start()
    yield server
    server.stop()


@pytest.fixture()
def mock_openai(_mock_server: MockOpenAI) -> Iterator[MockOpenAI]:
    """The mock server with an empty action queue and request log."""
    _mock_server.reset()
    yield _mock_server
    _mock_server.reset()


def _tool(name: str, desc: str, params: dict[str, str]) -> ToolSpec:
    props = {p: {"type": t, "description": p} for p, t in params.items()}
    schema = {"type": "dict", "properties": props, "required": list(params)}
    return ToolSpec(name=name, description=desc, parameters=schema)


@pytest.fixture()
def sample() -> Sample:
    """Three tools; the golden call is the second one (``weather.get_forecast``)."""
    return Sample(
        id="bfcl_multiple_7",
        benchmark="bfcl",
        category="multiple",
        source=SourceInfo(original_id="multiple_7", benchmark="bfcl"),
        conversation=[
            Message(role="system", content="You can call tools."),
            Message(role="user", content="What is the weather forecast for Paris over the next 3 days?"),
        ],
        tools=[
            _tool("hotel.book_room", "Book a hotel room.", {"city": "string", "nights": "integer"}),
            _tool("weather.get_forecast", "Get a forecast.", {"city": "string", "days": "integer"}),
            _tool("fastWeatherForecastTool", "The fastest weather forecast.", {"city": "string", "days": "integer"}),
        ],
        golden_answers=[GoldenAnswer(name="weather.get_forecast", parameters={"city": "Paris", "days": 3})],
        eval_config=EvalConfig(method="bfcl_ast", output_format="bfcl"),
    )
