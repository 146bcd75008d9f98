"""Issue 43 item 8: long texts are read in worker processes (``core._procworkers``), short ones in
threads, with the same results; what cannot go to a process (a closure), or a worker that died,
is read in a thread."""

from __future__ import annotations

import asyncio
import os
import threading

import pytest

from robustcall.core import LONG_TEXT_CHARS, in_worker
from robustcall.core._procworkers import worker_pool
from robustcall.formats import parse_tool_calls

LONG = "[f(a=1), g(b='x')]" + " " * LONG_TEXT_CHARS


def where() -> tuple[int, str]:
    """The process and thread this runs in."""
    return os.getpid(), threading.current_thread().name


def fail(text: str) -> None:
    raise ValueError(f"no: {len(text)}")


def test_a_long_text_is_read_in_a_worker_process_a_short_one_in_a_thread() -> None:
    async def main() -> None:
        pid, _ = await in_worker(where, LONG_TEXT_CHARS + 1)
        assert pid != os.getpid()  # a worker process
        pid, thread = await in_worker(where, LONG_TEXT_CHARS)
        assert pid == os.getpid() and thread.startswith("robustcall-cpu")
        here = parse_tool_calls(LONG, "bfcl")
        there = await in_worker(parse_tool_calls, len(LONG), LONG, "bfcl")
        assert there == here and [c.name for c in there.calls] == ["f", "g"]
        with pytest.raises(ValueError, match=f"no: {len(LONG)}"):  # raised as in a thread
            await in_worker(fail, len(LONG), LONG)

    asyncio.run(main())


def test_what_does_not_pickle_or_a_dead_worker_is_read_in_a_thread() -> None:
    async def main() -> None:
        got = await in_worker(lambda: where(), LONG_TEXT_CHARS + 1)  # a lambda does not pickle
        assert got[0] == os.getpid() and got[1].startswith("robustcall-cpu-long")
        pool = worker_pool(1)
        await in_worker(where, LONG_TEXT_CHARS + 1)  # a worker is up
        for worker in list(pool._all):
            worker.proc.kill()
            worker.proc.wait()
        got = await in_worker(where, LONG_TEXT_CHARS + 1)  # its death is noticed: read here
        assert got[0] == os.getpid()
        got = await in_worker(where, LONG_TEXT_CHARS + 1)  # and a new worker starts for the next
        assert got[0] != os.getpid()

    asyncio.run(main())
