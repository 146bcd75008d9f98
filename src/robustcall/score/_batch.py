"""Batch parse + score: many ``(sample, model text)`` pairs at once, optionally on several cores.

The per-record path (``parse_tool_calls`` -> ``Prediction`` -> ``score_prediction`` -> ``Verdict``)
builds four pydantic objects per record; :func:`score_texts` keeps calls as ``(name, arguments)``
pairs and results as :class:`Scored` tuples, and prepares each distinct sample once (a sample object
that recurs in the batch reuses its :class:`SampleScorer`). :func:`to_verdict` turns a result into a
``Verdict`` when one is wanted. Results are the ones ``score_prediction`` gives on the parsed text.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
from collections.abc import Iterable, Sequence

from robustcall.core import Sample
from robustcall.formats import OutputFormat
from robustcall.score._scorer import SampleScorer, Scored

PARALLEL_MIN = 2000
"""Below this many pairs, ``processes > 1`` still scores in-process (forking costs more)."""

_JOB: tuple[Sequence[tuple[Sample, str]], OutputFormat | None] | None = None
"""The batch a forked worker scores a slice of (inherited through ``fork``, never pickled)."""


def score_texts(
    pairs: Iterable[tuple[Sample, str]], fmt: OutputFormat | None = None, *, processes: int = 1
) -> list[Scored]:
    """Parse each model text and score it against its sample, in order.

    ``fmt``: the output format of every text (default: each sample's own, ``sample_format``).
    ``processes``: worker count; above 1 (and for at least :data:`PARALLEL_MIN` pairs, where
    ``fork`` exists) the batch is cut into contiguous slices, one scored here and the others in
    forked workers that inherit the batch and send back only their small results.
    """
    items = pairs if isinstance(pairs, list) else list(pairs)
    if processes > 1 and len(items) >= PARALLEL_MIN and "fork" in multiprocessing.get_all_start_methods():
        return _score_parallel(items, fmt, processes)
    return _score_slice(items, fmt, 0, len(items))


def default_processes() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _score_slice(items: Sequence[tuple[Sample, str]], fmt: OutputFormat | None, lo: int, hi: int) -> list[Scored]:
    """Score ``items[lo:hi]``. The cyclic garbage collector is paused meanwhile: the loop allocates
    many small containers but no reference cycles, and each collection would walk the whole heap
    (every loaded sample), about a fifth of the loop's time."""
    scorers: dict[int, SampleScorer] = {}  # by id(): every sample stays alive in ``items``
    out: list[Scored] = []
    append = out.append
    paused = gc.isenabled()
    gc.disable()
    try:
        for k in range(lo, hi):
            sample, text = items[k]
            scorer = scorers.get(id(sample))
            if scorer is None:
                scorer = scorers[id(sample)] = SampleScorer(sample, fmt)
            append(scorer.score_text(text))
    finally:
        if paused:
            gc.enable()
    return out


def _worker(lo: int, hi: int) -> list[tuple[bool, float, str | None, str | None]]:
    assert _JOB is not None, "a batch worker runs only in a process forked by score_texts"
    items, fmt = _JOB
    # plain tuples: a named tuple pickles through copyreg, about ten times slower
    return [tuple.__new__(tuple, s) for s in _score_slice(items, fmt, lo, hi)]


def _score_parallel(items: list[tuple[Sample, str]], fmt: OutputFormat | None, processes: int) -> list[Scored]:
    global _JOB
    n = len(items)
    cuts = [n * i // processes for i in range(processes + 1)]
    _JOB = (items, fmt)
    try:
        with multiprocessing.get_context("fork").Pool(processes - 1) as pool:
            pending = [pool.apply_async(_worker, (cuts[i], cuts[i + 1])) for i in range(1, processes)]
            out = _score_slice(items, fmt, cuts[0], cuts[1])
            for job in pending:
                out.extend(map(Scored._make, job.get()))
    finally:
        _JOB = None
    return out
