"""A run directory: ``run.json`` (what was asked), ``predictions.jsonl`` (the checkpoint stream),
``scores.jsonl`` (one verdict per record, sorted) and ``summary.json`` (the numbers)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from robustcall.core import (
    ExistingOutputError,
    InputError,
    MissingInputError,
    PredictionRecord,
    Verdict,
    atomic_write_text,
    iter_checkpoint,
    write_jsonl,
)
from robustcall.formats import parse_tool_calls
from robustcall.metrics import DEFAULT_RESAMPLES, Resampling, Summary, ghost_calls_in_rows, ghost_row, summarize
from robustcall.models import resolve_base_url, unwire_calls
from robustcall.run._answer import output_format
from robustcall.run._engine import PREDICTIONS
from robustcall.run._plan import record_key
from robustcall.score import score_records

SCORES = "scores.jsonl"
SUMMARY = "summary.json"
RUN_META = "run.json"


RESUME_IDENTITY = ("model_name", "mode", "answer_settings", "bench_digest", "shard")
"""What decides a run's answers (and which slice it answers): a resume must agree on all of these.
The endpoint, the bench folder's path, the types and the limit may change; an endpoint not used
before is added to ``endpoint_history`` in ``run.json``."""
ENDPOINT_HISTORY = "endpoint_history"


def write_meta(run_dir: Path, meta: dict[str, Any]) -> None:
    run_dir.mkdir(parents=True, exist_ok=True)
    atomic_write_text(run_dir / RUN_META, json.dumps(meta, indent=2, sort_keys=True) + "\n")


def _identity_of(before: dict[str, Any]) -> dict[str, Any]:
    """The identity fields of a ``run.json``; files written before they existed give what they can."""
    got = {k: before[k] for k in RESUME_IDENTITY if k in before}
    spec = before.get("model")
    if "model_name" not in got and isinstance(spec, str):
        got["model_name"] = _endpoint_of(spec, before.get("base_url"))[0]
    return got


def _endpoint_of(spec: str, base_url: object) -> tuple[str, str | None]:
    """``(model name, endpoint)`` of a spec as ``run`` records them (no endpoint off openai specs)."""
    if spec.startswith(("openai/", "openai:")):
        try:
            return resolve_base_url(spec, base_url if isinstance(base_url, str) else None)
        except ValueError:
            return spec, None
    return spec, None


def _history_of(before: dict[str, Any]) -> list[str]:
    if isinstance(before.get(ENDPOINT_HISTORY), list):
        return [e for e in before[ENDPOINT_HISTORY] if isinstance(e, str)]
    spec = before.get("model")
    endpoint = _endpoint_of(spec, before.get("base_url"))[1] if isinstance(spec, str) else None
    return [endpoint] if endpoint else []


def resume_meta(run_dir: Path, meta: dict[str, Any], before: dict[str, Any] | None) -> dict[str, Any]:
    """``meta`` for a run that goes on in ``run_dir``, checked against ``before`` (its ``run.json``,
    ``None`` when there is none or it was unreadable).

    A resume must agree on ``RESUME_IDENTITY`` (else ``ExistingOutputError`` names what differs);
    an endpoint the run was not answered from before is added to ``endpoint_history`` (oldest
    first)."""
    history: list[str] = []
    if before is not None:
        old = _identity_of(before)
        changed = [k for k in RESUME_IDENTITY if k in old and k in meta and old[k] != meta[k]]
        if changed:
            diff = "; ".join(f"{k}: {old[k]!r} then, {meta[k]!r} now" for k in changed)
            raise ExistingOutputError(
                f"{run_dir} holds a run with a different {', '.join(changed)} ({diff}): use another --out"
            )
        history = _history_of(before)
    endpoint = meta.get("endpoint")
    if isinstance(endpoint, str) and endpoint not in history:
        history.append(endpoint)
    return {**meta, ENDPOINT_HISTORY: history} if history else dict(meta)


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


def refuse_duplicates(path: Path, keys: list[tuple[str, str]]) -> None:
    """Raise ``InputError`` naming the lines when two records share a key (sample id, type).

    A run never writes one key twice (``--resume`` compacts its checkpoint); a file that does was
    put together by hand, and counting both would double the record's weight and narrow every
    interval. The leaderboard refuses such uploads the same way."""
    if len(set(keys)) == len(keys):
        return
    first: dict[tuple[str, str], int] = {}
    lineno = 0
    with open(path, encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            obj = json.loads(line)
            kind = (obj.get("perturbation") or {}).get("type", "clean")
            key = (str(obj.get("id")), str(kind))
            if key in first:
                raise InputError(
                    f"{path}:{lineno}: duplicate record {key[0]!r} ({key[1]}), first on line {first[key]}: "
                    "a run holds one record per sample and type; remove one of them"
                )
            first[key] = lineno
    raise InputError(f"{path}: duplicate records")  # not reached: the scan above finds the pair


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
        raise MissingInputError(f"{path} not found: run `robustcall run --out {run_dir}` first")
    # streamed: one record is alive at a time (a record carries its sample and tools); what is kept
    # is its verdict, its key and the names the ghost-call count needs
    keys: list[tuple[str, str]] = []
    ghost_rows: list[tuple[str, frozenset[str], list[str]]] = []
    records: Iterator[PredictionRecord] = iter_checkpoint(path, PredictionRecord)
    if reparse_text:
        mode = run_mode(run_dir)
        records = (reparse(r, mode) for r in records)

    def noted(recs: Iterator[PredictionRecord]) -> Iterator[PredictionRecord]:
        for r in recs:
            keys.append(record_key(r))
            ghost_rows.append(ghost_row(r))
            yield r

    verdicts = score_records(noted(records))
    refuse_duplicates(path, keys)
    verdicts.sort(key=lambda v: (v.type, v.id))
    summary = summarize(verdicts, resamples=resamples, seed=seed, resampling=resampling)
    summary.ghost_calls = ghost_calls_in_rows(ghost_rows)
    write_jsonl(run_dir / SCORES, verdicts)
    atomic_write_text(run_dir / SUMMARY, summary.model_dump_json(indent=2) + "\n")
    return verdicts, summary
