"""The one run loop: bounded concurrency over units of work, one append-only JSONL file as checkpoint.

Single-turn runs (a work item -> a prediction record), fault-injection runs and PIPE runs (an
episode -> a trajectory) all go through :func:`run_loop`; what differs is the unit, how it is done
and what its record is. Kill the process at any moment and ``resume=True`` finishes the run:
records already written are kept (a torn last line is cut), records that ended in an
infrastructure error are dropped so that they are done again, and nothing is done twice. After
``stop_after`` identical infrastructure errors in a row (failed attempts that were retried count:
``models.FailureWatch``) no new unit is started, requests waiting out a retry backoff give up at
once and nothing more is sent.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import os
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Hashable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Generic, TypeVar

from pydantic import BaseModel

from robustcall.core import (
    ExistingOutputError,
    InputError,
    JsonlAppender,
    RunFailed,
    progress,
    read_checkpoint,
    remove_stale_tmp,
    write_jsonl,
)
from robustcall.models import DEFAULT_CONCURRENCY, FailureWatch, UnitWatch, backoff_lender, failure_watch
from robustcall.models import STOP_AFTER as STOP_AFTER  # re-exported: the run commands name it from here

EXIT_INFRA = 3
"""The exit status of a command whose run stopped on, or finished with, infrastructure errors."""

U = TypeVar("U")
R = TypeVar("R", bound=BaseModel)
K = TypeVar("K", bound=Hashable)


@dataclass(frozen=True, slots=True)
class Outcome:
    """What doing one unit gave: its record as one JSON line, and whether it failed on infrastructure."""

    line: str
    """The record, serialised, without its newline."""
    ident: str
    """The unit's id as ``RunStats.infra_ids`` lists it."""
    infra: str | None = None
    """The infrastructure error it ended with (it is done again on resume), else ``None``."""


@dataclass
class RunStats:
    """What a run (or a resumed run) did."""

    planned: int = 0
    already_done: int = 0
    answered: int = 0
    infra_errors: int = 0
    dropped_for_retry: int = 0
    infra_ids: list[str] = field(default_factory=list)
    failure_reasons: Counter[str] = field(default_factory=Counter)
    """Infrastructure error message -> how many records of this run ended with it."""
    stopped: str | None = None
    """The error that stopped the run early (``STOP_AFTER`` identical ones in a row), else ``None``."""

    def top_failures(self, n: int = 3) -> list[tuple[str, int]]:
        """The ``n`` most common infrastructure errors with their counts, most common first."""
        return sorted(self.failure_reasons.items(), key=lambda kv: (-kv[1], kv[0]))[:n]


