"""``robustcall build``: real sources -> clean.jsonl + one file per static type + manifest.json.

Each (sample, type) pair draws from its own random stream, seeded by (seed, sample id, type), so
the same inputs and seed give byte-identical files whatever subset is built.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from robustcall.core import STATIC_TYPES, InputError, Sample, file_sha256, seeded_rng, write_jsonl
from robustcall.perturb._offline import OfflineRewriter
from robustcall.perturb._rewriter import Rewriter
from robustcall.perturb._types import REGISTRY, GuardStats, PerturbContext
from robustcall.sources import DEFAULT_COMPOSITION, load_source, select_clean

MANIFEST = "manifest.json"


def perturb_all(
    clean: Sequence[Sample],
    types: Sequence[str],
    seed: int,
    rewriter: Rewriter,
    guard: GuardStats,
    on_step: Callable[[], None] | None = None,
) -> dict[str, list[Sample]]:
    """Every static type applied to every clean sample it applies to."""
    out: dict[str, list[Sample]] = {}
    for code in types:
        ptype = REGISTRY[code]
        rows: list[Sample] = []
        for sample in clean:
            ctx = PerturbContext(rng=seeded_rng(seed, sample.id, code), rewriter=rewriter, guard=guard, code=code)
            new = ptype.apply(sample, ctx)
            if new is not None:
                rows.append(new)
            if on_step is not None:
                on_step()
        out[code] = rows
    return out


def build_benchmark(
    sources: Sequence[str],
    data_dir: Path | None,
    seed: int,
    out: Path,
    *,
    per_source: dict[str, int] | None = None,
    rewriter: Rewriter | None = None,
    types: Sequence[str] = STATIC_TYPES,
    on_progress: Callable[[str, int, int], None] | None = None,
) -> dict[str, Any]:
    """Build the benchmark into ``out``; return the manifest (also written to ``out/manifest.json``)."""
    rewriter = rewriter or OfflineRewriter()
    unknown = [t for t in types if t not in REGISTRY or not REGISTRY[t].static]
    if unknown:
        raise InputError(f"not static perturbation types: {unknown}; valid: {', '.join(STATIC_TYPES)}")
    counts = {**DEFAULT_COMPOSITION, **(per_source or {})}
    clean: list[Sample] = []
    versions: dict[str, dict[str, str]] = {}
    loader_skipped: dict[str, dict[str, int]] = {}
    source_of: dict[str, str] = {}
    for name in sources:
        result = load_source(name, data_dir)
        chosen = select_clean(result, counts.get(name, len(result.samples)), seed)
        clean.extend(chosen)
        source_of.update({s.benchmark: name for s in chosen})
        versions[name] = dict(result.versions)
        loader_skipped[name] = dict(result.skipped)
    clean.sort(key=lambda s: s.id)
    guard = GuardStats()
    total = len(clean) * len(types)
    done = [0]

    def step() -> None:
        done[0] += 1
        if on_progress is not None:
            on_progress("perturb", done[0], total)

    built = perturb_all(clean, types, seed, rewriter, guard, step)
    out.mkdir(parents=True, exist_ok=True)
    files = {"clean": write_jsonl(out / "clean.jsonl", clean)}
    for code, rows in built.items():
        files[code] = write_jsonl(out / f"{code}.jsonl", rows)
    per_type_source: dict[str, dict[str, int]] = {}
    for code, rows in [("clean", clean), *built.items()]:
        per_type_source[code] = dict(sorted(Counter(source_of.get(s.benchmark, s.benchmark) for s in rows).items()))
    not_applicable = {code: len(clean) - len(rows) for code, rows in built.items() if len(rows) != len(clean)}
    manifest: dict[str, Any] = {
        "seed": seed,
        "sources": list(sources),
        "per_source": {s: counts.get(s) for s in sources},
        "rewriter": rewriter.settings(),
        "types": ["clean", *types],
        "counts": files,
        "counts_by_source": per_type_source,
        "not_applicable": not_applicable,
        "source_versions": versions,
        "source_skipped": loader_skipped,
        "guard": guard.as_dict(),
        "sha256": {f"{code}.jsonl": file_sha256(out / f"{code}.jsonl") for code in files},
    }
    (out / MANIFEST).write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    return manifest
