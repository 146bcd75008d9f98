"""Scoring a run directory: ``predictions.jsonl`` in, ``scores.jsonl`` (one verdict per record,
sorted) and ``summary.json`` (the numbers) out."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from robustcall.core import (
    PREDICTIONS,
    ROBUSTCALL_VERSION,
    RUN_META,
    SCORER_VERSION,
    SCORES,
    SUMMARY,
    TORN_LAST_LINE,
    InputError,
    MissingInputError,
    PredictionRecord,
    RunFileError,
    RunMeta,
    Verdict,
    atomic_write_text,
    iter_checkpoint,
    open_jsonl,
    read_run_meta,
    torn_last_line,
    trial_key,
    write_jsonl,
)
from robustcall.formats import parse_tool_calls, sample_format
from robustcall.score._scorer import score_records

if TYPE_CHECKING:  # imported where used: scoring one record needs neither statistics nor model clients
    from robustcall.metrics import Resampling, Summary


def _meta_of(run_dir: Path) -> RunMeta | None:
    """The run's ``run.json``; ``None`` when there is none or it cannot be read (a newer format is
    refused: ``NewerFormatError``)."""
    if not (run_dir / RUN_META).is_file():
        return None
    try:
        return read_run_meta(run_dir)
    except RunFileError:
        return None


def run_mode(run_dir: Path) -> str | None:
    """The ``mode`` a run asked in (``run.json``), ``None`` when it does not say."""
    meta = _meta_of(run_dir)
    return None if meta is None else meta.mode


def torn_predictions(run_dir: Path) -> str | None:
    """What to say before scoring a run whose predictions.jsonl ends in a torn line (a run killed
    mid-write; scoring cuts it, as a resume does), else ``None``."""
    path = run_dir / PREDICTIONS
    line = torn_last_line(path)
    if line is None:
        return None
    return f"{path}:{line}: {TORN_LAST_LINE} (a run killed mid-write) cut, not scored; `--resume` asks it again"


def reparse(rec: PredictionRecord, mode: str | None = None) -> PredictionRecord:
    """The record with its tool calls parsed again from ``raw_output`` (structured fc calls kept);
    ``mode="fc"``: the text answered an fc request, so wire aliases are read back as tool names."""
    pred = rec.prediction
    if pred.error_kind == "infra" or (pred.tool_calls and not pred.raw_output):
        return rec
    if pred.raw_output_cut is not None:  # the whole text was longer than the parser reads: no calls
        return rec.model_copy(update={"prediction": pred.model_copy(update={"tool_calls": []})})
    calls = parse_tool_calls(pred.raw_output, sample_format(rec), rec.tools).calls
    if mode == "fc" and calls:
        from robustcall.models import unwire_calls

        calls = unwire_calls(calls, rec.tools)
    return rec.model_copy(update={"prediction": pred.model_copy(update={"tool_calls": calls})})


def refuse_duplicates(path: Path, keys: list[tuple[str, str, int]]) -> None:
    """Raise ``InputError`` naming the lines when two records share a key (sample id, type, trial).

    A run never writes one key twice (``--resume`` compacts its checkpoint); a file that does was
    put together by hand, and counting both would double the record's weight and narrow every
    interval. The leaderboard refuses such uploads the same way."""
    if len(set(keys)) == len(keys):
        return
    first: dict[tuple[str, str, int], int] = {}
    lineno = 0
    with open_jsonl(path) as fh:
        for lineno, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            obj = json.loads(line)
            kind = (obj.get("perturbation") or {}).get("type", "clean")
            key = (str(obj.get("id")), str(kind), int(obj.get("trial") or 0))
            if key in first:
                trial = f", trial {key[2]}" if obj.get("trial") is not None else ""
                raise InputError(
                    f"{path}:{lineno}: duplicate record {key[0]!r} ({key[1]}{trial}), first on line {first[key]}: "
                    "a run holds one record per sample, type and trial; remove one of them"
                )
            first[key] = lineno
    raise InputError(f"{path}: duplicate records")  # not reached: the scan above finds the pair


def score_run(
    run_dir: Path,
    *,
    reparse_text: bool = False,
    resamples: int | None = None,
    seed: int = 0,
    resampling: Resampling = "per-sample",
    records: Iterable[PredictionRecord] | None = None,
) -> tuple[list[Verdict], Summary]:
    """Score every record of a run, write ``scores.jsonl`` and ``summary.json``, return both.
    ``resamples``: bootstrap B (``None``: ``metrics.DEFAULT_RESAMPLES``). ``records``: the run's
    predictions as just written by the caller (``import bfcl --bfcl-out``), not read back.

    A run whose ``run.json`` is of a newer format than this robustcall reads is refused
    (``NewerFormatError``)."""
    from robustcall.metrics import DEFAULT_RESAMPLES, ghost_calls_in_rows, ghost_row, summarize

    path = run_dir / PREDICTIONS
    if not path.is_file():
        raise MissingInputError(f"{path} not found: run `robustcall run --out {run_dir}` first")
    meta = _meta_of(run_dir)
    # streamed: one record is alive at a time (a record carries its sample and tools); what is kept
    # is its verdict, its key and the names the ghost-call count needs
    keys: list[tuple[str, str, int]] = []
    trials: list[int | None] = []
    ghost_rows: list[tuple[str, frozenset[str], list[str]]] = []
    stream: Iterator[PredictionRecord] = iter_checkpoint(path, PredictionRecord) if records is None else iter(records)
    if reparse_text:
        mode = None if meta is None else meta.mode
        stream = (reparse(r, mode) for r in stream)

    def noted(recs: Iterator[PredictionRecord]) -> Iterator[PredictionRecord]:
        for r in recs:
            keys.append(trial_key(r))
            trials.append(r.trial)
            ghost_rows.append(ghost_row(r))
            yield r

    verdicts = score_records(noted(stream))
    refuse_duplicates(path, keys)
    for v, trial in zip(verdicts, trials, strict=True):
        if trial is not None:
            v.trial = trial
    verdicts.sort(key=lambda v: (v.type, v.id, v.trial or 0))
    resamples = DEFAULT_RESAMPLES if resamples is None else resamples
    summary = summarize(verdicts, resamples=resamples, seed=seed, resampling=resampling)
    summary.ghost_calls = ghost_calls_in_rows(ghost_rows)
    summary.scorer_version, summary.robustcall_version = SCORER_VERSION, ROBUSTCALL_VERSION
    write_jsonl(run_dir / SCORES, verdicts)
    atomic_write_text(run_dir / SUMMARY, summary.model_dump_json(indent=2) + "\n")
    return verdicts, summary