def one_line(reason: str, limit: int = 300) -> str:
    """A failure's text (a server's message may span lines) on one line, at most ``limit`` characters."""
    flat = " ".join(reason.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def stopped_failure(stop_after: int, reason: str, then: str) -> RunFailed:
    """The error of a run stopped after ``stop_after`` identical failures; ``then`` says what next."""
    return RunFailed(
        f"stopped after {stop_after} identical failures in a row: {one_line(reason)}\n{then}", exit_code=EXIT_INFRA
    )


@dataclass(frozen=True)
class Checkpoint(Generic[R, K]):
    """How a run's records read back: their type, their key, and which ones are to be done again."""

    record: type[R]
    key: Callable[[R], K]
    is_infra: Callable[[R], bool]

    def load(self, path: Path) -> tuple[dict[K, R], int]:
        """Completed records of an earlier attempt (last one per key wins) and how many were dropped.

        Infra-error records are dropped so that a resume does them again; the file is then rewritten
        compacted (atomically), so that it never holds two records for one key."""
        records = read_checkpoint(path, self.record)
        done: dict[K, R] = {}
        for rec in records:
            done[self.key(rec)] = rec
        kept = {k: r for k, r in done.items() if not self.is_infra(r)}
        dropped = len(records) - len(kept)
        if dropped:
            write_jsonl(path, kept.values())
        return kept, dropped


def open_checkpoint(path: Path, checkpoint: Checkpoint[R, K], *, resume: bool, what: str) -> tuple[dict[K, R], int]:
    """The records already in ``path`` (see :meth:`Checkpoint.load`); an existing non-empty file
    without ``resume`` is refused (``ExistingOutputError`` naming ``--resume``)."""
    if resume:
        remove_stale_tmp(path.parent)  # a kill during an atomic write (run.json, the compacted checkpoint)
    if path.exists() and path.stat().st_size > 0:
        if not resume:
            raise ExistingOutputError(f"{path} already holds {what}: pass --resume to finish that run")
        return checkpoint.load(path)
    return {}, 0


async def run_loop(
    units: Sequence[U],
    work: Callable[[U], Awaitable[Outcome]],
    key: Callable[[U], K],
    path: Path,
    checkpoint: Checkpoint[R, K],
    *,
    concurrency: int = DEFAULT_CONCURRENCY,
    resume: bool = False,
    fsync: bool = False,
    stop_after: int = STOP_AFTER,
    what: str = "records",
) -> RunStats:
    """Do every unit whose key is not yet in ``path`` and append its record (``work``'s line).

    ``concurrency`` units are in progress at once. After ``stop_after`` identical infrastructure
    errors in a row (0: never; retried attempts count) no new unit is started, the ones in flight
    end without asking again and are recorded, and ``RunStats.stopped`` says why. An exception out
    of ``work`` ends the run after the records finished so far are written (``resume`` goes on
    from there)."""
    if concurrency < 1:
        raise InputError(f"concurrency must be >= 1, got {concurrency}")
    path.parent.mkdir(parents=True, exist_ok=True)
    stats = RunStats(planned=len(units))
    done, stats.dropped_for_retry = open_checkpoint(path, checkpoint, resume=resume, what=what)
    todo = [u for u in units if key(u) not in done]
    stats.already_done = len(units) - len(todo)
    del done
    pending = iter(todo)  # shared by the workers; the loop is single-threaded
    told = progress()  # progress lines in a log (the CLI listens when stdout is not a terminal)
    told.start(str(path.parent), len(units), done=stats.already_done, unit="records" if what == "predictions" else what)
    watch = FailureWatch(stop_after)  # every attempt's failure, from the model client and from records

    # Everything alive now (the units above all) lives through the run: freezing it keeps the
    # cyclic GC from rescanning thousands of records on every collection (about 10% of a fast run).
    gc.freeze()
    with contextlib.ExitStack() as cleanup:
        cleanup.callback(gc.unfreeze)
        out = cleanup.enter_context(JsonlAppender(path, fsync=fsync))
        # Records finished in one event-loop turn go out in one write: at C = 256 a turn finishes
        # dozens. A kill loses at most that turn's records, which --resume does again.
        lines: list[str] = []
        loop = asyncio.get_running_loop()

        def flush() -> None:
            if lines:
                out.write_lines(lines)
                lines.clear()

        cleanup.callback(flush)  # runs before the appender closes (last in, first out)

        # Places: ``concurrency`` units in progress at once. A request waiting out a retry backoff
        # lends its place (``backoff_lender``): a new worker takes the next unit meanwhile. When the
        # wait is over the request goes on at once (it never waits for a place: the model may hold
        # something the borrowing worker waits for, as the local model's slot does), taking an idle
        # place if there is one, else the next worker to finish a record retires. So retries never
        # hold places idle, and the places in use come back to ``concurrency`` as records end.
        idle_places = 0  # places nobody holds (workers that ran out of units)
        owed = 0  # places taken back by retries done waiting, to be given up by workers
        tasks: set[asyncio.Task[None]] = set()

        def give_up_place() -> None:
            nonlocal idle_places, owed
            if owed:
                owed -= 1
            else:
                idle_places += 1

        @contextlib.asynccontextmanager
        async def lend() -> AsyncIterator[None]:
            nonlocal idle_places, owed
            spawn()
            try:
                yield
            finally:
                if idle_places > 0:
                    idle_places -= 1
                else:
                    owed += 1

        async def worker() -> None:
            backoff_lender.set(lend)  # this task's own context
            try:
                for unit in pending:
                    if watch.stopped is not None:
                        break
                    unit_watch = UnitWatch(watch)
                    failure_watch.set(unit_watch)
                    outcome = await work(unit)
                    if not lines:  # the first record of this loop turn: write the turn's records at its end
                        loop.call_soon(flush)
                    lines.append(outcome.line)
                    stats.answered += 1
                    reason = outcome.infra
                    told.advance(infra=int(reason is not None))
                    if reason is not None:
                        stats.infra_errors += 1
                        stats.infra_ids.append(outcome.ident)
                        stats.failure_reasons[reason] += 1
                        if not unit_watch.saw_failure:  # not through a watched client (an exception of ours)
                            watch.failed(reason)
                    elif not unit_watch.saw_answer:  # a model without a watched client (scripted, replay)
                        watch.succeeded()
                    if owed:  # a retry done waiting took our place: retire
                        give_up_place()
                        return
            except BaseException:
                give_up_place()
                raise
            give_up_place()  # out of units

        def spawn() -> None:
            task = loop.create_task(worker())
            tasks.add(task)
            task.add_done_callback(tasks.discard)

        for _ in range(min(concurrency, max(1, len(todo)))):
            spawn()
        try:
            while tasks:
                await asyncio.gather(*tasks)
        except BaseException:
            for task in tasks:
                task.cancel()
            raise
    stats.stopped = watch.stopped
    if fsync:
        os.sync()
    return stats
