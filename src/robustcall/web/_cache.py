"""Pages and API reads served from a cache keyed by the board's version, with ETags and 304s.

Every ``GET`` the leaderboard answers is a function of the stored submissions and the server's own
settings, so a rendered answer stays right until the next add or delete, which counts up the
store's version (``Store.version``). :class:`ReadCache` (ASGI middleware, outermost) keeps each
``200`` answer under (path and query, version) and sends it again without routing, a database read
or a template: under 64 readers one process answered 300-400 requests a second rendering each, and
the read p99 was 0.45-0.6 s (issue 43, item 10; about 0.1 s after: docs/leaderboard.md). Each
answer carries ``ETag: "<version>-<settings>-<resource>"`` and ``Cache-Control: no-cache``; a
request whose ``If-None-Match`` names the current tag gets ``304`` with no body.

The version is read from the database every :data:`VERSION_POLL_S` seconds per process while
requests come (one small query, in the background: requests are served with the version last read
meanwhile, never wait for the database), and at once after this process's own writes
(:meth:`BoardVersion.changed`): a process shows its own writes on the next request, another
process's (``--workers``) within :data:`VERSION_POLL_S` and one read of the version.
"""

from __future__ import annotations

import asyncio
import hashlib
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from starlette.concurrency import run_in_threadpool

from robustcall.web._guard import SECURITY_HEADERS, ASGIApp, Message, Receive, Scope, Send

VERSION_POLL_S = 0.2
"""Longest time a process serves a version without asking the database (writes by other processes
show up within it; this process's own at once)."""
MAX_ENTRIES = 1024
MAX_BYTES = 64 * 2**20
"""The cache's size bounds (entries, body bytes); the least recently used entry goes first."""
MAX_ENTRY_BYTES = 4 * 2**20
"""A larger answer (a big submission's verdicts) is sent without being kept."""


class BoardVersion:
    """The store's version as this process last read it, read again when older than ``poll_s``."""

    def __init__(self, read: Callable[[], str], poll_s: float = VERSION_POLL_S) -> None:
        self._read = read
        self._poll_s = poll_s
        self._value = ""
        self._at = -float("inf")
        self._reading: asyncio.Future[str] | None = None
        self._writes = 0  # this process's writes so far: a read begun before one is not kept
        self._reading_after = 0

    def changed(self) -> None:
        """This process wrote: the next request reads the version again."""
        self._writes += 1
        self._at = -float("inf")

    async def current(self) -> str:
        """The version to serve: the last one read while it is younger than ``poll_s``; past that,
        still the last one while a read in the background brings the next (a request never waits on
        the database for it); after :meth:`changed` (or at first), the one read now."""
        age = time.monotonic() - self._at
        if age < self._poll_s:
            return self._value
        if age != float("inf"):
            loop = asyncio.get_running_loop()
            if self._reading is None or self._reading.get_loop() is not loop:
                task = loop.create_task(self._read_now())
                task.add_done_callback(_quiet)
            return self._value
        return await self._read_now()

    async def _read_now(self) -> str:
        loop = asyncio.get_running_loop()
        writes = self._writes
        reading = self._reading
        if reading is not None and reading.get_loop() is loop and self._reading_after == writes:
            return await asyncio.shield(reading)  # another request is reading it: share that read
        reading = self._reading = loop.create_future()
        self._reading_after = writes
        started = time.monotonic()
        try:
            value = await run_in_threadpool(self._read)
        except BaseException as exc:
            reading.set_exception(exc)
            reading.exception()  # retrieved here: no "never retrieved" warning when none waits
            raise
        else:
            if self._writes == writes:  # else it may predate our own write: read again next time
                self._value, self._at = value, started
            reading.set_result(value)
            return value
        finally:
            if self._reading is reading:
                self._reading = None


@dataclass(frozen=True)
class _Entry:
    etag: bytes
    headers: list[tuple[bytes, bytes]]
    body: bytes


