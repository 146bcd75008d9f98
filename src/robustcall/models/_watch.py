"""Watching one command's endpoint failures: stop asking an endpoint that answers nothing but errors.

A command that talks to a model (``run``, ``faults run``, ``pipe run``, the ``rm`` commands) puts a
:class:`FailureWatch` in its context (``failure_watch``); the model client reports to it every
attempt that failed (a retried 5xx, a refused connection, a timeout, a 401 that is not retried) and
every attempt that got an answer. After ``stop_after`` identical failures in a row, with no answer
between them, the watch stops the command (a failure of an attempt sent before the last answer
came does not count: under load many requests sent together time out together, while the endpoint
answers others): requests waiting out a retry backoff give up at once,
no request is sent any more, and the command ends with the failure's text. Retried attempts count,
so an endpoint that answers only errors gets about ``stop_after`` requests plus the ones already in
flight, whatever the retry settings and the number of records.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from contextvars import ContextVar

from robustcall.core import DEFAULTS

STOP_AFTER = DEFAULTS.stop_after
"""Identical failures in a row after which a command stops (an endpoint that answers every request
with the same HTTP 400, or that cannot be reached): asking thousands more only repeats the server's
message."""

STOPPED_NOTE = "not retried: stopped after repeated identical failures"
"""Appended to the reason of a request cut short by the stop."""


class FailureWatch:
    """Infrastructure failures of one command's requests, in the order they happen."""

    def __init__(self, stop_after: int = STOP_AFTER) -> None:
        if stop_after < 0:
            raise ValueError(f"stop_after must be >= 0, got {stop_after}")
        self.stop_after = stop_after
        """Identical failures in a row that stop the command (0: never)."""
        self.stopped: str | None = None
        """The failure that stopped the command, else ``None``."""
        self.failed_attempts = 0
        self.answered = 0
        """Requests that got an answer."""
        self.lost: Counter[str] = Counter()
        """Why requests ended without an answer (retries spent, not retryable, cut short by the stop)."""
        self._last: str | None = None
        self._in_a_row = 0
        self._answered_at = float("-inf")  # time.monotonic() of the last answer
        self._waiters: set[asyncio.Future[None]] = set()

    def failed(self, reason: str, sent_at: float | None = None) -> None:
        """One attempt failed with ``reason``; ``sent_at``: when it was sent (``time.monotonic()``)."""
        self.failed_attempts += 1
        if sent_at is not None and sent_at < self._answered_at:
            return  # the endpoint answered since this one was sent: it says nothing new
        self._in_a_row = self._in_a_row + 1 if reason == self._last else 1
        self._last = reason
        if self.stop_after and self._in_a_row >= self.stop_after and self.stopped is None:
            self.stop(reason)

    def succeeded(self) -> None:
        """One attempt got an answer (whatever the model said in it): its request is done."""
        self.answered += 1
        self._last, self._in_a_row = None, 0
        self._answered_at = time.monotonic()

    def gave_up(self, reason: str) -> None:
        """A request ended without an answer."""
        self.lost[reason] += 1

    def stop(self, reason: str) -> None:
        """Stop: backoff waits end now and no request is sent any more."""
        if self.stopped is None:
            self.stopped = reason
        for waiter in self._waiters:
            if not waiter.done():
                waiter.set_result(None)

    async def backoff(self, seconds: float, sleep: Callable[[float], Awaitable[None]] = asyncio.sleep) -> None:
        """Wait ``seconds`` (with ``sleep``), or less if the command stops meanwhile."""
        if self.stopped is not None:
            return
        loop = asyncio.get_running_loop()
        stopped = loop.create_future()
        self._waiters.add(stopped)
        sleeping = asyncio.ensure_future(sleep(seconds))
        try:
            await asyncio.wait((sleeping, stopped), return_when=asyncio.FIRST_COMPLETED)
        finally:
            self._waiters.discard(stopped)
            sleeping.cancel()
            stopped.cancel()


class UnitWatch:
    """What one unit of a run (a record, an episode) reports, forwarded to the run's watch; it
    remembers whether the unit's requests failed or got answers (so that the run loop does not count
    them twice when the unit ends)."""

    def __init__(self, run: FailureWatch) -> None:
        self.run = run
        self.saw_failure = False
        self.saw_answer = False

    @property
    def stopped(self) -> str | None:
        return self.run.stopped

    def failed(self, reason: str, sent_at: float | None = None) -> None:
        self.saw_failure = True
        self.run.failed(reason, sent_at)

    def succeeded(self) -> None:
        self.saw_answer = True
        self.run.succeeded()

    def gave_up(self, reason: str) -> None:
        self.run.gave_up(reason)

    def stop(self, reason: str) -> None:
        self.run.stop(reason)

    async def backoff(self, seconds: float, sleep: Callable[[float], Awaitable[None]] = asyncio.sleep) -> None:
        await self.run.backoff(seconds, sleep)


Watch = FailureWatch | UnitWatch

failure_watch: ContextVar[Watch | None] = ContextVar("robustcall_failure_watch", default=None)
"""The watch of the command running in this context (``None``: requests are not watched)."""
