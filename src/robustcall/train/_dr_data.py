"""``robustcall train dr-data``: rlla files in, DR-Full and DR-Mixed files plus a manifest out."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from robustcall.core import atomic_write_text, file_sha256
from robustcall.perturb import GuardStats, OfflineRewriter, Rewriter
from robustcall.train._dr import dr_full, dr_mixed, uniform_within_one
from robustcall.train._io import save_rows
from robustcall.train._rlla import read_items, read_rows

MANIFEST = "manifest.json"
VARIANTS = ("dr_full", "dr_mixed")


def build_dr_data(
    inputs: Sequence[Path],
    out: Path,
    seed: int = 0,
    *,
    clean_fraction: float = 0.5,
    rewriter: Rewriter | None = None,
    suffix: str = ".parquet",
) -> dict[str, Any]:
    """Write ``out/{dr_full,dr_mixed}/<input stem><suffix>`` and ``out/manifest.json``; return the manifest.

    Inputs are rlla parquet files or raw ``{instruction, input, output}`` JSON lists; ``suffix``
    picks the output format (``.parquet``: veRL / ToolRL's layout; ``.jsonl``; ``""``: HF datasets).
    """
    rewriter = rewriter or OfflineRewriter()
    stems = [p.stem for p in inputs]
    if len(set(stems)) != len(stems):
        raise ValueError(f"inputs must have distinct file names (their stems name the outputs): {stems}")
    guard = GuardStats()
    manifest: dict[str, Any] = {
        "seed": seed,
        "clean_fraction": clean_fraction,
        "rewriter": rewriter.settings(),
        "inputs": {},
        "outputs": {},
    }
    for path in inputs:
        rows = read_rows(path)
        items, skipped = read_items(rows, str(path))
        manifest["inputs"][path.name] = {
            "sha256": file_sha256(path),
            "rows": len(rows),
            "read": len(items),
            "skipped": skipped,
        }
        results = {
            "dr_full": dr_full(items, seed, rewriter, guard),
            "dr_mixed": dr_mixed(items, seed, clean_fraction, rewriter, guard),
        }
        for variant, result in results.items():
            target = save_rows(result.rows, out / variant / f"{path.stem}{suffix}")
            manifest["outputs"][f"{variant}/{target.name}"] = {
                "rows": len(result.rows),
                "type_counts": result.type_counts,
                "uniform_within_one": uniform_within_one(result.type_counts),
                "no_type_applies": [int(items[i].row["extra_info"]["index"]) for i in result.dropped],
                "fallbacks": result.fallbacks,
                "sha256": file_sha256(target) if target.is_file() else None,
            }
    manifest["guard"] = guard.as_dict()
    atomic_write_text(out / MANIFEST, json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    return manifest
