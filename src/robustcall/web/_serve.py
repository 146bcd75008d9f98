"""Running the leaderboard under uvicorn with limits that keep ordinary requests served when clients
hoard connections (docs/leaderboard.md, "Connections"), and forwarded headers trusted only from the
proxies the operator names.

uvicorn itself has no limit on how long a client may take to send its request headers, and accepts
connections until the process runs out of file descriptors; past that point nobody is answered.
:class:`GuardedHttpProtocol` adds both bounds: a connection must complete each request's headers
within ``header_timeout_s``, and when ``max_connections`` are open a new one closes the oldest
connection that is not having a request answered (idle, still sending headers, or still sending a
body), so the newest client, an ordinary browser among them, always gets its turn.
"""

from __future__ import annotations

import asyncio
import os
import resource
import signal
import socket
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

import uvicorn
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

WORKER_MIN_LIFE_S = 10.0
"""A ``--workers`` process that stops sooner after starting is not started again (it cannot start)."""

RESERVED_DESCRIPTORS = 64
"""Descriptors kept free of client connections: the database, the benchmark files, logs."""


@dataclass(frozen=True)
class ConnectionLimits:
    max_connections: int
    """Open client connections at most; past it the oldest idle one is closed."""
    header_timeout_s: float = 10.0
    """Time a client has to send a request's headers, from connecting or from starting the request."""
    keep_alive_s: float = 5.0
    """An idle keep-alive connection is closed after this long (uvicorn's ``timeout_keep_alive``)."""
    backlog: int = 128
    """Connections accepted in one go (and the listen queue's length): the most that can be open
    above ``max_connections`` before the oldest are closed."""

    @classmethod
    def for_descriptor_limit(cls, **kw: Any) -> ConnectionLimits:
        """Limits that fit this process's open-file limit (``ulimit -n``): room for the backlog and
        :data:`RESERVED_DESCRIPTORS` beside the connections."""
        soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        soft = 65536 if soft == resource.RLIM_INFINITY else soft
        backlog = max(8, min(128, soft // 8))
        return cls(max_connections=max(16, soft - backlog - RESERVED_DESCRIPTORS), backlog=backlog, **kw)


class GuardedHttpProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with a header timeout and a cap on open connections."""

    limits: ClassVar[ConnectionLimits]
    _open: ClassVar[dict[GuardedHttpProtocol, None]]  # insertion order: oldest first

    _header_timer: asyncio.TimerHandle | None = None

    @classmethod
    def with_limits(cls, limits: ConnectionLimits) -> type[GuardedHttpProtocol]:
        """A subclass bound to ``limits``, with its own table of open connections."""
        return type("GuardedHttpProtocol", (cls,), {"limits": limits, "_open": {}})

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._open[self] = None
        self._arm_header_timer()
        if len(self._open) > self.limits.max_connections:
            self._close_oldest_idle()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm_header_timer()
        self._open.pop(self, None)
        super().connection_lost(exc)

    def on_message_begin(self) -> None:
        super().on_message_begin()
        if self._header_timer is None:  # the first bytes of a later request on a kept-alive connection
            self._arm_header_timer()

    def on_headers_complete(self) -> None:
        self._disarm_header_timer()
        super().on_headers_complete()

    def _idle(self) -> bool:
        """Not having a request answered: no request yet, between requests, or still receiving one."""
        cycle = self.cycle
        return cycle is None or cycle.response_complete or cycle.more_body

    def _close_oldest_idle(self) -> None:
        for conn in self._open:
            if conn is not self and not conn.transport.is_closing() and conn._idle():
                conn.transport.close()
                return

    def _arm_header_timer(self) -> None:
        self._disarm_header_timer()
        self._header_timer = self.loop.call_later(self.limits.header_timeout_s, self._headers_too_slow)

    def _disarm_header_timer(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _headers_too_slow(self) -> None:
        self._header_timer = None
        if not self.transport.is_closing():
            self.transport.close()


def server_config(
    app: Any,
    *,
    host: str,
    port: int,
    limits: ConnectionLimits,
    forwarded_allow_ips: list[str] | None = None,
    log_level: str = "info",
) -> uvicorn.Config:
    """uvicorn's configuration for the leaderboard. ``forwarded_allow_ips``: the proxies whose
    ``X-Forwarded-For`` / ``X-Forwarded-Proto`` are believed (none: the headers are ignored from
    everyone, the default; uvicorn's own default believes 127.0.0.1, so a client on the same host
    could pick its rate-limit address)."""
    return uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level=log_level,
        http=GuardedHttpProtocol.with_limits(limits),
        backlog=limits.backlog,
        timeout_keep_alive=int(limits.keep_alive_s),
        proxy_headers=bool(forwarded_allow_ips),
        forwarded_allow_ips=list(forwarded_allow_ips) if forwarded_allow_ips else [],
        server_header=False,
    )


def listening_socket(host: str, port: int, backlog: int, *, reuse_port: bool = False) -> socket.socket:
    """A listening TCP socket on ``host:port``. ``reuse_port``: one of several (one per worker), among
    which the kernel spreads new connections evenly (``SO_REUSEPORT``)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP spelled out: asyncio sets TCP_NODELAY only on sockets that name it, and without it
    # a keep-alive response written in two parts waits ~40 ms for a delayed ACK (Nagle)
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if reuse_port:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind((host, port))
    sock.listen(backlog)
    sock.set_inheritable(True)
    return sock


def serve_workers(make_config: Callable[[], uvicorn.Config], make_socket: Callable[[], socket.socket],
                  workers: int) -> int:  # fmt: skip
    """Run ``workers`` serving processes, each forked from this one and building its own app
    (``make_config``: its database connections, cache and scoring process are its own) and its own
    listening socket on the shared port (``make_socket``: ``SO_REUSEPORT``), so that the kernel
    spreads connections evenly among them (one shared socket let one worker take most of 64
    keep-alive connections). SIGINT / SIGTERM stop them all. A worker that dies
    is started again, unless it stopped within :data:`WORKER_MIN_LIFE_S` of starting (it cannot
    start: the others are stopped too and the status is 3). Returns the exit status (0 after a
    signal)."""
    children: dict[int, float] = {}  # pid: when it started
    stopping = False
    status = 0

    def start() -> None:
        pid = os.fork()
        if pid == 0:  # the worker: default signal handling (uvicorn installs its own), then serve
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            code = 0
            try:
                uvicorn.Server(make_config()).run(sockets=[make_socket()])
            except BaseException:
                code = 1
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
                os._exit(code)
        children[pid] = time.monotonic()

    def stop(signum: int, _frame: object) -> None:
        nonlocal stopping
        stopping = True
        for pid in children:
            os.kill(pid, signal.SIGTERM)

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    for _ in range(workers):
        start()
    while children:
        try:
            pid, _status = os.wait()
        except ChildProcessError:
            break
        started = children.pop(pid, time.monotonic())
        if stopping:
            continue
        if time.monotonic() - started < WORKER_MIN_LIFE_S:
            print(f"leaderboard: worker {pid} stopped as it started; stopping the others", file=sys.stderr, flush=True)
            status = 3
            stop(signal.SIGTERM, None)
            continue
        print(f"leaderboard: worker {pid} stopped; starting another", file=sys.stderr, flush=True)
        start()
    return status
