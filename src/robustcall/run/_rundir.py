"""A run directory: ``run.json`` (what was asked), ``predictions.jsonl`` (the checkpoint stream),
``scores.jsonl`` (one verdict per record, sorted) and ``summary.json`` (the numbers)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from robustcall.core import PredictionRecord, Verdict, atomic_write_text, read_checkpoint, write_jsonl
from robustcall.formats import parse_tool_calls
from robustcall.metrics import DEFAULT_RESAMPLES, Resampling, Summary, ghost_calls_in_records, summarize
from robustcall.models import unwire_calls
from robustcall.run._answer import output_format
from robustcall.run._engine import PREDICTIONS
from robustcall.score import score_records

SCORES = "scores.jsonl"
SUMMARY = "summary.json"
RUN_META = "run.json"


def write_meta(run_dir: Path, meta: dict[str, Any]) -> None:
    run_dir.mkdir(parents=True, exist_ok=True)
    atomic_write_text(run_dir / RUN_META, json.dumps(meta, indent=2, sort_keys=True) + "\n")


def run_mode(run_dir: Path) -> str | None:
    """The ``mode`` a run asked in (``run.json``), ``None`` when it does not say."""
    try:
        meta = json.loads((run_dir / RUN_META).read_text())
    except (OSError, ValueError):
        return None
    mode = meta.get("mode") if isinstance(meta, dict) else None
    return mode if isinstance(mode, str) else None


def reparse(rec: PredictionRecord, mode: str | None = None) -> PredictionRecord:
    """The record with its tool calls parsed again from ``raw_output`` (structured fc calls kept);
    ``mode="fc"``: the text answered an fc request, so wire aliases are read back as tool names."""
    pred = rec.prediction
    if pred.error_kind == "infra" or (pred.tool_calls and not pred.raw_output):
        return rec
    calls = parse_tool_calls(pred.raw_output, output_format(rec), rec.tools).calls
    if mode == "fc" and calls:
        calls = unwire_calls(calls, rec.tools)
    return rec.model_copy(update={"prediction": pred.model_copy(update={"tool_calls": calls})})


def score_run(
    run_dir: Path,
    *,
    reparse_text: bool = False,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
    resampling: Resampling = "per-sample",
) -> tuple[list[Verdict], Summary]:
    """Score every record of a run, write ``scores.jsonl`` and ``summary.json``, return both."""
    path = run_dir / PREDICTIONS
    if not path.is_file():
        raise FileNotFoundError(f"{path} not found: run `robustcall run --out {run_dir}` first")
    records = read_checkpoint(path, PredictionRecord)
    if reparse_text:
        mode = run_mode(run_dir)
        records = [reparse(r, mode) for r in records]
    verdicts = sorted(score_records(records), key=lambda v: (v.type, v.id))
    summary = summarize(verdicts, resamples=resamples, seed=seed, resampling=resampling)
    summary.ghost_calls = ghost_calls_in_records(records)
    write_jsonl(run_dir / SCORES, verdicts)
    atomic_write_text(run_dir / SUMMARY, summary.model_dump_json(indent=2) + "\n")
    return verdicts, summary
