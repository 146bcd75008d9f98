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

from robustcall.core import (
    BEYOND_TYPES,
    CLEAN_SAMPLES,
    STATIC_TYPES,
    TRANSITION_TYPES,
    BenchManifest,
    InputError,
    Sample,
    file_sha256,
    seeded_rng,
    type_file,
    type_info,
    write_jsonl,
)
from robustcall.perturb._compose import (
    ALLOCATED_TYPES,
    COMPOSITIONS,
    Allocation,
    allocate,
    paper_type_counts,
    takes_every_type,
)
from robustcall.perturb._offline import OfflineRewriter
from robustcall.perturb._types import REGISTRY, GuardStats, PerturbContext, Rewriter, approx_tokens
from robustcall.sources import DEFAULT_COMPOSITION, PAPER_AVG_TOOLS, PAPER_TABLE3, load_source, mean_tools, select_clean


def static_types(spec: str) -> list[str]:
    """``paper`` (the 16 static types), ``beyond`` (Appendix N's static axes), ``all``, or a comma list
    of code / display names; unknown names raise ``KeyError`` listing the valid ones."""
    groups = {"paper": list(STATIC_TYPES), "beyond": list(BEYOND_TYPES), "all": [*STATIC_TYPES, *BEYOND_TYPES]}
    out: list[str] = []
    for part in (p.strip() for p in spec.split(",") if p.strip()):
        if part in groups:
            out.extend(groups[part])
            continue
        code = type_info(part).code
        if code not in REGISTRY or not REGISTRY[code].static:
            raise KeyError(f"{part!r} is not a static perturbation type; valid: {', '.join(groups['all'])}")
        out.append(code)
    return list(dict.fromkeys(out))


def perturb_all(
    clean: Sequence[Sample],
    types: Sequence[str],
    seed: int,
    rewriter: Rewriter,
    guard: GuardStats,
    on_step: Callable[[], None] | None = None,
    tokenizer: tuple[str, Callable[[str], int]] | None = None,
    skipped: dict[str, dict[str, list[str]]] | None = None,
) -> dict[str, list[Sample]]:
    """Every static type applied to every clean sample it applies to. ``tokenizer``: a name and a
    token counter for the context-pressure types (default: four characters a token). ``skipped``,
    when given, collects type -> reason -> ids of the samples a type did not apply to."""
    out: dict[str, list[Sample]] = {}
    name, count = tokenizer or ("chars/4", approx_tokens)
    for code in types:
        ptype = REGISTRY[code]
        rows: list[Sample] = []
        for sample in clean:
            rng = seeded_rng(seed, sample.id, code)
            ctx = PerturbContext(rng, rewriter, guard, code, pool=clean, count_tokens=count, counter_name=name)
            new = ptype.apply(sample, ctx)
            if new is not None:
                rows.append(new)
            elif skipped is not None:
                why = ctx.skipped_because or "does not apply"
                skipped.setdefault(code, {}).setdefault(why, []).append(sample.id)
            if on_step is not None:
                on_step()
        out[code] = rows
    return out


def compose_paper(
    clean: Sequence[Sample], built: dict[str, list[Sample]], source_of: dict[str, str], seed: int
) -> Allocation:
    """Keep, of each Dup / Reward type, the records :func:`allocate` picks (Tables 7-14's counts,
    Table 3's per-source totals); ``built`` is filtered in place. Types not built are applied here
    only to learn where they apply, so that the choice does not depend on which types are built."""
    applicable: dict[str, list[str]] = {}
    missing = [t for t in ALLOCATED_TYPES if t not in built]
    probe = perturb_all(clean, missing, seed, OfflineRewriter(), GuardStats()) if missing else {}
    for code in ALLOCATED_TYPES:
        applicable[code] = [s.id.removesuffix(f"__{code}") for s in built.get(code, probe.get(code, []))]
    by_clean = {s.id: source_of.get(s.benchmark, s.benchmark) for s in clean}
    allocation = allocate(applicable, by_clean, seed)
    for code in ALLOCATED_TYPES:
        if code in built:
            built[code] = [s for s in built[code] if s.id.removesuffix(f"__{code}") in allocation.chosen[code]]
    return allocation


