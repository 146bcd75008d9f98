"""Scoring uploads off the serving loop: in a process of its own, at a lower CPU priority.

Scoring is CPU-bound Python (parsing, the scorer, the 10,000-resample bootstrap). On a thread of the
serving process it held the GIL against the event loop, so every read waited behind it; in its own
process the loop keeps answering, and, ``nice``-d, the scorer gives way to it on a busy machine
(issue 43, item 10; with the read cache, 64 readers' p99 while uploads are scored went from about
1 s to 0.1-0.15 s on 2 busy cores: docs/leaderboard.md, "Many readers"). One scoring process per
serving process, one upload at a time: only one upload's parsed records are in memory at once
(issue 30's bound), and that process reuses the memory the last upload freed.

The scoring process loads the benchmark and opens the store itself and stores the submission
(the store's transaction serialises it with every other writer); the serving process gets the new
row's id back, never the records.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import tempfile
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path

from robustcall.core import MODEL_TYPES, dump_record
from robustcall.metrics import Summary
from robustcall.web._bench_index import BenchIndex
from robustcall.web._names import name_problem
from robustcall.web._store import NewSubmission, Store
from robustcall.web._upload import UploadError, score_upload

COMPONENTS = ("observation", "action", "reward", "transition")
SCORING_NICE = 10
"""How much lower the scoring process's CPU priority is than the server's (``nice`` increment: at
10 the scheduler gives it about a tenth of a core that readers also want, all of an idle one)."""


def _beyond_acc(summary: Summary) -> float | None:
    """Pooled accuracy over the records of the types beyond the paper (none: ``None``)."""
    cells = summary.beyond_by_type.values()
    n = sum(c.n for c in cells)
    return sum(c.correct for c in cells) / n if n else None


def ingest(bench: BenchIndex, store: Store, model: str, data: bytes, owner: str, model_type: str | None,
           max_upload: int) -> int:  # fmt: skip
    """Check the name and type, score ``data`` and store the submission; its id. Raises
    :class:`UploadError` (400), ``NameTaken`` (409) or ``StorageFull`` (507)."""
    model = model.strip()
    problem = name_problem(model)
    if problem is not None:
        raise UploadError(problem)
    if model_type is not None and model_type not in MODEL_TYPES:
        raise UploadError(f"rejected: type must be one of {', '.join(MODEL_TYPES)} or none, got {model_type!r}")
    scored = score_upload(data, bench, max_bytes=max_upload)
    cov = scored.coverage
    summary = scored.summary
    row = store.add(
        NewSubmission(
            model_name=model,
            model_type=model_type,
            owner=owner,
            bench_version=bench.version,
            partial=cov.partial,
            answered=cov.answered,
            expected=cov.expected,
            pert_acc=summary.perturbed.accuracy,
            clean_acc=summary.clean.accuracy,
            components={c: summary.by_component[c].accuracy for c in COMPONENTS if c in summary.by_component},
            summary_json=summary.model_dump_json(),
            coverage_json=json.dumps(cov.missing_by_type, sort_keys=True),
            verdicts_jsonl="".join(dump_record(v) + "\n" for v in scored.verdicts),
            raw_upload=data,
            beyond_acc=_beyond_acc(summary),
            attack_success=summary.attack_success.accuracy if summary.attack_success else None,
        )
    )
    return row.id


@dataclass(frozen=True)
class _Board:
    bench: BenchIndex
    store: Store


_board: _Board | None = None
"""The scoring process's benchmark and store (set by :func:`_start`)."""


def _start(bench_dir: Path, db_url: str, max_storage_bytes: int | None, nice: int) -> None:
    global _board
    if nice:
        os.nice(nice)
    _board = _Board(BenchIndex.load(bench_dir), Store(db_url, max_storage_bytes=max_storage_bytes))


def _ingest_here(model: str, spooled: str, owner: str, model_type: str | None, max_upload: int) -> int:
    """:func:`ingest` of the upload the server spooled to the file ``spooled`` (removed here)."""
    assert _board is not None, "the scoring process was not started"
    path = Path(spooled)
    try:
        data = path.read_bytes()
    finally:
        path.unlink(missing_ok=True)
    return ingest(_board.bench, _board.store, model, data, owner, model_type, max_upload)


def _spool(data: bytes) -> str:
    """The upload in a private temporary file: handed to the scoring process by name, not pickled
    through its pipe (a pickled copy would add the upload's size again to the server's memory)."""
    fd, name = tempfile.mkstemp(prefix="robustcall-upload-")
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    return name


class ScoringUnavailable(RuntimeError):
    """The scoring process died (killed for memory, say); the upload was not stored."""


class Scorer:
    """One scoring process, started on the first upload and again after one dies."""

    def __init__(self, bench_dir: Path, db_url: str, max_storage_bytes: int | None, nice: int = SCORING_NICE):
        self._args = (bench_dir, db_url, max_storage_bytes, nice)
        self._pool: ProcessPoolExecutor | None = None

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            # forkserver: a fresh interpreter forks the scorer, never the threaded server itself;
            # the module is preloaded there, so a new scorer starts in milliseconds
            context = multiprocessing.get_context("forkserver")
            context.set_forkserver_preload([__name__])
            self._pool = ProcessPoolExecutor(1, mp_context=context, initializer=_start, initargs=self._args)
        return self._pool

    async def ingest(self, model: str, data: bytes, owner: str, model_type: str | None, max_upload: int) -> int:
        """:func:`ingest` in the scoring process; raises what it raises, or
        :class:`ScoringUnavailable` when that process died."""
        import asyncio

        from starlette.concurrency import run_in_threadpool

        pool = self._executor()
        spooled = await run_in_threadpool(_spool, data)
        try:
            future = pool.submit(_ingest_here, model, spooled, owner, model_type, max_upload)
            return await asyncio.wrap_future(future)
        except BrokenProcessPool:
            self._pool = None  # the next upload starts a new one
            pool.shutdown(wait=False, cancel_futures=True)
            raise ScoringUnavailable("the scoring process stopped (out of memory?); nothing was stored") from None
        finally:
            Path(spooled).unlink(missing_ok=True)  # the scoring process removes it, unless it died first

    def pids(self) -> list[int]:
        """The scoring process's id (none before the first upload)."""
        return [] if self._pool is None else sorted(self._pool._processes or {})

    def shutdown(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