class ReadCache:
    """ASGI middleware: ``GET`` answers kept per (path and query, board version); see the module."""

    def __init__(self, app: ASGIApp, version: BoardVersion, settings: str) -> None:
        self.app = app
        self.version = version
        self.settings = settings  # what else the pages depend on (bench version, page size, ...)
        self._entries: OrderedDict[tuple[str, bytes], _Entry] = OrderedDict()
        self._bytes = 0
        # answers being rendered now: the readers who ask for one meanwhile wait for it rather than
        # render it again (after an upload, 64 readers asked for the same few pages at once)
        self._rendering: dict[bytes, asyncio.Future[_Entry | None]] = {}

    def _etag(self, version: str, key: tuple[str, bytes]) -> bytes:
        resource = hashlib.sha256(key[0].encode() + b"?" + key[1]).hexdigest()[:10]
        return f'"{version}-{self.settings}-{resource}"'.encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "GET":
            await self.app(scope, receive, send)
            return
        key = (scope["path"], scope["query_string"])
        version = await self.version.current()
        etag = self._etag(version, key)
        asked = next((v for k, v in scope["headers"] if k == b"if-none-match"), None)
        entry = self._entries.get(key)
        if entry is None or entry.etag != etag:
            pending = self._rendering.get(etag)
            mine = pending is not None and pending.get_loop() is asyncio.get_running_loop()
            entry = await asyncio.shield(pending) if pending is not None and mine else None
        if entry is not None and entry.etag == etag:
            if key in self._entries:
                self._entries.move_to_end(key)
            if asked is not None and _matches(asked, etag):
                await _not_modified(send, etag)
                return
            await send({"type": "http.response.start", "status": 200, "headers": entry.headers})
            await send({"type": "http.response.body", "body": entry.body})
            return
        if etag in self._rendering:  # that render kept nothing (not a 200, too big): our own
            await self._render(scope, receive, send, key, etag, asked, None)
            return
        done = self._rendering[etag] = asyncio.get_running_loop().create_future()
        try:
            await self._render(scope, receive, send, key, etag, asked, done)
        finally:
            del self._rendering[etag]
            if not done.done():
                done.set_result(None)

    async def _render(self, scope: Scope, receive: Receive, send: Send, key: tuple[str, bytes], etag: bytes,
                      asked: bytes | None, done: asyncio.Future[_Entry | None] | None) -> None:  # fmt: skip
        """Answer through the app; keep a 200 whole body (and hand it to ``done``'s waiters); tag
        it; 304 when the client has it."""
        start: Message | None = None
        chunks: list[bytes] = []
        size = 0

        async def capture(message: Message) -> None:
            nonlocal start, size
            if message["type"] == "http.response.start":
                if message["status"] != 200:
                    await send(message)
                    return
                start = message
                message["headers"] = [
                    *((k, v) for k, v in message.get("headers", []) if k.lower() not in (b"etag", b"cache-control")),
                    (b"etag", etag),
                    (b"cache-control", b"no-cache"),
                ]
                return
            if start is None:  # not a 200: passed through as it comes
                await send(message)
                return
            chunks.append(message.get("body", b""))
            size += len(chunks[-1])
            if message.get("more_body", False):
                if size > MAX_ENTRY_BYTES:  # too big to keep: send what came and stream the rest
                    await send(start)
                    await send({"type": "http.response.body", "body": b"".join(chunks), "more_body": True})
                    start, chunks[:] = None, []
                return
            body = b"".join(chunks)
            headers = list(start["headers"])
            if size <= MAX_ENTRY_BYTES:
                entry = _Entry(etag, headers, body)
                self._keep(key, entry)
                if done is not None and not done.done():
                    done.set_result(entry)
            if asked is not None and _matches(asked, etag):
                await _not_modified(send, etag)
                return
            await send(start)
            await send({"type": "http.response.body", "body": body})

        await self.app(scope, receive, capture)

    def _keep(self, key: tuple[str, bytes], entry: _Entry) -> None:
        old = self._entries.pop(key, None)
        if old is not None:
            self._bytes -= len(old.body)
        self._entries[key] = entry
        self._bytes += len(entry.body)
        while len(self._entries) > MAX_ENTRIES or self._bytes > MAX_BYTES:
            _, dropped = self._entries.popitem(last=False)
            self._bytes -= len(dropped.body)


def _quiet(task: asyncio.Task[str]) -> None:
    """A background read that failed is retrieved here: the next request reads again (and fails
    loudly, if it must)."""
    if not task.cancelled():
        task.exception()


def _matches(asked: bytes, etag: bytes) -> bool:
    """``If-None-Match`` (a list of tags, weak ones compared weakly, or ``*``) names ``etag``."""
    tags = [t.strip().removeprefix(b"W/") for t in asked.split(b",")]
    return b"*" in tags or etag in tags


async def _not_modified(send: Send, etag: bytes) -> None:
    headers = [(b"etag", etag), (b"cache-control", b"no-cache"), *SECURITY_HEADERS]
    await send({"type": "http.response.start", "status": 304, "headers": headers})
    await send({"type": "http.response.body", "body": b""})
