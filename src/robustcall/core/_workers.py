"""CPU work (parsing, scoring) off the event loop, so that the loop only waits on the network.

A model's answer is untrusted input: whatever it costs to read, it must delay only its own record,
never the requests in flight beside it. So every answer is read in a worker thread, never on the
loop. Threads, not processes, by measurement (docs/run.md, "CPU work off the event loop"): a
process pool costs the loop's own process several times more per record (pickling the tools and
the calls), and a thread reading the slowest answers (compiled or not) still lets the loop run
every few milliseconds.

Two lanes: texts up to ``LONG_TEXT_CHARS`` characters in as many threads as the CPUs, longer ones in
as many worker processes, so that a run of long (possibly slow) answers never queues the ordinary
ones behind it. Long answers go to processes because a thread holds the interpreter's lock while it
reads: ten hostile 99 KB answers read in threads kept the loop (and the ordinary answers' threads)
waiting for the lock at every turn, and ordinary records were written up to 0.13-0.53 s late
(issue 43; ``benchmarks/hostile_neighbours.py``). A process costs pickling the call (about 0.1 ms
for a 100 KB text, on the loop) and, once per worker and run, starting it (``_procworkers``);
ordinary answers never pay it. A call that cannot be pickled (a closure), or a worker that died,
reads in a thread as before.
Results do not depend on the lane, the thread or the process: the readers are pure functions of
their input.
"""

from __future__ import annotations

import functools
import os
import pickle
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar, cast

from robustcall.core._procworkers import WorkerLost, worker_pool

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor

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
                from concurrent.futures import ThreadPoolExecutor  # here: it brings logging, 3 ms of start-up

                name = "robustcall-cpu-long" if long else "robustcall-cpu"
                pool = _pools[long] = ThreadPoolExecutor(cpu_count(), thread_name_prefix=name)
    return pool


def _pickled(fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> bytes | None:
    """The call as a worker process takes it, or ``None`` when it does not pickle (a closure, a
    lambda: the thread lane reads it)."""
    try:
        return pickle.dumps((fn, args, kwargs), protocol=pickle.HIGHEST_PROTOCOL)
    except (pickle.PicklingError, TypeError, AttributeError):
        return None


async def in_worker(fn: Callable[P, T], size: int, /, *args: P.args, **kwargs: P.kwargs) -> T:
    """``fn(*args, **kwargs)`` off the event loop; ``size``: the length of the text it reads (which
    lane, ``LONG_TEXT_CHARS``: a thread, or past it a worker process)."""
    import asyncio  # here: only a running event loop calls this, and asyncio costs a command that has none 20 ms

    loop = asyncio.get_running_loop()
    if size > LONG_TEXT_CHARS:
        blob = _pickled(fn, args, kwargs)
        if blob is not None:
            try:  # a long-lane thread waits for a worker process (starting one at first)
                return cast(T, await loop.run_in_executor(_pool(True), worker_pool(cpu_count()).call, blob))
            except WorkerLost:  # it died (killed, out of memory) or would not start: read it here
                pass
    return await loop.run_in_executor(_pool(size > LONG_TEXT_CHARS), functools.partial(fn, *args, **kwargs))
