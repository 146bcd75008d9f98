"""``FailureWatch``: identical failures in a row stop a command; an answer starts the count again;
a failure of a request sent before the last answer does not count; a stop ends backoff waits."""

from __future__ import annotations

import asyncio
import time

from robustcall.models import FailureWatch


def test_identical_failures_in_a_row_stop_and_an_answer_starts_the_count_again() -> None:
    watch = FailureWatch(3)
    watch.failed("HTTP 500: x")
    watch.failed("HTTP 500: x")
    watch.succeeded()
    watch.failed("HTTP 500: x")
    watch.failed("HTTP 503: y")  # another failure: a new run of identical ones
    watch.failed("HTTP 500: x")
    watch.failed("HTTP 500: x")
    assert watch.stopped is None
    watch.failed("HTTP 500: x")
    assert watch.stopped == "HTTP 500: x"
    never = FailureWatch(0)
    for _ in range(100):
        never.failed("HTTP 500: x")
    assert never.stopped is None and never.failed_attempts == 100


def test_a_failure_sent_before_the_last_answer_does_not_count() -> None:
    watch = FailureWatch(2)
    sent = time.monotonic()
    watch.succeeded()  # the endpoint answered after these were sent: their timeouts say nothing new
    for _ in range(10):
        watch.failed("timeout", sent)
    assert watch.stopped is None
    watch.failed("timeout", time.monotonic())
    watch.failed("timeout", time.monotonic())
    assert watch.stopped == "timeout"


def test_a_stop_ends_every_backoff_wait_at_once() -> None:
    async def go() -> float:
        watch = FailureWatch(1)
        t0 = time.perf_counter()
        waits = [asyncio.create_task(watch.backoff(30.0)) for _ in range(3)]
        await asyncio.sleep(0.05)
        watch.failed("connection refused")  # the stop
        await asyncio.wait_for(asyncio.gather(*waits), 5)
        await watch.backoff(30.0)  # once stopped, no wait at all
        return time.perf_counter() - t0

    assert asyncio.run(go()) < 2.0
