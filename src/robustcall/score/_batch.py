"""Batch parse + score: many ``(sample, model text)`` pairs at once, optionally on several cores.

The per-record path (``parse_tool_calls`` -> ``Prediction`` -> ``score_prediction`` -> ``Verdict``)
builds four pydantic objects per record; :func:`score_texts` keeps calls as ``(name, arguments)``
pairs and results as :class:`Scored` tuples, and prepares each distinct sample once (a sample object
that recurs in the batch reuses its :class:`SampleScorer`). :func:`to_verdict` turns a result into a
``Verdict`` when one is wanted. Results are the ones ``score_prediction`` gives on the parsed text.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Iterable, Sequence
from typing import Any

from robustcall.core import Sample, ToolSpec, forked_map
from robustcall.formats import OutputFormat, read_tool_calls_shared
from robustcall.score._bfcl_ast import Call
from robustcall.score._scorer import SampleScorer, Scored

MEMO_MAX = 64
"""Distinct texts whose calls a batch keeps for reuse (then it starts over). Small on purpose: the
texts that recur are mostly near each other (one sample's records) or trivial to read again (``[]``,
a stock refusal), while keeping every text's calls to the end of the batch kept them all alive,
so that each new record's objects came from fresh, cold memory: with 65,536 the corpus batch ran
about 15 % slower than with 16-64 (``benchmarks/parse_score.py``; docs/scoring.md)."""

PARALLEL_MIN = 2000
"""Below this many pairs, ``processes > 1`` still scores in-process (forking costs more)."""


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
    if processes > 1 and len(items) >= PARALLEL_MIN and hasattr(os, "fork"):
        return _score_parallel(items, fmt, processes)
    return _score_slice(items, fmt, 0, len(items))


def default_processes() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _score_slice(items: Sequence[tuple[Sample, str]], fmt: OutputFormat | None, lo: int, hi: int) -> list[Scored]:
    """Score ``items[lo:hi]``.

    A text that recurs in the batch (``[]``, a stock refusal, the same call under several
    perturbations of one sample) is parsed once: its calls are kept by text (per output format)
    when they do not depend on the sample's tools (``read_tool_calls_shared``; nothing downstream
    mutates them), up to :data:`MEMO_MAX` texts. The cyclic garbage collector is paused meanwhile:
    the loop allocates many small containers but no reference cycles, and each collection would
    walk the whole heap (every loaded sample), about a fifth of the loop's time."""
    # by id() (samples stay alive): the scorer, the memo of its output format, the sample's tools
    scorers: dict[int, tuple[SampleScorer, dict[str, list[Call]], list[ToolSpec]]] = {}
    memos: dict[str, dict[str, list[Call]]] = {}  # per output format: text -> calls
    out: list[Scored] = []
    append = out.append
    last: Sample | None = None  # the previous pair's sample and entry: records of a sample often come together
    entry: tuple[SampleScorer, dict[str, list[Call]], list[ToolSpec]] | None = None
    paused = gc.isenabled()
    gc.disable()
    try:
        for k in range(lo, hi):
            sample, text = items[k]
            if sample is not last or entry is None:
                entry = scorers.get(id(sample))
                if entry is None:
                    scorer = SampleScorer(sample, fmt)
                    entry = scorers[id(sample)] = (scorer, memos.setdefault(scorer.fmt, {}), sample.tools)
                last = sample
            scorer, memo, tools = entry
            calls = memo.get(text)
            if calls is None:
                calls, shared = read_tool_calls_shared(text, scorer.fmt, tools)
                if shared:
                    if len(memo) >= MEMO_MAX:
                        memo.clear()
                    memo[text] = calls
            append(scorer.judge(text, calls))
    finally:
        if paused:
            gc.enable()
    return out


def _score_parallel(items: list[tuple[Sample, str]], fmt: OutputFormat | None, processes: int) -> list[Scored]:
    """Contiguous slices, the first scored here and each other one in a forked child that inherits
    the batch (nothing pickled on the way in) and sends back plain tuples (``core.forked_map``)."""
    n = len(items)
    cuts = [n * i // processes for i in range(processes + 1)]

    def part(bounds: tuple[int, int]) -> list[tuple[Any, ...]]:
        lo, hi = bounds
        try:
            # plain tuples: a named tuple pickles through copyreg, about ten times slower
            return [tuple.__new__(tuple, s) for s in _score_slice(items, fmt, lo, hi)]
        except Exception as exc:
            if lo == 0:  # the slice scored here: its error as it is
                raise
            raise RuntimeError(f"score_texts worker failed: {type(exc).__name__}: {exc}") from None

    out: list[Scored] = []
    for got in forked_map(part, [(cuts[i], cuts[i + 1]) for i in range(processes)], processes):
        out.extend(map(Scored._make, got))
    return out
