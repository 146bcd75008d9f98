"""ToolRL-DR data (§5): rlla rows perturbed uniformly across the 16 static types.

- **DR-Full**: every row replaced by a perturbed counterpart; rows no type applies to are dropped.
- **DR-Mixed**: a seeded ``clean_fraction`` of the rows stays clean, the rest is perturbed.

Types are assigned so that their counts are uniform within one: rows are visited in a seeded
order, rows that only observation types can apply to (no golden call, or the golden tool is not
listed) first; each row takes the least-used type (ties in a per-row seeded order) that applies to
it. A (row, type) pair is perturbed exactly as ``robustcall build`` does: ``REGISTRY[type].apply``
with the random stream ``seeded_rng(seed, sample id, type)``, so the same seed gives the same edits
as the benchmark. Transition types are never used (§5.1): they are runtime tool responses.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from robustcall.core import STATIC_TYPES, Sample, seeded_rng
from robustcall.perturb import REGISTRY, GuardStats, OfflineRewriter, PerturbContext, Rewriter
from robustcall.train._rlla import RllaItem, render_row


@dataclass
class DrResult:
    """The rows of one output file and what went into them."""

    rows: list[dict[str, Any]] = field(default_factory=list)
    type_counts: dict[str, int] = field(default_factory=dict)
    dropped: list[int] = field(default_factory=list)
    """Row indices (in the input) that no static type applies to (DR-Full drops them)."""
    fallbacks: int = 0
    """Rows whose first-ranked type did not apply, so that they took the next one."""


def _has_gt_tool(sample: Sample) -> bool:
    names = {t.name for t in sample.tools}
    return bool(sample.golden_answers) and sample.golden_answers[0].name in names


def _perturb(item: RllaItem, code: str, seed: int, rewriter: Rewriter, guard: GuardStats) -> Sample | None:
    ctx = PerturbContext(rng=seeded_rng(seed, item.sample.id, code), rewriter=rewriter, guard=guard, code=code)
    return REGISTRY[code].apply(item.sample, ctx)


def assign_types(
    items: Sequence[RllaItem],
    seed: int,
    label: str,
    rewriter: Rewriter,
    guard: GuardStats,
    types: Sequence[str] = STATIC_TYPES,
) -> tuple[dict[int, Sample], list[int], int]:
    """Position in ``items`` -> perturbed sample (balanced assignment), dropped positions, fallbacks."""
    bad = [t for t in types if t not in REGISTRY or not REGISTRY[t].static]
    if bad:
        raise ValueError(f"not static perturbation types: {bad}; valid: {', '.join(STATIC_TYPES)}")
    order = list(range(len(items)))
    seeded_rng(seed, "dr-order", label).shuffle(order)
    order.sort(key=lambda i: _has_gt_tool(items[i].sample))  # stable: constrained rows first
    counts: Counter[str] = Counter({t: 0 for t in types})
    out: dict[int, Sample] = {}
    dropped: list[int] = []
    fallbacks = 0
    for pos in order:
        item = items[pos]
        tiebreak = list(types)
        seeded_rng(seed, "dr-type", label, item.sample.id).shuffle(tiebreak)
        ranked = sorted(tiebreak, key=lambda t: counts[t])
        for rank, code in enumerate(ranked):
            new = _perturb(item, code, seed, rewriter, guard)
            if new is not None:
                counts[code] += 1
                out[pos] = new
                fallbacks += 1 if rank else 0
                break
        else:
            dropped.append(pos)
    return out, dropped, fallbacks


def dr_full(
    items: Sequence[RllaItem], seed: int, rewriter: Rewriter | None = None, guard: GuardStats | None = None
) -> DrResult:
    """Every row perturbed (input order kept)."""
    guard = guard if guard is not None else GuardStats()
    chosen, dropped, fallbacks = assign_types(items, seed, "full", rewriter or OfflineRewriter(), guard)
    rows = [render_row(items[i], chosen[i]) for i in range(len(items)) if i in chosen]
    counts = Counter(s.perturbation.type for s in chosen.values())
    return DrResult(rows, {t: counts[t] for t in STATIC_TYPES}, sorted(dropped), fallbacks)


def dr_mixed(
    items: Sequence[RllaItem],
    seed: int,
    clean_fraction: float = 0.5,
    rewriter: Rewriter | None = None,
    guard: GuardStats | None = None,
) -> DrResult:
    """A seeded ``clean_fraction`` of rows kept clean, the rest perturbed (rows no type applies to
    stay clean); input order kept."""
    if not 0.0 <= clean_fraction <= 1.0:
        raise ValueError(f"clean_fraction must be in [0, 1], got {clean_fraction}")
    guard = guard if guard is not None else GuardStats()
    order = list(range(len(items)))
    seeded_rng(seed, "dr-mixed-split").shuffle(order)
    n_clean = round(len(items) * clean_fraction)
    perturbed_pos = sorted(order[n_clean:])
    chosen, dropped, fallbacks = assign_types(
        [items[i] for i in perturbed_pos], seed, "mixed", rewriter or OfflineRewriter(), guard
    )
    by_pos = {perturbed_pos[k]: s for k, s in chosen.items()}
    rows = [render_row(item, by_pos.get(i, item.sample)) for i, item in enumerate(items)]
    counts = Counter(s.perturbation.type for s in by_pos.values())
    type_counts = {"clean": len(items) - len(by_pos), **{t: counts[t] for t in STATIC_TYPES}}
    return DrResult(rows, type_counts, sorted(perturbed_pos[k] for k in dropped), fallbacks)


def uniform_within_one(type_counts: dict[str, int]) -> bool:
    """Whether the perturbation type counts (``clean`` aside) differ by at most one."""
    values = [n for t, n in type_counts.items() if t != "clean"]
    return not values or max(values) - min(values) <= 1
