"""Runs over several machines: ``--shard i/n`` answers a deterministic slice; ``merge`` joins the
shard runs into one run directory that scoring and reports read like any other.

A slice is a set of *clean samples* (every perturbation of a sample goes to the shard of its clean
sample, so paired comparisons never straddle machines): the clean ids of the plan, sorted, are dealt
round-robin, the k-th to shard ``k mod n``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path

from robustcall.core import (
    PREDICTIONS,
    RUN_META,
    MergedShard,
    PredictionRecord,
    RunFileError,
    RunMeta,
    read_checkpoint,
    read_run_meta,
    trial_key,
    write_jsonl,
)
from robustcall.run._plan import WorkItem, clean_id_of
from robustcall.run._rundir import write_meta

IDENTITY = ("bench_digest", "model_name", "mode", "types", "limit", "settings_digest")
"""Meta fields every shard of one run shares (the base URL and the bench's path may differ by machine)."""


class MergeError(ValueError):
    """Shard runs that cannot be joined into one run."""


def parse_shard(spec: str) -> tuple[int, int]:
    """``"i/n"`` -> ``(i, n)`` with ``0 <= i < n``; raises ``ValueError``."""
    left, sep, right = spec.partition("/")
    if not sep or not left.strip().isdigit() or not right.strip().isdigit():
        raise ValueError(f"--shard wants i/n (e.g. 0/4), got {spec!r}")
    i, n = int(left), int(right)
    if n < 1 or not 0 <= i < n:
        raise ValueError(f"--shard {spec}: need n >= 1 and 0 <= i < n")
    return i, n


def shard_items(items: Sequence[WorkItem], index: int, count: int) -> list[WorkItem]:
    """The items of shard ``index`` of ``count`` (see the module doc)."""
    clean_ids = sorted({clean_id_of(it.sample) for it in items})
    mine = {cid for k, cid in enumerate(clean_ids) if k % count == index}
    return [it for it in items if clean_id_of(it.sample) in mine]


def file_digest(path: Path | None) -> str | None:
    """sha256 of a file's bytes (``None`` for no file)."""
    if path is None:
        return None
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _meta(run_dir: Path) -> RunMeta:
    path = run_dir / RUN_META
    if not path.is_file():
        raise MergeError(f"{run_dir}: no {RUN_META}: not a run directory written by `robustcall run`")
    try:
        return read_run_meta(path)
    except RunFileError as exc:  # a newer format (NewerFormatError) is the user's to see as it is
        raise MergeError(f"{path}: not a run description ({exc})") from None


def _field(meta: RunMeta, name: str) -> object:
    """A meta field as the file gives it (``None`` when absent)."""
    return getattr(meta, name) if meta.given(name) else None


def merge_runs(run_dirs: Sequence[Path], out: Path) -> RunMeta:
    """Join shard runs into ``out`` (``predictions.jsonl`` sorted by record key, ``run.json``).

    Refuses runs that differ in bench, model, mode, types, limit or settings, runs that are not
    the shards ``0/n .. n-1/n`` of one split (each once), and any record present in two runs.
    Returns the merged run's meta.
    """
    if not run_dirs:
        raise MergeError("name the shard runs to merge")
    if (out / PREDICTIONS).exists():
        raise MergeError(f"{out} already holds predictions: merge into a new directory")
    metas = [_meta(d) for d in run_dirs]
    first = metas[0]
    for run_dir, meta in zip(run_dirs[1:], metas[1:], strict=True):
        differ = [k for k in IDENTITY if _field(meta, k) != _field(first, k)]
        if differ:
            shown = ", ".join(f"{k}: {_field(first, k)!r} vs {_field(meta, k)!r}" for k in differ)
            raise MergeError(f"{run_dir} is not a shard of the same run as {run_dirs[0]} ({shown})")
    shards = [m.shard for m in metas]
    if any(s is None for s in shards):
        raise MergeError(f"{run_dirs[shards.index(None)]} is not a shard (run with --shard i/n)")
    split = [parse_shard(str(s)) for s in shards]
    counts = {n for _, n in split}
    if len(counts) != 1:
        raise MergeError(f"shards of different splits: {', '.join(str(s) for s in shards)}")
    (n,) = counts
    seen = [i for i, _ in split]
    twice = sorted({i for i in seen if seen.count(i) > 1})
    if twice:
        raise MergeError(f"shard(s) {', '.join(f'{i}/{n}' for i in twice)} given more than once")
    missing = sorted(set(range(n)) - set(seen))
    if missing:
        raise MergeError(f"shard(s) {', '.join(f'{i}/{n}' for i in missing)} missing")
    merged: dict[tuple[str, str, int], PredictionRecord] = {}
    where: dict[tuple[str, str, int], Path] = {}
    parts: list[MergedShard] = []
    for run_dir, meta in zip(run_dirs, metas, strict=True):
        path = run_dir / PREDICTIONS
        records = read_checkpoint(path, PredictionRecord) if path.is_file() else []
        own: dict[tuple[str, str, int], PredictionRecord] = {}
        for rec in records:
            own[trial_key(rec)] = rec  # a resumed shard's re-asked record replaces its first try
        for key, rec in own.items():
            if key in merged:
                raise MergeError(f"record {key[0]} ({key[1]}) is in both {where[key]} and {run_dir}")
            merged[key] = rec
            where[key] = run_dir
        parts.append(
            MergedShard(dir=str(run_dir.resolve()), shard=str(meta.shard), base_url=meta.base_url, records=len(own))
        )
    write_jsonl(out / PREDICTIONS, [merged[k] for k in sorted(merged)])
    parts.sort(key=lambda p: parse_shard(p.shard))
    meta = first.model_copy(update={"shard": None, "base_url": None, "merged_from": parts})
    write_meta(out, meta)
    return meta
