"""``forked_map``: a function over a few parts of one job, each extra part in a forked child.

A bare ``os.fork`` per part: the child inherits everything already loaded (modules, data), runs its
part, pickles the result into a pipe and leaves with ``os._exit``; nothing is pickled on the way in.
A ``multiprocessing`` pool would add its start-up and shut-down (threads, queues: 10-25 ms) to jobs
that take a few tenths of a second. Where there is no ``fork``, or one core, the parts run here.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
from collections.abc import Callable, Sequence
from typing import NoReturn, TypeVar

from robustcall.core._workers import cpu_count

T = TypeVar("T")
R = TypeVar("R")


def forked_map(
    fn: Callable[[T], R], parts: Sequence[T], processes: int | None = None, *, first_here: bool = True
) -> list[R]:
    """``[fn(p) for p in parts]``, the first part here and each other one in a forked child, at most
    ``processes`` (default: the usable cores) at a time. A child's exception is raised here (as
    itself when it pickles, else as ``RuntimeError`` naming it); results must pickle.

    ``first_here=False``: every part in a child, this process only waits: what the parts load
    (and would leave for this process to free at exit, a tenth of a second for a big job) goes
    with the children, which leave without tearing anything down."""
    processes = cpu_count() if processes is None else processes
    if processes <= 1 or (len(parts) <= 1 and first_here) or not hasattr(os, "fork"):
        return [fn(p) for p in parts]
    out: list[R] = []
    for lo in range(0, len(parts), processes):
        out.extend(_round(fn, parts[lo : lo + processes], first_here))
    return out


def _round(fn: Callable[[T], R], parts: Sequence[T], first_here: bool) -> list[R]:
    children: list[tuple[int, int]] = []
    try:
        for part in parts[1:] if first_here else parts:
            r, w = os.pipe()
            pid = os.fork()
            if pid == 0:  # the child: never returns
                os.close(r)
                _child(fn, part, w)
            os.close(w)
            children.append((pid, r))
        out = [fn(parts[0])] if first_here else []
        blobs: list[bytes] = []
        for k, (pid, r) in enumerate(children):  # every result first: each child exits while the next is read
            children[k] = (pid, -1)
            with os.fdopen(r, "rb") as f:
                blobs.append(f.read())
        while children:
            os.waitpid(children.pop(0)[0], 0)
        for data in blobs:
            if not data:
                raise RuntimeError("a forked worker exited without a result")
            ok, got = pickle.loads(data)
            if not ok:
                raise got
            out.append(got)
    finally:
        for pid, r in children:  # only after an error here: leave no child behind
            if r >= 0:
                with contextlib.suppress(OSError):
                    os.close(r)
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
    return out


def _child(fn: Callable[[T], R], part: T, w: int) -> NoReturn:
    code = 0
    try:
        try:
            blob = pickle.dumps((True, fn(part)), protocol=pickle.HIGHEST_PROTOCOL)
        except BaseException as exc:  # reported to the parent, which raises it
            code = 1
            try:
                blob = pickle.dumps((False, exc), protocol=pickle.HIGHEST_PROTOCOL)
                pickle.loads(blob)  # an exception whose arguments do not rebuild it would fail there
            except Exception:
                blob = pickle.dumps((False, RuntimeError(f"{type(exc).__name__}: {exc}")))
        with os.fdopen(w, "wb") as f:
            f.write(blob)
    finally:
        os._exit(code)
