"""The lean HTTP/1.1 client against a raw asyncio server on 127.0.0.1 that scripts each answer:
keep-alive reuse, the three ways a body ends, stale and dropped connections, timeouts, the pool
limit."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import pytest

from robustcall.models import HttpClient, HttpConnectionError

Reply = Callable[[int, asyncio.StreamWriter], Awaitable[None]]


def ok(body: bytes = b'{"ok": true}', extra: bytes = b"") -> bytes:
    return b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n%s\r\n%s" % (len(body), extra, body)


class Server:
    """Counts connections and requests; ``reply(n, writer)`` answers the n-th request (0-based)."""

    def __init__(self, reply: Reply) -> None:
        self.reply = reply
        self.connections = 0
        self.open_now = 0
        self.most_open = 0
        self.requests: list[bytes] = []

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        self.open_now += 1
        self.most_open = max(self.most_open, self.open_now)
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = int(
                    next(h.split(b":")[1] for h in head.split(b"\r\n") if h.lower().startswith(b"content-length"))
                )
                body = await reader.readexactly(length)
                self.requests.append(head + body)
                await self.reply(len(self.requests) - 1, writer)
                if writer.is_closing():
                    return
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            self.open_now -= 1
            writer.close()

    async def __aenter__(self) -> str:
        self.server = await asyncio.start_server(self.handle, "127.0.0.1", 0)
        port = self.server.sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{port}/v1"

    async def __aexit__(self, *exc: object) -> None:
        self.server.close()


def run(coro: Awaitable[None]) -> None:
    asyncio.run(asyncio.wait_for(coro, 20))  # type: ignore[arg-type]


def test_keep_alive_reuses_one_connection_and_sends_the_request_verbatim() -> None:
    async def reply(n: int, w: asyncio.StreamWriter) -> None:
        w.write(ok(b'{"n": %d}' % n))

    async def go() -> None:
        srv = Server(reply)
        async with srv as url:
            client = HttpClient(url, limit=4, headers={"Authorization": "Bearer k"})
            bodies = [
                (await client.request("POST", "/v1/chat/completions", b'{"q": 1}', timeout_s=5)).body for _ in range(3)
            ]
            await client.aclose()
        assert bodies == [b'{"n": 0}', b'{"n": 1}', b'{"n": 2}']
        assert srv.connections == 1
        port = url.split(":")[2].split("/")[0]
        assert srv.requests[0] == (
            b"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1:"
            + port.encode()
            + b'\r\nAuthorization: Bearer k\r\nContent-Length: 8\r\n\r\n{"q": 1}'
        )

    run(go())


def test_chunked_and_read_to_close_bodies_and_lowercased_headers() -> None:
    async def reply(n: int, w: asyncio.StreamWriter) -> None:
        if n == 0:
            w.write(
                b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nRetry-After: 7\r\n\r\n"
                b"3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n"
            )
        else:
            w.write(b"HTTP/1.1 503 Busy\r\nConnection: close\r\n\r\nno length, ends at close")
            await w.drain()
            w.close()

    async def go() -> None:
        srv = Server(reply)
        async with srv as url:
            client = HttpClient(url)
            first = await client.request("POST", "/x", b"{}", timeout_s=5)
            second = await client.request("POST", "/x", b"{}", timeout_s=5)
            await client.aclose()
        assert (first.status, first.body, first.headers["retry-after"]) == (200, b"abcde", "7")
        assert (second.status, second.body) == (503, b"no length, ends at close")

    run(go())


def test_connection_close_and_a_stale_idle_connection_open_a_fresh_one() -> None:
    async def reply(n: int, w: asyncio.StreamWriter) -> None:
        if n == 0:
            w.write(ok(extra=b"Connection: close\r\n"))
            await w.drain()
            w.close()
        elif n == 1:  # says keep-alive, then closes behind the client's back
            w.write(ok())
            await w.drain()
            w.close()
        else:
            w.write(ok(b"third"))

    async def go() -> None:
        srv = Server(reply)
        async with srv as url:
            client = HttpClient(url)
            for _ in range(2):
                assert (await client.request("POST", "/x", timeout_s=5)).status == 200
            await asyncio.sleep(0.1)  # the close reaches the client's idle connection
            third = await client.request("POST", "/x", timeout_s=5)
            await client.aclose()
        assert third.body == b"third"
        assert srv.connections == 3

    run(go())


def test_a_reply_that_never_comes_times_out_and_the_client_stays_usable() -> None:
    async def reply(n: int, w: asyncio.StreamWriter) -> None:
        if n == 0:
            await asyncio.sleep(3)
        w.write(ok(b"later"))

    async def go() -> None:
        srv = Server(reply)
        async with srv as url:
            client = HttpClient(url)
            loop = asyncio.get_running_loop()
            t0 = loop.time()
            with pytest.raises(TimeoutError):
                await client.request("POST", "/x", timeout_s=0.3)
            assert 0.25 <= loop.time() - t0 < 1.5
            assert (await client.request("POST", "/x", timeout_s=5)).body == b"later"
            await client.aclose()

    run(go())


def test_a_connection_dropped_mid_response_and_a_refused_connect_are_connection_errors() -> None:
    async def reply(n: int, w: asyncio.StreamWriter) -> None:
        w.write(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly part")
        await w.drain()
        w.close()

    async def go() -> None:
        async with Server(reply) as url:
            client = HttpClient(url)
            with pytest.raises(HttpConnectionError, match="before a whole response"):
                await client.request("POST", "/x", timeout_s=5)
            await client.aclose()
        refused = HttpClient(url)
        with pytest.raises(HttpConnectionError, match=r"cannot connect to 127\.0\.0\.1:"):
            await refused.request("POST", "/x", timeout_s=5)

    run(go())


def test_the_pool_never_opens_more_than_its_limit() -> None:
    async def reply(n: int, w: asyncio.StreamWriter) -> None:
        await asyncio.sleep(0.05)
        w.write(ok())

    async def go() -> None:
        srv = Server(reply)
        async with srv as url:
            client = HttpClient(url, limit=2)
            got = await asyncio.gather(*(client.request("POST", "/x", timeout_s=5) for _ in range(7)))
            await client.aclose()
        assert [r.status for r in got] == [200] * 7
        assert srv.most_open == 2

    run(go())


def test_a_request_that_times_out_waiting_for_the_pool_gives_up_no_slot() -> None:
    async def reply(n: int, w: asyncio.StreamWriter) -> None:
        await asyncio.sleep(0.2)
        w.write(ok())

    async def go() -> None:
        srv = Server(reply)
        async with srv as url:
            client = HttpClient(url, limit=1)
            busy = asyncio.ensure_future(client.request("POST", "/x", timeout_s=5))
            await asyncio.sleep(0.05)  # the only connection is taken
            with pytest.raises(TimeoutError):
                await client.request("POST", "/x", timeout_s=0.05)
            queued = [asyncio.ensure_future(client.request("POST", "/x", timeout_s=5)) for _ in range(2)]
            got = await asyncio.gather(busy, *queued)
            await client.aclose()
        assert [r.status for r in got] == [200] * 3
        assert srv.most_open == 1
        assert len(srv.requests) == 3  # the request that gave up in the queue was never sent

    run(go())


def test_urls_that_are_not_http_are_refused() -> None:
    with pytest.raises(ValueError, match="not an http"):
        HttpClient("ftp://example.org/v1")
