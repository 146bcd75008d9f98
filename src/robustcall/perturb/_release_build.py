"""``robustcall build --release``: the authors' released RobustBench-TC as a benchmark folder.

Nothing is perturbed here: ``clean.jsonl`` and each static type's file are the release's records
(``sources.load_release``), each with its source's scoring rule; the six transition types are added
at run time on the clean samples by our harness, as for every build. The manifest records the
release (name, commit, every file's sha256) and, beside the paper's, the counts read.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from robustcall.core import (
    CLEAN_SAMPLES,
    STATIC_TYPES,
    TRANSITION_TYPES,
    BenchManifest,
    file_sha256,
    type_file,
    write_jsonl,
)
from robustcall.perturb._build import table3
from robustcall.perturb._compose import paper_type_counts
from robustcall.sources import PAPER_AVG_TOOLS, ReleaseData, mean_tools

SOURCE_OF = {"bfcl_v3": "bfcl"}
"""The release's benchmark names as our source names (the others are spelled alike)."""


def _source(benchmark: str) -> str:
    return SOURCE_OF.get(benchmark, benchmark)


def build_release(data: ReleaseData, out: Path) -> dict[str, Any]:
    """Write ``data`` into ``out`` (``clean.jsonl``, ``<type>.jsonl``, ``manifest.json`` last);
    return the manifest as written."""
    out.mkdir(parents=True, exist_ok=True)
    clean = data.by_type["clean"]
    codes = [c for c in STATIC_TYPES if data.by_type.get(c)]
    files = {"clean": write_jsonl(out / CLEAN_SAMPLES, clean)}
    for code in codes:
        files[code] = write_jsonl(out / type_file(code), data.by_type[code])
    per_type_source = {
        code: dict(sorted(Counter(_source(s.benchmark) for s in data.by_type[code]).items()))
        for code in ("clean", *codes)
    }
    sources = sorted({_source(s.benchmark) for s in clean})
    paper = paper_type_counts()
    info = data.info() | {"records": sum(files.values()) + len(clean) * len(TRANSITION_TYPES)}
    fields: dict[str, Any] = {
        "seed": None,
        "sources": sources,
        "per_source": {name: per_type_source["clean"].get(name, 0) for name in sources},
        "rewriter": {"name": "release", "note": "the release's own records (the authors' LLM rewrites)"},
        "types": ["clean", *codes],
        "counts": files,
        "counts_by_source": per_type_source,
        "composition_mode": "release",
        "composition": table3(per_type_source, [_source(s.benchmark) for s in clean]),
        "type_counts": {
            code: {"ours": n, **({"paper": paper[code]} if code in paper else {})} for code, n in files.items()
        }
        | {code: {"ours": len(clean), "paper": paper[code]} for code in TRANSITION_TYPES},
        "avg_tools": {
            name: {"ours": round(mean_tools([s for s in clean if _source(s.benchmark) == name]), 2)}
            | ({"paper": PAPER_AVG_TOOLS[name]} if name in PAPER_AVG_TOOLS else {})
            for name in sources
        },
        "source_versions": {"release": {"name": data.name, "commit": data.commit or "unknown"}},
        "source_skipped": {"release": dict(data.skipped)},
        "sha256": {type_file(code): file_sha256(out / type_file(code)) for code in files},
        "release": info,
    }
    manifest = BenchManifest.model_validate(fields)
    path = manifest.write(out)
    written: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return written
