"""A card of an ``openai/<name>`` endpoint (``--base-url``): every system reaches it, and an endpoint
that answers every request in words gets the card of ``scripted:never_call``."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from _card_cli import make_card
from aiohttp import web

from robustcall.card import read_card

WORDS = "I would rather not call a tool."


class Wordy:
    """An OpenAI-compatible server on 127.0.0.1 that answers every chat completion with ``WORDS``."""

    def __init__(self) -> None:
        self.requests = 0
        self.port = 0
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.runner: web.AppRunner | None = None

    async def _handle(self, request: web.Request) -> web.Response:
        await request.json()
        self.requests += 1
        message = {"role": "assistant", "content": WORDS}
        choice = {"index": 0, "message": message, "finish_reason": "stop"}
        return web.json_response({"id": "c", "object": "chat.completion", "choices": [choice]})

    async def _start(self) -> None:
        app = web.Application()
        app.router.add_post("/v1/chat/completions", self._handle)
        self.runner = web.AppRunner(app, shutdown_timeout=0.1)
        await self.runner.setup()
        site = web.TCPSite(self.runner, "127.0.0.1", 0)
        await site.start()
        assert site._server is not None
        self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]

    def __enter__(self) -> Wordy:
        self.thread.start()
        asyncio.run_coroutine_threadsafe(self._start(), self.loop).result(timeout=10)
        return self

    def __exit__(self, *_: object) -> None:
        assert self.runner is not None
        asyncio.run_coroutine_threadsafe(self.runner.cleanup(), self.loop).result(timeout=10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=10)


@pytest.fixture
def wordy() -> Iterator[Wordy]:
    with Wordy() as server:
        yield server


def test_an_endpoint_that_never_calls_gets_the_never_call_card(wordy: Wordy, naive_card: Path, tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{wordy.port}/v1"
    card_dir = make_card(tmp_path / "card", ["--model", "openai/wordy", "--base-url", url, "--concurrency", "4"])
    card, naive = read_card(card_dir), read_card(naive_card)
    assert card.model == "openai/wordy" and url not in (card_dir / "card.json").read_text()
    assert [(t.code, t.n, t.accuracy) for t in card.robustbench.types] == [
        (t.code, t.n, t.accuracy) for t in naive.robustbench.types
    ]
    assert card.robustbench.clean == naive.robustbench.clean and card.robustbench.infra_errors == 0
    assert card.pipe == naive.pipe
    assert [(r.pooled.faults, r.pooled.success_rate, r.pooled.ufr) for r in card.faults] == [
        (0, 0.0, 0.0) for _ in naive.faults
    ]
    # RobustBench-TC's 460 records (the six transition types ask once: no call, no second pass), one
    # request per episode (an answer in words ends it): 2 envs x 3 tasks x (5 PIPE runs + 3 fault classes)
    assert wordy.requests == 460 + 2 * 3 * (5 + 3)
