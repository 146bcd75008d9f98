"""A live ``leaderboard serve`` under hostile connections (issue 30, items 5 and 7): ordinary pages
are answered while slow clients hold every descriptor the server has, a client that never finishes
its headers is cut off, and ``X-Forwarded-For`` is believed only from proxies the operator names."""

from __future__ import annotations

import contextlib
import errno
import resource
import selectors
import socket
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator

import pytest
from _live_server import LiveServer

NOFILE = 1024
SLOW_CLIENTS = 1100
PARTIAL_HEADERS = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "


@contextlib.contextmanager
def _slow_clients(port: int, n: int) -> Iterator[list[socket.socket]]:
    """``n`` connections that each send the start of a request and then nothing (bounded: opened
    without blocking, given at most 10 s to connect, all closed at the end)."""
    socks: list[socket.socket] = []
    sel = selectors.DefaultSelector()
    try:
        for _ in range(n):
            s = socket.socket()
            s.setblocking(False)
            if s.connect_ex(("127.0.0.1", port)) not in (0, errno.EINPROGRESS):
                s.close()
                continue
            socks.append(s)
            sel.register(s, selectors.EVENT_WRITE)
        deadline = time.monotonic() + 10
        pending = len(socks)
        while pending and time.monotonic() < deadline:
            for key, _ in sel.select(timeout=0.5):
                sock = key.fileobj
                assert isinstance(sock, socket.socket)
                sel.unregister(sock)
                pending -= 1
                with contextlib.suppress(OSError):
                    sock.send(PARTIAL_HEADERS)
        yield socks
    finally:
        sel.close()
        for s in socks:
            s.close()


def _closed_by_server(socks: list[socket.socket]) -> int:
    closed = 0
    for s in socks:
        s.setblocking(False)
        try:
            closed += s.recv(1) == b""
        except BlockingIOError:
            pass  # still open, waiting for the rest of its headers
        except ConnectionResetError:
            closed += 1
    return closed


def _get(url: str, timeout: float) -> tuple[int, dict[str, str]]:
    with urllib.request.urlopen(url, timeout=timeout) as resp:
        resp.read()
        return resp.status, {k.lower(): v for k, v in resp.headers.items()}


def test_pages_are_answered_with_slow_clients_past_the_descriptor_limit(serve: Callable[..., LiveServer]) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < SLOW_CLIENTS + 200:
        pytest.skip(f"this process may open only {hard} descriptors")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, SLOW_CLIENTS + 200), hard))
    try:
        # a header timeout longer than the test: only the connection cap can make room
        server = serve("--header-timeout", "120", nofile=NOFILE)
        with _slow_clients(server.port, SLOW_CLIENTS) as socks:
            assert len(socks) == SLOW_CLIENTS
            for _ in range(5):  # old main: each timed out (uvicorn out of descriptors)
                status, headers = _get(f"{server.base}/", timeout=10)
                assert status == 200
                assert _get(f"{server.base}/api/submissions", timeout=10)[0] == 200
            assert "server" not in headers and "frame-ancestors 'none'" in headers["content-security-policy"]
            # room was made by closing the oldest half-header connections, down to the cap
            cap = NOFILE - 128 - 64  # ConnectionLimits.for_descriptor_limit at 1024
            # connections still in the kernel's accept queue are neither open at the server nor closed by
            # it: wait (bounded) for it to work through them, then require that it closed some and not all
            deadline, closed = time.monotonic() + 15, _closed_by_server(socks)
            while closed < SLOW_CLIENTS - cap and time.monotonic() < deadline:
                time.sleep(0.5)
                closed = _closed_by_server(socks)  # a closed socket reads EOF again: a fresh count
            assert 0 < closed < SLOW_CLIENTS
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_a_client_that_never_finishes_its_headers_is_cut_off(serve: Callable[..., LiveServer]) -> None:
    server = serve("--header-timeout", "1")
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as s:
        s.sendall(PARTIAL_HEADERS)
        start = time.monotonic()
        assert s.recv(1024) == b""  # closed by the server (old main: waited forever)
        assert time.monotonic() - start < 8
    assert _get(f"{server.base}/", timeout=10)[0] == 200


def _upload_from(server: LiveServer, forwarded_for: str) -> int:
    req = urllib.request.Request(
        f"{server.base}/api/submissions?model=m", data=b"{oops", headers={"X-Forwarded-For": forwarded_for}
    )
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return int(resp.status)
    except urllib.error.HTTPError as exc:
        return exc.code


def test_forwarded_for_is_believed_only_from_named_proxies(serve: Callable[..., LiveServer]) -> None:
    addresses = ["203.0.113.1", "203.0.113.2", "203.0.113.3", "203.0.113.4"]
    plain = serve("--uploads-per-hour", "2")
    # old main trusted the header from 127.0.0.1 by default: a fresh address per upload, never limited
    assert [_upload_from(plain, a) for a in addresses] == [400, 400, 429, 429]
    proxied = serve("--uploads-per-hour", "2", "--forwarded-allow-ips", "127.0.0.1")
    assert [_upload_from(proxied, a) for a in addresses] == [400, 400, 400, 400]  # counted per client
    assert [_upload_from(proxied, addresses[0]) for _ in range(2)] == [400, 429]
