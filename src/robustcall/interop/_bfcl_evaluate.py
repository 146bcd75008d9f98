"""``bfcl evaluate``'s job on a result folder: read it, score every entry with BFCL's verdicts, and
write BFCL's score folder, keeping no run (``robustcall import bfcl RESULT --bfcl-out DIR``).

The folder is scored in two parts that need nothing of each other and take about as long: the
multi-turn files (replayed turn by turn on BFCL's API classes) and the rest (the single-turn
samples all come from one read of the wheel). Where there are two cores each part runs in a forked
child (``core.forked_map``) that sends back only its score files' lines; the verdicts are the same
on one core or two.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

from robustcall.core import forked_map
from robustcall.envs import MULTI_TURN_CATEGORIES
from robustcall.interop._bfcl_files import BfclFolder, bfcl_result_folder, read_bfcl_files, result_category
from robustcall.interop._bfcl_scores import CategoryScore, category_scores, write_score_folder
from robustcall.score import score_records
from robustcall.sources import bfcl_fc_models


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


def is_multi_turn(path: Path) -> bool:
    return result_category(path) in MULTI_TURN_CATEGORIES


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
    bfcl_fc_models(wheel)  # read once here, for both parts
    single = tuple(p for p in chosen.files if not is_multi_turn(p))
    turns = tuple(p for p in chosen.files if is_multi_turn(p))
    score = functools.partial(_score_part, chosen, wheel)
    parts = forked_map(score, [p for p in (single, turns) if p], processes, first_here=False)
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