def table3(per_type_source: dict[str, dict[str, int]], clean_sources: Sequence[str]) -> dict[str, Any]:
    """Table 3's columns per source for this build: clean samples, records per perturbation type on
    average over the 22 types (the static types built here, and the 6 transition types, which a run
    applies to every clean sample), and the total (clean plus all types), beside the paper's row
    (``PAPER_TABLE3``)."""
    out: dict[str, Any] = {}
    clean = Counter(clean_sources)
    for name in sorted(clean):
        static = sum(by.get(name, 0) for code, by in per_type_source.items() if code in STATIC_TYPES)
        transition = clean[name] * len(TRANSITION_TYPES)
        perturbed = static + transition
        n_types = len(STATIC_TYPES) + len(TRANSITION_TYPES)
        row: dict[str, Any] = {
            "clean": clean[name],
            "static": static,
            "transition": transition,
            "avg_per_type": round(perturbed / n_types, 1),
            "total": clean[name] + perturbed,
        }
        if name in PAPER_TABLE3:
            p_clean, p_avg, p_total = PAPER_TABLE3[name]
            row["paper"] = {"clean": p_clean, "avg_per_type": p_avg, "total": p_total}
        out[name] = row
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
    tokenizer: tuple[str, Callable[[str], int]] | None = None,
    composition: str = "paper",
) -> dict[str, Any]:
    """Build the benchmark into ``out``; return the manifest as written to ``out/manifest.json``
    (:class:`robustcall.core.BenchManifest`, written last).

    ``composition``: ``paper`` (Table 3's clean slice, with its Avg. tools matched where the
    per-category quotas allow, and Tables 7-14's per-type counts: :func:`compose_paper`) or ``all``
    (the balanced clean selection; every static type on every sample it applies to)."""
    rewriter = rewriter or OfflineRewriter()
    unknown = [t for t in types if t not in REGISTRY or not REGISTRY[t].static]
    if unknown:
        valid = ", ".join((*STATIC_TYPES, *BEYOND_TYPES))
        raise InputError(f"not static perturbation types: {unknown}; valid: {valid}")
    if composition not in COMPOSITIONS:
        raise InputError(f"unknown composition {composition!r}; valid: {', '.join(COMPOSITIONS)}")
    counts = {**DEFAULT_COMPOSITION, **(per_source or {})}
    clean: list[Sample] = []
    versions: dict[str, dict[str, str]] = {}
    loader_skipped: dict[str, dict[str, int]] = {}
    source_of: dict[str, str] = {}
    for name in sources:
        result = load_source(name, data_dir)
        n = counts.get(name, len(result.samples))
        if composition == "paper":
            chosen = select_clean(result, n, seed, avg_tools=PAPER_AVG_TOOLS.get(name), eligible=takes_every_type)
        else:
            chosen = select_clean(result, n, seed)
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

    skipped: dict[str, dict[str, list[str]]] = {}
    built = perturb_all(clean, types, seed, rewriter, guard, step, tokenizer, skipped)
    allocation = compose_paper(clean, built, source_of, seed) if composition == "paper" else None
    out.mkdir(parents=True, exist_ok=True)
    files = {"clean": write_jsonl(out / CLEAN_SAMPLES, clean)}
    for code, rows in built.items():
        files[code] = write_jsonl(out / type_file(code), rows)
    per_type_source: dict[str, dict[str, int]] = {}
    for code, rows in [("clean", clean), *built.items()]:
        per_type_source[code] = dict(sorted(Counter(source_of.get(s.benchmark, s.benchmark) for s in rows).items()))
    not_applicable = {code: sum(len(ids) for ids in why.values()) for code, why in skipped.items()}
    paper = paper_type_counts()
    fields: dict[str, Any] = {
        "seed": seed,
        "sources": list(sources),
        "per_source": {s: counts.get(s) for s in sources},
        "rewriter": rewriter.settings(),
        **({"tokenizer": tokenizer[0]} if tokenizer and set(types) & set(BEYOND_TYPES) else {}),
        "types": ["clean", *types],
        "counts": files,
        "counts_by_source": per_type_source,
        "not_applicable": not_applicable,
        "not_applicable_samples": {code: skipped[code] for code in sorted(skipped)},
        "composition_mode": composition,
        "composition": table3(per_type_source, [source_of.get(s.benchmark, s.benchmark) for s in clean]),
        "type_counts": {
            code: {"ours": files[code], **({"paper": paper[code]} if code in paper else {})} for code in files
        }
        | {code: {"ours": len(clean), "paper": paper[code]} for code in TRANSITION_TYPES},
        "avg_tools": {
            name: {"ours": round(mean_tools([s for s in clean if source_of.get(s.benchmark) == name]), 2)}
            | ({"paper": PAPER_AVG_TOOLS[name]} if name in PAPER_AVG_TOOLS else {})
            for name in sources
        },
        "composition_shortfall": allocation.shortfall if allocation else {},
        "source_versions": versions,
        "source_skipped": loader_skipped,
        "guard": guard.as_dict(),
        "sha256": {type_file(code): file_sha256(out / type_file(code)) for code in files},
    }
    manifest = BenchManifest.model_validate(fields)
    path = manifest.write(out)
    written: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return written
