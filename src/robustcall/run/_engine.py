"""The run loop: bounded concurrency over work items, one append-only predictions file as checkpoint.

Kill the process at any moment and ``resume=True`` finishes the run: records already written are
kept (a torn last line is cut), infrastructure errors are dropped so they are asked again, and
nothing is answered twice.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import os
from collections import Counter
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path

from robustcall.core import (
    PREDICTIONS,
    ExistingOutputError,
    InputError,
    JsonlAppender,
    Prediction,
    PredictionRecord,
    Sample,
    prediction_line,
    read_checkpoint,
    record_key,
    remove_stale_tmp,
    write_jsonl,
)
from robustcall.formats import MAX_PARSE_CHARS
from robustcall.models import DEFAULT_CONCURRENCY, ChatModel, backoff_lender
from robustcall.run._answer import answer
from robustcall.run._plan import WorkItem

STOP_AFTER = 5
"""A run stops after this many identical infrastructure errors in a row (an endpoint that answers
every request with the same HTTP 400, or that cannot be reached): asking thousands more only
repeats the server's message."""


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


def load_done(path: Path) -> tuple[dict[tuple[str, str], PredictionRecord], int]:
    """Completed records of an earlier attempt (last one per key wins) and how many were dropped.

    Infra-error records are dropped so that a resume asks again; the file is rewritten compacted
    (atomically) so that it never holds two records for one key.
    """
    records = read_checkpoint(path, PredictionRecord)
    done: dict[tuple[str, str], PredictionRecord] = {}
    for rec in records:
        done[record_key(rec)] = rec
    kept = {k: r for k, r in done.items() if r.prediction.error_kind != "infra"}
    dropped = len(records) - len(kept)
    if dropped:
        write_jsonl(path, kept.values())
    return kept, dropped


def unrecordable(pred: Prediction, exc: Exception) -> Prediction:
    """The record kept when ``pred`` cannot be written as JSON (a model output no bound caught):
    the text, truncated, without its calls, as a model-format error (scored as no call)."""
    why = f"unreadable: the model's output could not be recorded ({type(exc).__name__}: {str(exc)[:200]})"
    return Prediction(
        raw_output=pred.raw_output[:MAX_PARSE_CHARS],
        error=why,
        error_kind="model_format",
        latency_s=pred.latency_s,
    )


async def run_items(
    items: list[WorkItem],
    model: ChatModel,
    out_dir: Path,
    *,
    concurrency: int = DEFAULT_CONCURRENCY,
    resume: bool = False,
    fsync: bool = False,
    on_record: Callable[[Prediction], None] | None = None,
    stop_after: int = STOP_AFTER,
    max_tokens: Callable[[Sample], int | None] | None = None,
) -> RunStats:
    """Answer every item not yet in ``out_dir/predictions.jsonl`` and append its record.

    After ``stop_after`` identical infrastructure errors in a row (0: never) no new item is
    started; the ones in flight are finished and recorded, and ``RunStats.stopped`` says why.
    ``max_tokens``: a per-sample output cap below the model's settings (e.g. ``GoldBudget``).
    """
    if concurrency < 1:
        raise InputError(f"concurrency must be >= 1, got {concurrency}")
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / PREDICTIONS
    stats = RunStats(planned=len(items))
    done: dict[tuple[str, str], PredictionRecord] = {}
    if resume:
        remove_stale_tmp(out_dir)  # a kill during an atomic write (run.json, the compacted checkpoint)
    if path.exists() and path.stat().st_size > 0:
        if not resume:
            raise ExistingOutputError(f"{path} already holds predictions: pass --resume to finish that run")
        done, stats.dropped_for_retry = load_done(path)
    todo = [it for it in items if it.key not in done]
    stats.already_done = len(items) - len(todo)
    pending = iter(todo)  # shared by the workers; the loop is single-threaded
    last_reason: str | None = None  # the last record's infra error and how many times in a row it came
    in_a_row = 0

    # Everything alive now (the samples above all) lives through the run: freezing it keeps the
    # cyclic GC from rescanning thousands of records on every collection (about 10% of a fast run).
    gc.freeze()
    with contextlib.ExitStack() as cleanup:
        cleanup.callback(gc.unfreeze)
        out = cleanup.enter_context(JsonlAppender(path, fsync=fsync))
        # Records finished in one event-loop turn go out in one write: at C = 256 a turn finishes
        # dozens. A kill loses at most that turn's records, which --resume asks again.
        lines: list[str] = []
        loop = asyncio.get_running_loop()

        def flush() -> None:
            if lines:
                out.write_lines(lines)
                lines.clear()

        cleanup.callback(flush)  # runs before the appender closes (last in, first out)

        # Places: ``concurrency`` items in progress at once. A request waiting out a retry backoff
        # lends its place (``backoff_lender``): a new worker takes the next item meanwhile. When the
        # wait is over the request goes on at once (it never waits for a place: the model may hold
        # something the borrowing worker waits for, as the local model's slot does), taking an idle
        # place if there is one, else the next worker to finish a record retires. So retries never
        # hold places idle, and the places in use come back to ``concurrency`` as records end.
        idle_places = 0  # places nobody holds (workers that ran out of items)
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
            nonlocal last_reason, in_a_row
            backoff_lender.set(lend)  # this task's own context
            try:
                for item in pending:
                    if stats.stopped is not None:
                        break
                    try:
                        cap = None if max_tokens is None else max_tokens(item.sample)
                        pred = await answer(item.sample, model, cap)
                    except Exception as exc:  # a bug of ours must not lose the run: record it, retry on resume
                        pred = Prediction(error=f"internal error: {type(exc).__name__}: {exc}", error_kind="infra")
                    if not lines:  # the first record of this loop turn: write the turn's records at its end
                        loop.call_soon(flush)
                    try:
                        line = prediction_line(item.sample, pred, model.name)
                    except Exception as exc:  # e.g. a value pydantic will not serialise: the output is scored
                        pred = unrecordable(pred, exc)
                        line = prediction_line(item.sample, pred, model.name)
                    lines.append(line)
                    stats.answered += 1
                    if pred.error_kind == "infra":
                        reason = pred.error or "unknown infrastructure error"
                        stats.infra_errors += 1
                        stats.infra_ids.append(item.sample.id)
                        stats.failure_reasons[reason] += 1
                        in_a_row = in_a_row + 1 if reason == last_reason else 1
                        last_reason = reason
                        if stop_after and in_a_row >= stop_after and stats.stopped is None:
                            stats.stopped = reason
                    else:
                        last_reason, in_a_row = None, 0
                    if on_record is not None:
                        on_record(pred)
                    if owed:  # a retry done waiting took our place: retire
                        give_up_place()
                        return
            except BaseException:
                give_up_place()
                raise
            give_up_place()  # out of items

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
    if fsync:
        os.sync()
    return stats
