"""Watching one command's endpoint failures: stop asking an endpoint that answers nothing but errors.

A command that talks to a model (``run``, ``faults run``, ``pipe run``, the ``rm`` commands) puts a
:class:`FailureWatch` in its context (``failure_watch``); the model client reports to it every
attempt that failed (a retried 5xx, a refused connection, a timeout, a 401 that is not retried) and
every attempt that got an answer. After ``stop_after`` identical failures in a row, with no answer
between them, the watch stops the command: requests waiting out a retry backoff give up at once,
no request is sent any more, and the command ends with the failure's text. Retried attempts count,
so an endpoint that answers only errors gets about ``stop_after`` requests plus the ones already in
flight, whatever the retry settings and the number of records.

Two rules keep a working endpoint under load from being stopped. A failure of a request sent
before the last answer came does not count (requests sent together time out together while the
endpoint answers others). And the stop waits until every request sent before the run of failures
began has come back: at the start of a run, or after a burst, fast failures (an instant 429, a
dropped connection) arrive before the slower answers of requests sent with them, which then end
the run of failures.
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
        self._run_from = float("-inf")  # and of the first failure of the current run of them
        self._in_flight: Counter[float] = Counter()  # sent_at of the attempts not yet back
        self._waiters: set[asyncio.Future[None]] = set()

    def began(self) -> float:
        """An attempt is sent now; returns its ``sent_at`` for ``failed`` / ``succeeded`` / ``ended``."""
        sent_at = time.monotonic()
        self._in_flight[sent_at] += 1
        return sent_at

    def ended(self, sent_at: float) -> None:
        """An attempt ended with neither an answer nor a failure (cancelled)."""
        self._back(sent_at)
        self._check()

    def _back(self, sent_at: float) -> None:
        self._in_flight[sent_at] -= 1
        if self._in_flight[sent_at] <= 0:
            del self._in_flight[sent_at]

    def failed(self, reason: str, sent_at: float | None = None) -> None:
        """One attempt failed with ``reason``; ``sent_at``: what ``began`` returned for it (``None``:
        a failure not of one attempt, such as a record's exception)."""
        self.failed_attempts += 1
        if sent_at is not None:
            self._back(sent_at)
            if sent_at < self._answered_at:
                return  # the endpoint has answered since this one was sent: it says nothing new
        if reason == self._last:
            self._in_a_row += 1
        else:
            self._last, self._in_a_row, self._run_from = reason, 1, time.monotonic()
        self._check()

    def _check(self) -> None:
        if not self.stop_after or self._in_a_row < self.stop_after or self.stopped is not None:
            return
        if any(t < self._run_from for t in self._in_flight):
            return  # sent before this run of failures began and not back yet: it may be an answer
        assert self._last is not None
        self.stop(self._last)

    def succeeded(self, sent_at: float | None = None) -> None:
        """One attempt got an answer (whatever the model said in it): its request is done."""
        if sent_at is not None:
            self._back(sent_at)
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

    def began(self) -> float:
        return self.run.began()

    def ended(self, sent_at: float) -> None:
        self.run.ended(sent_at)

    def failed(self, reason: str, sent_at: float | None = None) -> None:
        self.saw_failure = True
        self.run.failed(reason, sent_at)

    def succeeded(self, sent_at: float | None = None) -> None:
        self.saw_answer = True
        self.run.succeeded(sent_at)

    def gave_up(self, reason: str) -> None:
        self.run.gave_up(reason)

    def stop(self, reason: str) -> None:
        self.run.stop(reason)

    async def backoff(self, seconds: float, sleep: Callable[[float], Awaitable[None]] = asyncio.sleep) -> None:
        await self.run.backoff(seconds, sleep)


Watch = FailureWatch | UnitWatch

failure_watch: ContextVar[Watch | None] = ContextVar("robustcall_failure_watch", default=None)
"""The watch of the command running in this context (``None``: requests are not watched)."""
