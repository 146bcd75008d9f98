"""Checking run and benchmark directories against the run-directory schema (``robustcall validate``).

Every metadata file is checked against its record (``run.json``: ``RunMeta`` or ``TrajectoryRunMeta``,
``manifest.json``: ``BenchManifest``, ``summary.json``: ``metrics.Summary``) and every line of every
JSONL file against its record model (``PredictionRecord``, ``Verdict``, ``Trajectory``, ``Sample``). A
benchmark's files must match the counts and sha256 its manifest recorded; a scored run's verdicts must
be those of its records. Each problem is one line naming the file (and line, and field).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from robustcall.core import (
    CLEAN_SAMPLES,
    MANIFEST,
    PREDICTIONS,
    RUN_META,
    SCORES,
    SUMMARY,
    TORN_LAST_LINE,
    TRAJECTORIES,
    BenchManifest,
    JsonlError,
    NewerFormatError,
    PredictionRecord,
    RunMeta,
    Sample,
    Trajectory,
    TrajectoryRunMeta,
    Verdict,
    VersionedMeta,
    file_sha256,
    json_line,
    parse_meta,
    record_key,
    type_file,
)

MARKERS = (RUN_META, PREDICTIONS, TRAJECTORIES, MANIFEST, CLEAN_SAMPLES)
"""A directory holding any of these is a run or a benchmark directory."""

M = TypeVar("M", bound=BaseModel)

MAX_PER_FILE = 20
"""Line problems reported per file before the rest are counted."""


def _first_error(exc: ValidationError) -> str:
    first = exc.errors()[0]
    where = ".".join(str(p) for p in first["loc"]) or "<record>"
    more = len(exc.errors()) - 1
    return f"field {where}: {first['msg']}" + (f" (and {more} more)" if more else "")


def run_dirs(path: Path) -> list[Path]:
    """``path`` itself when it is a run or benchmark directory, else every such directory below it
    (sorted; a run directory's own subdirectories are looked into as well)."""
    return [d for d in (path, *sorted(p for p in path.rglob("*") if p.is_dir())) if _is_run_dir(d)]


def _is_run_dir(d: Path) -> bool:
    return any((d / name).is_file() for name in MARKERS)


def _read_json(path: Path, problems: list[str]) -> object | None:
    try:
        data: object = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        problems.append(f"{path}: not JSON ({exc})")
        return None
    return data


def _check_meta(path: Path, record: type[VersionedMeta], problems: list[str]) -> VersionedMeta | None:
    """``path`` against ``record``, strictly (a format-0 file's misfits are problems too, though
    readers drop them)."""
    data = _read_json(path, problems)
    if data is None:
        return None
    try:
        meta = parse_meta(data, record, path)  # newer format, bad format_version, not an object
    except NewerFormatError as exc:
        problems.append(str(exc))
        return None
    except ValueError as exc:
        problems.append(str(exc))
        return None
    assert isinstance(data, dict)  # parse_meta refused anything else
    try:
        record.model_validate(data)
    except ValidationError as exc:
        problems.append(f"{path}: {_first_error(exc)}")
    return meta


def _lines(path: Path, model: type[M], problems: list[str]) -> Iterator[M]:
    """Every valid record of a JSONL file; a line that is not JSON or not a ``model`` is a problem."""
    bad = 0
    with open(path, "rb") as fh:
        data = fh.read()
    lines = data.split(b"\n")
    torn = bool(data) and not data.endswith(b"\n")
    for lineno, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        if torn and lineno == len(lines):
            problems.append(f"{path}:{lineno}: {TORN_LAST_LINE} (a run killed mid-write; `--resume` cuts it)")
            continue
        try:
            obj = json_line(path, lineno, raw)
            yield model.model_validate(obj)
            continue
        except JsonlError as exc:
            why = exc.reason
        except ValidationError as exc:
            why = _first_error(exc)
        bad += 1
        if bad <= MAX_PER_FILE:
            problems.append(f"{path}:{lineno}: {why}")
    if bad > MAX_PER_FILE:
        problems.append(f"{path}: {bad - MAX_PER_FILE} more bad lines")


def _check_bench(d: Path, problems: list[str]) -> None:
    manifest_path = d / MANIFEST
    if not manifest_path.is_file():
        problems.append(f"{d}: no {MANIFEST}: not a finished `robustcall build` output (build it again)")
        return
    manifest = _check_meta(manifest_path, BenchManifest, problems)
    if not isinstance(manifest, BenchManifest):
        return
    names = set(manifest.sha256) | {type_file(t) for t in manifest.types}
    for name in sorted(names):
        path = d / name
        if not path.is_file():
            problems.append(f"{manifest_path}: lists {name}, which is not in {d}")
            continue
        n = sum(1 for _ in _lines(path, Sample, problems))
        stem = name.removesuffix(".jsonl")
        if stem in manifest.counts and manifest.counts[stem] != n:
            problems.append(f"{path}: {n} samples, the manifest says {manifest.counts[stem]}")
        digest = manifest.sha256.get(name)
        if digest is not None and file_sha256(path) != digest:
            problems.append(f"{path}: sha256 differs from the manifest's (changed after the build)")


def _check_single_turn(d: Path, problems: list[str]) -> None:
    keys = {record_key(r) for r in _lines(d / PREDICTIONS, PredictionRecord, problems)}
    scores = d / SCORES
    if scores.is_file():
        verdicts = {(v.id, v.type) for v in _lines(scores, Verdict, problems)}
        if verdicts != keys:
            problems.append(
                f"{scores}: verdicts of {len(verdicts)} records, the run holds {len(keys)} "
                f"({len(verdicts - keys)} not in it, {len(keys - verdicts)} missing): score it again"
            )
    summary = d / SUMMARY
    if summary.is_file():
        from robustcall.metrics import Summary

        data = _read_json(summary, problems)
        if data is not None:
            try:
                Summary.model_validate(data)
            except ValidationError as exc:
                problems.append(f"{summary}: {_first_error(exc)}")
        if not scores.is_file():
            problems.append(f"{summary}: no {SCORES} beside it: score it again")


def _check_dir(d: Path, problems: list[str]) -> None:
    trajectories = (d / TRAJECTORIES).is_file()
    predictions = (d / PREDICTIONS).is_file()
    if (d / MANIFEST).is_file() or (d / CLEAN_SAMPLES).is_file():
        _check_bench(d, problems)
    if trajectories and predictions:
        problems.append(f"{d}: holds both {PREDICTIONS} and {TRAJECTORIES}: one run per directory")
    if not (trajectories or predictions):
        if (d / RUN_META).is_file():
            problems.append(f"{d}: {RUN_META} without {PREDICTIONS} or {TRAJECTORIES}: a run that never answered")
        return
    meta_path = d / RUN_META
    if not meta_path.is_file():
        problems.append(f"{d}: no {RUN_META} beside {TRAJECTORIES if trajectories else PREDICTIONS}")
    elif trajectories:
        _check_meta(meta_path, TrajectoryRunMeta, problems)
    else:
        _check_meta(meta_path, RunMeta, problems)
    if trajectories:
        for _ in _lines(d / TRAJECTORIES, Trajectory, problems):
            pass
    else:
        _check_single_turn(d, problems)


def validate_run_dir(path: Path) -> list[str]:
    """Problems of ``path`` and of every run or benchmark directory below it (see the module doc),
    one line each; ``[]`` when everything matches its schema."""
    if not path.is_dir():
        return [f"{path}: {'not a directory' if path.exists() else 'no such directory'}"]
    dirs = run_dirs(path)
    if not dirs:
        return [f"{path}: no run or benchmark files ({', '.join(MARKERS)}) in it or below it"]
    problems: list[str] = []
    for d in dirs:
        _check_dir(d, problems)
    return problems
