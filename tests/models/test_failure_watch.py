"""``FailureWatch``: identical failures in a row stop a command; an answer starts the count again;
failures of requests sent before the last answer do not count; the stop waits for the requests sent
before the failures began; a stop ends backoff waits."""

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


def test_failures_sent_before_the_last_answer_do_not_count() -> None:
    watch = FailureWatch(2)
    sent = [watch.began() for _ in range(10)]
    later = watch.began()
    watch.succeeded(later)  # the endpoint answered after these were sent: their timeouts say nothing new
    for t in sent:
        watch.failed("timeout", t)
    assert watch.stopped is None
    watch.failed("timeout", watch.began())
    watch.failed("timeout", watch.began())
    assert watch.stopped == "timeout"


def test_the_stop_waits_for_the_requests_sent_before_the_failures_began() -> None:
    """A burst of instant 429s comes back before the slower answers of requests sent with them."""
    watch = FailureWatch(3)
    together = [watch.began() for _ in range(20)]
    for t in together[:10]:  # ten instant 429s, ten requests still being answered
        watch.failed("HTTP 429: slow down", t)
    for _ in range(5):  # asked again: refused again
        watch.failed("HTTP 429: slow down", watch.began())
    assert watch.stopped is None
    watch.succeeded(together[10])  # one of those sent together answers: the endpoint works
    for t in together[11:]:
        watch.succeeded(t)
    assert watch.stopped is None
    dead = [watch.began() for _ in range(3)]  # now every request fails: it stops once all are back
    watch.failed("HTTP 429: quota", dead[0])
    watch.failed("HTTP 429: quota", dead[1])
    assert watch.stopped is None
    late = watch.began()
    watch.failed("HTTP 429: quota", late)
    assert watch.stopped is None  # dead[2], sent before the run of failures began, is not back
    watch.failed("HTTP 429: quota", dead[2])
    assert watch.stopped == "HTTP 429: quota"


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
