"""CPU work (parsing, scoring) off the event loop, so that the loop only waits on the network.

A model's answer is untrusted input: whatever it costs to read, it must delay only its own record,
never the requests in flight beside it. So every answer is read in a worker thread, never on the
loop. Threads, not processes, by measurement (docs/run.md, "CPU work off the event loop"): a
process pool costs the loop's own process several times more per record (pickling the tools and
the calls), and a thread reading the slowest answers (compiled or not) still lets the loop run
every few milliseconds.

Two lanes of as many threads as the CPUs: texts up to ``LONG_TEXT_CHARS`` characters in one, longer
ones in the other, so that a run of long (possibly slow) answers never queues the ordinary ones
behind it. Results do not depend on the lane or the thread: the readers are pure functions of
their input.
"""

from __future__ import annotations

import asyncio
import functools
import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
T = TypeVar("T")

LONG_TEXT_CHARS = 4_000
"""Answers longer than this are read in the long lane (a typical answer is well under 2,000)."""

_pools: dict[bool, ThreadPoolExecutor] = {}
_lock = threading.Lock()


def cpu_count() -> int:
    """The CPUs this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


def _pool(long: bool) -> ThreadPoolExecutor:
    pool = _pools.get(long)
    if pool is None:
        with _lock:
            pool = _pools.get(long)
            if pool is None:
                name = "robustcall-cpu-long" if long else "robustcall-cpu"
                pool = _pools[long] = ThreadPoolExecutor(cpu_count(), thread_name_prefix=name)
    return pool


async def in_worker(fn: Callable[P, T], size: int, /, *args: P.args, **kwargs: P.kwargs) -> T:
    """``fn(*args, **kwargs)`` in a worker thread; ``size``: the length of the text it reads
    (which lane, ``LONG_TEXT_CHARS``)."""
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(_pool(size > LONG_TEXT_CHARS), functools.partial(fn, *args, **kwargs))
