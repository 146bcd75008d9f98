"""A minimal, fast OpenAI-compatible chat server for throughput benchmarks (127.0.0.1 only).

It answers every ``POST .../chat/completions`` after a fixed latency with one fixed reply, on a raw
asyncio protocol with HTTP/1.1 keep-alive: no per-request coroutine, so the server is not the
bottleneck of the client it measures (an aiohttp server on one core saturates near 2,000 req/s).

usage: python benchmarks/fast_mock_openai.py PORTFILE LATENCY_S [LIFETIME_S]
"""

from __future__ import annotations

import asyncio
import json
import sys
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


class Replies:
    """Every reply is due a fixed latency after its request, so replies fall due in arrival order:
    one FIFO and one timer at a time, not a timer per request."""

    def __init__(self, latency: float) -> None:
        self.latency = latency
        self.due: deque[tuple[float, asyncio.Transport]] = deque()
        self.timer: asyncio.TimerHandle | None = None

    def add(self, transport: asyncio.Transport) -> None:
        loop = asyncio.get_running_loop()
        self.due.append((loop.time() + self.latency, transport))
        if self.timer is None:
            self.timer = loop.call_at(self.due[0][0], self.send_due)

    def send_due(self) -> None:
        loop = asyncio.get_running_loop()
        now = loop.time()
        due = self.due
        while due and due[0][0] <= now:
            transport = due.popleft()[1]
            if not transport.is_closing():
                transport.write(RESPONSE)
        self.timer = loop.call_at(due[0][0], self.send_due) if due else None


class ChatProtocol(asyncio.Protocol):
    def __init__(self, replies: Replies) -> None:
        self.replies = replies
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
            self.replies.add(self.transport)


async def serve(portfile: str, latency: float, lifetime: float) -> None:
    loop = asyncio.get_running_loop()
    replies = Replies(latency)
    server = await loop.create_server(lambda: ChatProtocol(replies), "127.0.0.1", 0, backlog=2048)
    port = server.sockets[0].getsockname()[1]
    with open(portfile, "w") as fh:
        fh.write(f"http://127.0.0.1:{port}/v1")
    await asyncio.sleep(lifetime)
    server.close()


if __name__ == "__main__":
    asyncio.run(serve(sys.argv[1], float(sys.argv[2]), float(sys.argv[3]) if len(sys.argv) > 3 else 600))
