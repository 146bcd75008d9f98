"""How far a long command has got, told to whoever listens.

The loops that do a command's units of work (the run loop, reward-model draws, pairwise scoring)
say when a batch of work begins (``start``) and when units end (``advance``); the CLI listens when
stdout is not a terminal and writes a progress line to the log (``robustcall.cli._progress``).
Nobody listening is the default, and then telling costs a context-variable read."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar
from typing import Protocol


class ProgressSink(Protocol):
    """What the loops tell: a batch of work begins, units of it end."""

    def start(self, where: str, total: int, *, done: int = 0, unit: str = "records") -> None:
        """A batch of ``total`` units begins in ``where`` (a run folder, a file), ``done`` of them
        already done (a resumed run)."""

    def advance(self, n: int = 1, *, infra: int = 0) -> None:
        """``n`` more units ended, ``infra`` of them in infrastructure errors."""


class _Nobody:
    def start(self, where: str, total: int, *, done: int = 0, unit: str = "records") -> None:
        return None

    def advance(self, n: int = 1, *, infra: int = 0) -> None:
        return None


_NOBODY = _Nobody()
_SINK: ContextVar[ProgressSink | None] = ContextVar("robustcall_progress", default=None)


def progress() -> ProgressSink:
    """The listener of this context (one that ignores everything when nobody listens)."""
    return _SINK.get() or _NOBODY


@contextlib.contextmanager
def progress_to(sink: ProgressSink) -> Iterator[ProgressSink]:
    """Tell ``sink`` the progress of everything done inside (asyncio tasks and worker threads
    started inside inherit it)."""
    token = _SINK.set(sink)
    try:
        yield sink
    finally:
        _SINK.reset(token)
