"""A lean HTTP/1.1 keep-alive client for model endpoints: asyncio protocols and the httptools parser.

Why not aiohttp: on the 2-core machine aiohttp spends about 220 µs of CPU per request, and at
concurrency 256 the client's CPU, not the server, caps the harness (docs/run.md). This client
spends about 60 µs. Its scope is what OpenAI-compatible servers need: HTTP and HTTPS, keep-alive,
Content-Length, chunked and read-to-close bodies, and the environment's proxies as the openai SDK
reads them (``_proxy.py``: ``CONNECT`` for https, absolute-form requests for http). It does no
redirects, cookies or compression (it sends no ``Accept-Encoding``).
"""

from __future__ import annotations

import asyncio
import ssl
from collections import deque
from typing import NamedTuple, cast
from urllib.parse import urlsplit

import httptools

from robustcall.core import DEFAULTS, InputError
from robustcall.models._proxy import open_tunnel, proxy_for


class HttpResponse(NamedTuple):
    status: int
    headers: dict[str, str]
    """Header names lower-cased; a repeated header keeps its last value."""
    body: bytes


class HttpConnectionError(Exception):
    """The connection could not be made, or closed before a whole response arrived."""


class HttpResponseTooLarge(HttpConnectionError):
    """The response body passed the client's size limit; the connection was closed there."""


DEFAULT_MAX_BODY_BYTES = 16 * 2**20
"""Largest response body read (a chat completion of 1,024 tokens is a few KB; logprobs tens of KB)."""


class Limits(NamedTuple):
    """How long each phase of one request may take, and how big its response may be.

    ``total_s`` bounds the whole request (pool wait included); ``connect_s`` the TCP (and TLS)
    connect; ``first_byte_s`` the wait from sending the request to the first byte of the response
    (for a non-streamed chat completion: the whole generation); ``idle_s`` any silence after that.
    """

    total_s: float
    connect_s: float | None = None
    first_byte_s: float | None = None
    idle_s: float | None = None
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES


