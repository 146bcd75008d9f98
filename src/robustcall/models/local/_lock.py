"""One ``robustcall model setup`` at a time per cache: a file lock around the whole setup.

Two setups at once (two terminals, a CI matrix sharing ``~/.cache/robustcall``) used to delete each
other's llama.cpp sources mid-compile. Now the second waits, saying for whom (the holder's pid is
in the lock file), and then finds the first one's verified results and uses them. The lock is an
``flock`` on ``<cache>/setup.lock``: the kernel releases it when its holder dies, however it dies,
so a killed setup never leaves a lock behind."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TextIO

try:
    import fcntl
except ImportError:  # not on Unix: no lock (one setup at a time is then up to the user)
    fcntl = None  # type: ignore[assignment]

LOCK_NAME = "setup.lock"


def _holder(fh: TextIO) -> str:
    """The pid the lock's holder wrote (``?`` in the moment before it writes it)."""
    with contextlib.suppress(OSError, ValueError):
        fh.seek(0)
        pid = fh.read().strip()
        if pid.isdigit():
            return pid
    return "?"


@contextlib.contextmanager
def setup_lock(root: Path, note: Callable[[str], None]) -> Iterator[None]:
    """Hold ``<root>/setup.lock`` for the duration; when another process holds it, ``note`` one line
    naming its pid and wait for it."""
    root.mkdir(parents=True, exist_ok=True)
    if fcntl is None:
        yield
        return
    with open(root / LOCK_NAME, "a+", encoding="ascii") as fh:
        try:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            note(
                f"another `robustcall model setup` (pid {_holder(fh)}) is setting up {root}: "
                "waiting for it to finish, then using its result"
            )
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
        try:
            fh.seek(0)
            fh.truncate()
            fh.write(f"{os.getpid()}\n")
            fh.flush()
            yield
        finally:
            with contextlib.suppress(OSError):
                fh.truncate(0)
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)
