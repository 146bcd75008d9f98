"""An OpenAI-compatible chat endpoint for the rm CLI tests: judge prompts get ``[VERDICT] [[A]]``;
other requests get one of ``replies`` chosen by the request's ``seed`` (0 without one), with a
log-probability when ``logprobs`` is asked for."""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from aiohttp import web


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def mock_endpoint(replies: list[str]) -> Iterator[str]:
    port = _port()
    loop = asyncio.new_event_loop()
    started = threading.Event()
    box: list[web.AppRunner] = []

    async def chat(request: web.Request) -> web.Response:
        body = await request.json()
        prompt = body["messages"][-1]["content"]
        seed = int(body.get("seed", 0))
        if "impartial judge" in prompt:
            text = "[EXPLANATION]\nA is better.\n\n[VERDICT]\n[[A]]"
        else:
            text = replies[seed % len(replies)]
        choice: dict[str, Any] = {
            "index": 0,
            "message": {"role": "assistant", "content": text},
            "finish_reason": "stop",
        }
        if body.get("logprobs"):
            choice["logprobs"] = {"content": [{"token": "x", "logprob": -float(seed % 7)}]}
        return web.json_response({"id": "x", "object": "chat.completion", "choices": [choice]})

    async def start() -> None:
        app = web.Application()
        app.router.add_post("/v1/chat/completions", chat)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        await web.TCPSite(runner, "127.0.0.1", port).start()
        box.append(runner)
        started.set()

    def serve() -> None:
        asyncio.set_event_loop(loop)
        loop.run_until_complete(start())
        loop.run_forever()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    if not started.wait(10):
        raise RuntimeError("mock endpoint did not start")
    try:
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        asyncio.run_coroutine_threadsafe(box[0].cleanup(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
