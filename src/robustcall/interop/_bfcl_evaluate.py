"""``bfcl evaluate``'s job on a result folder: read it, score every entry with BFCL's verdicts, and
write BFCL's score folder, keeping no run (``robustcall import bfcl RESULT --bfcl-out DIR``).

The folder's files are scored in as many parts as there are cores, of about equal cost (a
multi-turn entry, replayed turn by turn on BFCL's API classes, costs about five single-turn ones),
each part in a forked child (``core.forked_map``) that reads only the wheel's data its files need
and sends back only its score files' lines; the verdicts are the same on one core or several.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from robustcall.core import cpu_count, forked_map
from robustcall.envs import MULTI_TURN_CATEGORIES
from robustcall.interop._bfcl_files import BfclFolder, bfcl_result_folder, read_bfcl_files, result_category
from robustcall.interop._bfcl_scores import CategoryScore, category_scores, write_score_folder
from robustcall.score import score_records


@dataclass(frozen=True)
class BfclEvaluation:
    """What ``evaluate_bfcl_folder`` read and wrote."""

    version: str
    """The ``bfcl generate`` version whose files were read."""
    model_dir: str
    """The model folder's name: the score folder is written under it."""
    records: int
    format_errors: int
    """Answers BFCL's decoder cannot read (scored as answers without a call)."""
    skipped: list[str]
    counts: dict[str, tuple[int, int]]
    """``(correct, total)`` per category, as its score file's first line says."""


@dataclass(frozen=True)
class _Part:
    scores: dict[str, CategoryScore]
    records: int
    format_errors: int
    skipped: list[str]


_WEIGHTS = {**dict.fromkeys(MULTI_TURN_CATEGORIES, 5.5), "format_sensitivity": 2.5}
"""An entry's cost relative to a single-turn one (measured, the caches warm: ~355, ~160 and ~65 µs)."""
_MULTI_TURN_START = 600.0
"""Importing BFCL's API classes (~40 ms), in single-turn entries."""


def split_files(files: Sequence[Path], parts: int) -> list[tuple[Path, ...]]:
    """``files`` in at most ``parts`` groups of about equal cost (entries times their weight), the
    costliest first into the cheapest group; the multi-turn files stay together (the part that
    replays them imports BFCL's API classes, 40 ms, which a second such part would pay again).
    Each group in path order."""
    multi = [p for p in files if result_category(p) in MULTI_TURN_CATEGORIES]
    items = [([p], _cost(p)) for p in files if p not in multi]
    if multi:
        items.append((multi, _MULTI_TURN_START + sum(map(_cost, multi))))
    items.sort(key=lambda item: (-item[1], str(item[0][0])))
    groups: list[tuple[float, list[Path]]] = [(0.0, []) for _ in range(max(1, parts))]
    for paths, cost in items:
        k = min(range(len(groups)), key=lambda i: (groups[i][0], i))
        groups[k] = (groups[k][0] + cost, [*groups[k][1], *paths])
    return [tuple(sorted(g)) for _, g in groups if g]


def _cost(path: Path) -> float:
    try:
        entries = path.read_bytes().count(b"\n") + 1
    except OSError:  # said when the part reads it
        entries = 1
    return entries * _WEIGHTS.get(result_category(path), 1.0)


def _score_part(chosen: BfclFolder, wheel: Path | None, files: tuple[Path, ...]) -> _Part:
    done = read_bfcl_files(chosen, files, wheel=wheel)
    verdicts = score_records(iter(done.written))
    scores = category_scores(chosen.model_dir, done.written, verdicts)
    return _Part(scores, done.records, done.format_errors, done.skipped)


def evaluate_bfcl_folder(
    folder: Path,
    out: Path,
    *,
    categories: frozenset[str] | None = None,
    processes: int | None = None,
    wheel: Path | None = None,
) -> BfclEvaluation:
    """Score the BFCL result folder ``folder`` (v3 or v4) and write BFCL's score folder under ``out``.
    ``processes``: at most this many processes (default: the usable cores; 1: all here)."""
    chosen = bfcl_result_folder(folder, categories)
    processes = cpu_count() if processes is None else max(1, processes)
    score = functools.partial(_score_part, chosen, wheel)
    parts = forked_map(score, split_files(chosen.files, processes), processes, first_here=False)
    scores: dict[str, CategoryScore] = {}
    for part in parts:
        scores |= part.scores
    counts = write_score_folder(out, chosen.model_dir, scores)
    return BfclEvaluation(
        version=chosen.version,
        model_dir=chosen.model_dir,
        records=sum(p.records for p in parts),
        format_errors=sum(p.format_errors for p in parts),
        skipped=[*chosen.skipped, *(line for p in parts for line in p.skipped)],
        counts=counts,
    )
