"""The benchmark version a leaderboard scores against: every expected record id and its sample."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from robustcall.core import BEYOND_TYPES, MANIFEST, MissingInputError, Sample, read_bench_manifest
from robustcall.run import ALL_TYPES, plan_work


@dataclass(frozen=True)
class BenchIndex:
    """Samples by record id (static types from the built files, transition types from clean)."""

    path: Path
    version: str
    """First 12 hex digits of the sha256 of ``manifest.json``: what a submission was scored against."""
    samples: dict[str, Sample]
    ids_by_type: dict[str, frozenset[str]]
    """Expected record ids per type: the paper's 22 types and clean."""
    optional: frozenset[str] = frozenset()
    """Record ids of the types beyond the paper the benchmark was built with: scored when uploaded,
    never expected (a submission without them is not partial)."""
    release: dict[str, Any] | None = None
    """The authors' release the benchmark was read from (``build --release``), else ``None``."""

    @property
    def versus_paper(self) -> str:
        """What the board's rows are beside the paper's: like for like only on the release in full."""
        rel = self.release
        if rel and rel.get("like_for_like"):
            commit = str(rel.get("commit") or "unknown commit")[:7]
            return (
                f"This board's benchmark is the authors' release {rel.get('name')} ({commit}): a complete "
                "submission is like for like with the paper's rows."
            )
        return (
            "This board's benchmark is not the authors' release in full (robustcall's own build, or part of the "
            "release): not like for like with the paper's rows, which compare only roughly."
        )

    @property
    def expected(self) -> int:
        return len(self.samples) - len(self.optional)

    @classmethod
    def load(cls, bench_dir: Path) -> BenchIndex:
        manifest = bench_dir / MANIFEST
        if not manifest.is_file():
            raise MissingInputError(f"{manifest} not found: point --bench at a `robustcall build` output")
        items = plan_work(bench_dir, list(ALL_TYPES), None)
        beyond = [t for t in BEYOND_TYPES if (bench_dir / f"{t}.jsonl").is_file()]
        extra = plan_work(bench_dir, beyond, None) if beyond else []
        samples = {it.sample.id: it.sample for it in (*items, *extra)}
        by_type: dict[str, set[str]] = {}
        for it in items:
            by_type.setdefault(it.type, set()).add(it.sample.id)
        version = hashlib.sha256(manifest.read_bytes()).hexdigest()[:12]
        optional = frozenset(it.sample.id for it in extra)
        release = read_bench_manifest(manifest).release
        return cls(bench_dir, version, samples, {t: frozenset(ids) for t, ids in by_type.items()}, optional, release)
