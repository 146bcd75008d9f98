"""A minimal, fast OpenAI-compatible chat server for throughput benchmarks (127.0.0.1 only).

It answers every ``POST .../chat/completions`` after a fixed latency with one fixed reply, on a raw
asyncio protocol with HTTP/1.1 keep-alive: no per-request coroutine, so the server is not the
bottleneck of the client it measures (an aiohttp server on one core saturates near 2,000 req/s).

With ``--fail P`` a share P of requests fails, the four kinds in equal parts (seeded): HTTP 429 with
``Retry-After`` at once, HTTP 500 after the latency, no answer at all (the client's timeout ends it),
and the connection closed as soon as the request is read.

usage: python benchmarks/fast_mock_openai.py PORTFILE LATENCY_S [LIFETIME_S] [--fail P] [--retry-after S] [--seed N]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
from collections import deque

REPLY = json.dumps(
    {
        "id": "x",
        "object": "chat.completion",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": "[f(a=1)]"}, "finish_reason": "stop"}],
    }
).encode()
RESPONSE = (
    b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
    + str(len(REPLY)).encode()
    + b"\r\nConnection: keep-alive\r\n\r\n"
    + REPLY
)

ERROR_BODY = b'{"error": {"message": "injected failure", "type": "server_error"}}'


def error_response(status: int, reason: str, extra: str = "") -> bytes:
    return (
        f"HTTP/1.1 {status} {reason}\r\nContent-Type: application/json\r\nContent-Length: {len(ERROR_BODY)}\r\n"
        f"{extra}Connection: keep-alive\r\n\r\n"
    ).encode() + ERROR_BODY


class Failures:
    """Which requests fail and how: a seeded draw per request, in arrival order."""

    KINDS = ("429", "500", "timeout", "drop")

    def __init__(self, share: float, retry_after_s: float, seed: int) -> None:
        self.share = share
        self.rng = random.Random(seed)
        self.r429 = error_response(429, "Too Many Requests", f"Retry-After: {retry_after_s:g}\r\n")
        self.r500 = error_response(500, "Internal Server Error")
        self.counts = dict.fromkeys(("ok", *self.KINDS), 0)

    def draw(self) -> str:
        kind = "ok" if self.rng.random() >= self.share else self.rng.choice(self.KINDS)
        self.counts[kind] += 1
        return kind


class Replies:
    """Every reply is due a fixed latency after its request, so replies fall due in arrival order:
    one FIFO and one timer at a time, not a timer per request."""

    def __init__(self, latency: float) -> None:
        self.latency = latency
        self.due: deque[tuple[float, asyncio.Transport, bytes]] = deque()
        self.timer: asyncio.TimerHandle | None = None

    def add(self, transport: asyncio.Transport, response: bytes = RESPONSE) -> None:
        loop = asyncio.get_running_loop()
        self.due.append((loop.time() + self.latency, transport, response))
        if self.timer is None:
            self.timer = loop.call_at(self.due[0][0], self.send_due)

    def send_due(self) -> None:
        loop = asyncio.get_running_loop()
        now = loop.time()
        due = self.due
        while due and due[0][0] <= now:
            _, transport, response = due.popleft()
            if not transport.is_closing():
                transport.write(response)
        self.timer = loop.call_at(due[0][0], self.send_due) if due else None


class ChatProtocol(asyncio.Protocol):
    def __init__(self, replies: Replies, failures: Failures | None = None) -> None:
        self.replies = replies
        self.failures = failures
        self.buffer = b""
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        self.buffer = self.buffer + data if self.buffer else data
        while True:
            head_end = self.buffer.find(b"\r\n\r\n")
            if head_end < 0:
                return
            head = self.buffer[:head_end].lower()
            length = 0
            at = head.find(b"content-length:")
            if at >= 0:
                eol = head.find(b"\r\n", at)
                length = int(head[at + 15 : eol if eol > 0 else None])
            total = head_end + 4 + length
            if len(self.buffer) < total:
                return
            self.buffer = self.buffer[total:]
            assert self.transport is not None
            kind = "ok" if self.failures is None else self.failures.draw()
            if kind == "ok":
                self.replies.add(self.transport)
            elif kind == "500":
                assert self.failures is not None
                self.replies.add(self.transport, self.failures.r500)
            elif kind == "429":
                assert self.failures is not None
                self.transport.write(self.failures.r429)
            elif kind == "drop":
                self.transport.close()
                return
            # "timeout": never answered


async def serve(portfile: str, latency: float, lifetime: float, failures: Failures | None = None) -> None:
    loop = asyncio.get_running_loop()
    replies = Replies(latency)
    server = await loop.create_server(lambda: ChatProtocol(replies, failures), "127.0.0.1", 0, backlog=2048)
    port = server.sockets[0].getsockname()[1]
    with open(portfile, "w") as fh:
        fh.write(f"http://127.0.0.1:{port}/v1")
    await asyncio.sleep(lifetime)
    server.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("portfile")
    ap.add_argument("latency", type=float)
    ap.add_argument("lifetime", type=float, nargs="?", default=600.0)
    ap.add_argument("--fail", type=float, default=0.0, help="share of requests that fail")
    ap.add_argument("--retry-after", type=float, default=1.0, help="seconds the 429s ask to wait")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    failures = Failures(args.fail, args.retry_after, args.seed) if args.fail > 0 else None
    asyncio.run(serve(args.portfile, args.latency, args.lifetime, failures))


if __name__ == "__main__":
    main()
