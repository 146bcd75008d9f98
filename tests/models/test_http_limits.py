"""Response size cap and phase timeouts of the HTTP client (issue 22, items 9 and 10), against raw
servers on 127.0.0.1: an endless body, a huge Content-Length, a server that never answers, one that
stalls mid-body, a listener that never accepts; and what a run makes of them."""

from __future__ import annotations

import asyncio
import socket
import time

import pytest
from test_http_client import Server, ok

from robustcall.core import Sample
from robustcall.models import HttpClient, ModelRequest, ModelSettings, OpenAIChatModel
from robustcall.models._http import HttpResponseTooLarge, Limits

MIB = 2**20


async def endless(n: int, w: asyncio.StreamWriter) -> None:
    w.write(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
    chunk = b"%x\r\n%s\r\n" % (64 * 1024, b"x" * 64 * 1024)
    try:
        for _ in range(100_000):  # 6 GiB if nobody stops it
            w.write(chunk)
            await w.drain()
    except ConnectionError:
        return


async def huge_length(n: int, w: asyncio.StreamWriter) -> None:
    w.write(b"HTTP/1.1 200 OK\r\nContent-Length: 10000000000\r\n\r\n{")
    await w.drain()
    await asyncio.sleep(5)


async def silent(n: int, w: asyncio.StreamWriter) -> None:
    await asyncio.sleep(30)


async def stalls(n: int, w: asyncio.StreamWriter) -> None:
    w.write(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n0123456789")
    await w.drain()
    await asyncio.sleep(30)


def test_an_endless_body_is_cut_at_the_limit() -> None:
    async def main() -> None:
        async with Server(endless) as url:
            client = HttpClient(url)
            t0 = time.perf_counter()
            with pytest.raises(HttpResponseTooLarge, match="over the 1 MiB limit"):
                await client.request("POST", "/v1/x", b"{}", timeout_s=60, limits=Limits(60, max_body_bytes=MIB))
            assert time.perf_counter() - t0 < 30  # old main read until the 60 s deadline (GBs)
            await client.aclose()

    asyncio.run(main())


def test_a_content_length_over_the_limit_is_refused_before_the_body() -> None:
    async def main() -> None:
        async with Server(huge_length) as url:
            client = HttpClient(url)
            with pytest.raises(HttpResponseTooLarge, match="10,000,000,000 bytes"):
                await client.request("POST", "/v1/x", b"{}", timeout_s=20, limits=Limits(20, max_body_bytes=MIB))
            await client.aclose()

    asyncio.run(main())


@pytest.mark.parametrize(
    ("reply", "limits", "message"),
    [
        (silent, Limits(30, first_byte_s=0.3), "first-byte"),
        (stalls, Limits(30, first_byte_s=10, idle_s=0.3), "idle"),
    ],
)
def test_phase_timeouts_fire_long_before_the_total(reply: object, limits: Limits, message: str) -> None:
    async def main() -> float:
        async with Server(reply) as url:  # type: ignore[arg-type]
            client = HttpClient(url)
            t0 = time.perf_counter()
            with pytest.raises(TimeoutError, match=message):
                await client.request("POST", "/v1/x", b"{}", timeout_s=limits.total_s, limits=limits)
            await client.aclose()
            return time.perf_counter() - t0

    assert asyncio.run(main()) < 10  # the total is 30 s


def test_a_listener_that_never_accepts_hits_the_connect_timeout() -> None:
    lsock = socket.socket()
    lsock.bind(("127.0.0.1", 0))
    lsock.listen(0)
    port = lsock.getsockname()[1]
    fillers = []
    for _ in range(4):  # fill the accept queue: further SYNs are dropped, connects hang
        s = socket.socket()
        s.setblocking(False)
        s.connect_ex(("127.0.0.1", port))
        fillers.append(s)
    time.sleep(0.2)

    async def main() -> float:
        client = HttpClient(f"http://127.0.0.1:{port}")
        t0 = time.perf_counter()
        with pytest.raises(TimeoutError, match="connect timeout"):
            await client.request("POST", "/v1/x", b"{}", timeout_s=30, limits=Limits(30, connect_s=0.5))
        await client.aclose()
        return time.perf_counter() - t0

    try:
        assert asyncio.run(main()) < 10
    finally:
        for s in fillers:
            s.close()
        lsock.close()


def _request(sample: Sample) -> ModelRequest:
    return ModelRequest(messages=sample.conversation, tools=sample.tools, sample=sample)


def test_a_capped_response_is_an_infra_error_asked_once(sample: Sample) -> None:
    async def main() -> None:
        server = Server(endless)
        async with server as url:
            model = OpenAIChatModel("m", url, ModelSettings(max_response_bytes=MIB, max_retries=3))
            resp = await model.complete(_request(sample))
            await model.aclose()
        assert resp.error_kind == "infra" and resp.attempts == 1
        assert resp.error is not None and "max_response_bytes" in resp.error and "1 MiB" in resp.error
        assert len(server.requests) == 1

    asyncio.run(main())


def test_hung_requests_cost_the_first_byte_timeout_then_a_retry_answers(sample: Sample) -> None:
    """30% of requests hang: with a 0.3 s first-byte timeout each hang costs 0.3 s, not the total."""
    body = b'{"choices": [{"index": 0, "message": {"role": "assistant", "content": "[f(a=1)]"}}]}'

    async def flaky(n: int, w: asyncio.StreamWriter) -> None:
        if n % 10 < 3:
            await asyncio.sleep(30)
            return
        w.write(ok(body))
        await w.drain()

    async def main() -> tuple[float, list[str | None]]:
        async with Server(flaky) as url:
            settings = ModelSettings(timeout_s=30, first_byte_timeout_s=0.3, backoff_base_s=0.01, max_retries=5)
            model = OpenAIChatModel("m", url, settings, concurrency=4)
            t0 = time.perf_counter()
            got = await asyncio.gather(*(model.complete(_request(sample)) for _ in range(20)))
            took = time.perf_counter() - t0
            await model.aclose()
        return took, [r.error for r in got]

    took, errors = asyncio.run(main())
    assert errors == [None] * 20
    assert took < 20  # with only the 30 s total, every hang would cost 30 s