class _Connection(asyncio.Protocol):
    """One TCP (or TLS) connection carrying one request at a time."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.parser = httptools.HttpResponseParser(self)
        self.waiter: asyncio.Future[HttpResponse] | None = None
        self.headers: dict[str, str] = {}
        self.chunks: list[bytes] = []
        self.got_bytes = False
        self.headers_done = False
        self.keep_alive = False
        self.lost = False
        self.timer: asyncio.TimerHandle | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self.deadline = 0.0  # loop time: the whole request
        self.first_byte_at = 0.0  # loop time: the first byte of the response
        self.idle_s = 0.0
        self.last_data = 0.0  # loop time of the last bytes received
        self.max_body = DEFAULT_MAX_BODY_BYTES
        self.body_bytes = 0
        self.failed = False

    # asyncio.Protocol
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # uvloop's transports are not subclasses

    def data_received(self, data: bytes) -> None:
        if self.failed:
            return
        if not self.got_bytes:
            self.got_bytes = True
            if self.timer is not None and self.loop is not None:  # from now on: the idle limit
                self.last_data = self.loop.time()
                self._schedule(self._due())
        elif self.timer is not None and self.loop is not None:
            self.last_data = self.loop.time()  # the timer catches up lazily (see _time_out)
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserError as exc:
            self._fail(HttpConnectionError(f"malformed HTTP response: {exc}"))
            self.close()

    def connection_lost(self, exc: Exception | None) -> None:
        self.lost = True
        if self.headers_done and self._reads_to_close():
            self.on_message_complete()  # a body delimited by the close itself
            return
        reason = f": {exc}" if exc else ""
        self._fail(HttpConnectionError(f"connection closed before a whole response arrived{reason}"))

    # httptools callbacks
    def on_header(self, name: bytes, value: bytes) -> None:
        self.headers[name.decode("latin-1").lower()] = value.decode("latin-1")

    def on_headers_complete(self) -> None:
        self.headers_done = True
        length = self.headers.get("content-length", "")
        if length.isdigit() and int(length) > self.max_body:
            self._too_large(f"response body of {int(length):,} bytes (Content-Length)")

    def on_body(self, body: bytes) -> None:
        if self.failed:
            return
        self.body_bytes += len(body)
        if self.body_bytes > self.max_body:
            self._too_large(f"response body past {self.body_bytes:,} bytes and still coming")
            return
        self.chunks.append(body)

    def _too_large(self, what: str) -> None:
        mib = self.max_body / 2**20
        self._fail(HttpResponseTooLarge(f"{what} is over the {mib:g} MiB limit (max_response_bytes); not read"))
        self.chunks = []
        self.close()

    def on_message_complete(self) -> None:
        self.keep_alive = self.parser.should_keep_alive()  # only valid inside this callback
        waiter = self.waiter
        if waiter is not None and not waiter.done():
            self._stop_timer()
            waiter.set_result(HttpResponse(self.parser.get_status_code(), self.headers, b"".join(self.chunks)))

    # ours
    def _reads_to_close(self) -> bool:
        return "content-length" not in self.headers and "chunked" not in self.headers.get("transfer-encoding", "")

    def _fail(self, exc: Exception) -> None:
        self.failed = True
        if self.waiter is not None and not self.waiter.done():
            self._stop_timer()
            self.waiter.set_exception(exc)

    def _stop_timer(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None

    def send(self, data: bytes, deadline: float, limits: Limits | None = None) -> asyncio.Future[HttpResponse]:
        """Write one request; the future fails with ``TimeoutError`` at loop time ``deadline``, when
        no byte comes within ``limits.first_byte_s`` or the response stalls for ``limits.idle_s``,
        and with :class:`HttpResponseTooLarge` past ``limits.max_body_bytes``. One timer per request,
        moved lazily (``asyncio.timeout`` costs several times more per call)."""
        assert self.transport is not None
        self.loop = loop = asyncio.get_running_loop()
        self.waiter = waiter = loop.create_future()
        self.headers, self.chunks = {}, []
        self.got_bytes = self.headers_done = self.keep_alive = self.failed = False
        self.body_bytes = 0
        self.deadline = deadline
        if limits is None:
            self.first_byte_at, self.idle_s, self.max_body = deadline, 0.0, DEFAULT_MAX_BODY_BYTES
        else:
            now = loop.time()
            fb = limits.first_byte_s
            self.first_byte_at = deadline if fb is None else min(deadline, now + fb)
            self.idle_s = limits.idle_s or 0.0
            self.max_body = limits.max_body_bytes
        self.timer = loop.call_at(self.first_byte_at, self._time_out)
        self.transport.write(data)
        return waiter

    def _due(self) -> float:
        """Loop time at which the request fails if nothing more arrives."""
        if not self.got_bytes:
            return self.first_byte_at
        if self.idle_s > 0:
            return min(self.deadline, self.last_data + self.idle_s)
        return self.deadline

    def _schedule(self, when: float) -> None:
        if self.timer is not None:
            self.timer.cancel()
        assert self.loop is not None
        self.timer = self.loop.call_at(when, self._time_out)

    def _time_out(self) -> None:
        assert self.loop is not None
        due = self._due()
        if self.loop.time() < due:  # bytes came since this timer was set: wait on
            self._schedule(due)
            return
        if due >= self.deadline:
            why = "no whole response before the deadline"
        elif not self.got_bytes:
            why = "no response began within the first-byte timeout"
        else:
            why = "the response stalled past the idle timeout"
        self._fail(TimeoutError(why))
        self.close()

    @property
    def reusable(self) -> bool:
        return not self.lost and self.transport is not None and not self.transport.is_closing() and self.keep_alive

    def close(self) -> None:
        if self.transport is not None:
            self.transport.close()


class HttpClient:
    """Requests to one origin (``scheme://host:port``) over a pool of at most ``limit`` connections
    (a model client passes its concurrency: one connection per request in flight)."""

    def __init__(
        self,
        base_url: str,
        *,
        limit: int = DEFAULTS.concurrency,
        headers: dict[str, str] | None = None,
        trust_env: bool = True,
    ) -> None:
        parts = urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise InputError(f"not an http(s) URL: {base_url!r}")
        self.host = parts.hostname
        self.port = parts.port or (443 if parts.scheme == "https" else 80)
        self._ssl = ssl.create_default_context() if parts.scheme == "https" else None
        host_header = parts.netloc.rsplit("@", 1)[-1]
        self._proxy = proxy_for(parts.scheme, self.host, self.port) if trust_env else None
        # through a proxy, a plain-http request names its whole URL (absolute form)
        self._target = f"http://{host_header}" if self._proxy is not None and self._ssl is None else ""
        extra = "".join(f"{k}: {v}\r\n" for k, v in (headers or {}).items())
        if self._target and self._proxy is not None:
            extra += self._proxy.header()
        self._head = f"Host: {host_header}\r\n{extra}".encode("latin-1")
        self._free = max(1, limit)  # request slots; a slot freed while others wait goes to the first
        self._waiting: deque[asyncio.Future[None]] = deque()
        self._idle: list[_Connection] = []
        self._closed = False

    async def request(
        self, method: str, path: str, body: bytes = b"", *, timeout_s: float, limits: Limits | None = None
    ) -> HttpResponse:
        """Send one request and read its whole response within ``timeout_s`` seconds (pool wait
        and connecting included) and the phase ``limits``, if given. Raises ``HttpConnectionError``
        (:class:`HttpResponseTooLarge` among them) or ``TimeoutError``."""
        if self._closed:
            raise HttpConnectionError("client is closed")
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout_s
        data = b"%s %s HTTP/1.1\r\n%sContent-Length: %d\r\n\r\n%s" % (
            method.encode("ascii"),
            (self._target + path).encode("ascii"),
            self._head,
            len(body),
            body,
        )
        if self._free > 0:
            self._free -= 1
        else:  # all connections busy: wait for one, within the deadline
            await self._wait_for_slot(loop, deadline)
        try:
            return await self._exchange(data, deadline, limits)
        finally:
            self._release_slot()

    async def _wait_for_slot(self, loop: asyncio.AbstractEventLoop, deadline: float) -> None:
        # Not asyncio.Semaphore: on 3.11 its locked() scans the waiters on every call.
        slot = loop.create_future()
        self._waiting.append(slot)
        try:
            async with asyncio.timeout_at(deadline):
                await slot
        except BaseException:  # the timeout cancelled the wait (and with it ``slot``, if still queued)
            if slot.done() and not slot.cancelled():
                self._release_slot()  # handed a slot just as we gave up: pass it on
            raise

    def _release_slot(self) -> None:
        while self._waiting:
            slot = self._waiting.popleft()
            if not slot.done():
                slot.set_result(None)
                return
        self._free += 1

    async def _exchange(self, data: bytes, deadline: float, limits: Limits | None) -> HttpResponse:
        while True:
            conn = self._idle_connection()
            fresh = conn is None
            if conn is None:
                connect_by = deadline
                if limits is not None and limits.connect_s is not None:
                    connect_by = min(deadline, asyncio.get_running_loop().time() + limits.connect_s)
                try:
                    async with asyncio.timeout_at(connect_by):
                        conn = await self._connect()
                except TimeoutError:
                    if connect_by < deadline:
                        raise TimeoutError(
                            f"no connection to {self.host}:{self.port} within the connect timeout"
                        ) from None
                    raise
            try:
                resp = await conn.send(data, deadline, limits)
            except HttpConnectionError:
                conn.close()
                if not fresh and not conn.got_bytes:
                    continue  # the server had closed this idle keep-alive connection: nothing was read
                raise
            except BaseException:  # timeout or cancellation: the connection is mid-response, unusable
                conn.close()
                raise
            if conn.reusable and not self._closed:
                self._idle.append(conn)
            else:
                conn.close()
            return resp

    def _idle_connection(self) -> _Connection | None:
        while self._idle:
            conn = self._idle.pop()
            if conn.reusable:
                return conn
            conn.close()
        return None

    async def _connect(self) -> _Connection:
        loop = asyncio.get_running_loop()
        proxy = self._proxy
        try:
            if proxy is None:
                _, conn = await loop.create_connection(
                    _Connection, self.host, self.port, ssl=self._ssl, server_hostname=self.host if self._ssl else None
                )
            elif self._ssl is None:  # plain http: talk to the proxy, requests in absolute form
                _, conn = await loop.create_connection(_Connection, proxy.host, proxy.port)
            else:  # https: a CONNECT tunnel, TLS with the endpoint through it
                sock = await open_tunnel(proxy, self.host, self.port)
                try:
                    _, conn = await loop.create_connection(
                        _Connection, sock=sock, ssl=self._ssl, server_hostname=self.host
                    )
                except BaseException:
                    sock.close()
                    raise
        except OSError as exc:
            via = f" via proxy {proxy.host}:{proxy.port}" if proxy is not None else ""
            raise HttpConnectionError(f"cannot connect to {self.host}:{self.port}{via}: {exc}") from exc
        return conn

    async def aclose(self) -> None:
        self._closed = True
        while self._idle:
            self._idle.pop().close()
