"""A minimal OpenAI-compatible chat server on 127.0.0.1 for run tests: fixed latency, fixed reply.

It runs in a daemon thread with its own event loop and stops when the context exits.
"""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from aiohttp import web

from robustcall.core import EvalConfig, GoldenAnswer, Message, Sample, SourceInfo, ToolSpec, write_jsonl


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


Reply = dict[str, Any] | tuple[int, dict[str, Any], dict[str, str]]
Handler = Callable[[dict[str, Any]], Awaitable[Reply]]
"""Request body -> response body of one chat completion, or (HTTP status, body, headers)."""


def completion(text: str, logprob: float | None = None) -> dict[str, Any]:
    """A chat-completion body with one choice (and one token's log-probability when given)."""
    choice: dict[str, Any] = {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
    if logprob is not None:
        choice["logprobs"] = {"content": [{"token": "x", "logprob": logprob}]}
    return {"id": "x", "object": "chat.completion", "choices": [choice]}


@contextmanager
def serve_chat(handler: Handler) -> Iterator[str]:
    """Serve ``/v1/chat/completions`` with ``handler``; yields the base URL (``http://127.0.0.1:PORT/v1``)."""
    port = free_port()
    loop = asyncio.new_event_loop()
    started = threading.Event()
    runner_box: list[web.AppRunner] = []

    async def chat(request: web.Request) -> web.Response:
        reply = await handler(await request.json())
        if isinstance(reply, tuple):
            status, body, headers = reply
            return web.json_response(body, status=status, headers=headers)
        return web.json_response(reply)

    async def start() -> None:
        app = web.Application()
        app.router.add_post("/v1/chat/completions", chat)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        await web.TCPSite(runner, "127.0.0.1", port, backlog=1024).start()
        runner_box.append(runner)
        started.set()

    def serve() -> None:
        asyncio.set_event_loop(loop)
        loop.run_until_complete(start())
        loop.run_forever()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    if not started.wait(10):
        raise RuntimeError("mock server did not start")
    try:
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        fut = asyncio.run_coroutine_threadsafe(runner_box[0].cleanup(), loop)
        fut.result(10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)


@contextmanager
def mock_openai(reply: str = "[f(a=1)]", latency_s: float = 0.0) -> Iterator[str]:
    """Every request gets ``reply`` after ``latency_s``."""

    async def fixed(body: dict[str, Any]) -> dict[str, Any]:
        if latency_s:
            await asyncio.sleep(latency_s)
        return completion(reply)

    with serve_chat(fixed) as url:
        yield url


if __name__ == "__main__":  # serve for a subprocess test: python mock_openai.py PORTFILE LATENCY
    import sys
    import time

    with mock_openai(latency_s=float(sys.argv[2])) as url:
        with open(sys.argv[1], "w") as fh:
            fh.write(url)
        time.sleep(float(sys.argv[3]) if len(sys.argv) > 3 else 120)


def capital_sample(i: int) -> Sample:
    """A one-call BFCL-shaped sample (``capital_<i>(country="C<i>")``) for the run and CLI tests."""
    tool = ToolSpec(
        name=f"capital_{i}",
        description="Capital of a country.",
        parameters={"type": "dict", "properties": {"country": {"type": "string"}}, "required": ["country"]},
    )
    return Sample(
        id=f"bfcl_v3__BFCL_v3_simple__simple_{i}",
        benchmark="bfcl_v3",
        category="simple",
        source=SourceInfo(original_id=f"simple_{i}", benchmark="bfcl_v3", file="BFCL_v3_simple.json"),
        conversation=[Message(role="user", content=f"Capital of country {i}?")],
        tools=[tool],
        golden_answers=[GoldenAnswer(name=tool.name, parameters={"country": f"C{i}"})],
        eval_config=EvalConfig(method="bfcl_ast", output_format="bfcl"),
    )


def write_capital_bench(d: Path, n: int) -> Path:
    """A built-benchmark folder of ``n`` clean capital samples (``clean.jsonl`` and a manifest)."""
    write_jsonl(d / "clean.jsonl", [capital_sample(i) for i in range(n)])
    (d / "manifest.json").write_text(f'{{"counts": {{"clean": {n}}}}}\n')
    return d
