"""Seeded, stratified choice of the clean baseline from a loaded source."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable

from robustcall.core import Sample, seeded_rng
from robustcall.sources._types import LoadResult

AVG_TOOLS_TOLERANCE = 0.05
"""How close (relative) a selection's mean tool count must come to its target (Table 3's Avg. tools)."""
AVG_TOOLS_DRAWS = 1000
"""Seeded draws tried per source before settling for the closest one."""


def select_clean(
    result: LoadResult,
    n: int,
    seed: int,
    *,
    avg_tools: float | None = None,
    eligible: Callable[[Sample], bool] | None = None,
) -> list[Sample]:
    """``n`` samples spread evenly over the source's categories, chosen with ``seed``; sorted by id.

    Allocation is balanced, not proportional: every category gets ``n // k`` (capped at its size,
    the rest passed on to categories that have more), and the last ``n mod k`` go to categories
    drawn with the seed. Small categories (e.g. BFCL's ``live_parallel``) are thus represented rather
    than swamped by large ones (``live_multiple``). Within a category the draw uses a stream keyed
    by (seed, source, category), so a category's picks do not depend on the other categories'
    sizes or order. ``n >= len(samples)`` returns them all.

    ``avg_tools`` (Table 3's *Avg. tools*, the mean candidate-tool count of the clean slice): the
    per-category quotas stay as above, and the draws are repeated, draw ``k`` keyed by (seed,
    source, category, ``draw k``), until the selection's mean tool count is within 5% of it; after
    ``AVG_TOOLS_DRAWS`` draws without one, the closest draw (the earliest among equals) is kept.
    Draw 0 is the plain selection, so a source that already matches is unchanged.

    ``eligible``: only samples it accepts are drawn (the ``paper`` build: samples every type the
    paper gives to all 199 can edit).
    """
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    samples = [s for s in result.samples if eligible is None or eligible(s)]
    if n >= len(samples):
        return sorted(samples, key=lambda s: s.id)
    by_category: dict[str, list[Sample]] = defaultdict(list)
    for s in samples:
        by_category[s.category].append(s)
    quota = _allocate({c: len(v) for c, v in by_category.items()}, n, seed, result.source)
    pools = {c: sorted(v, key=lambda s: s.id) for c, v in by_category.items()}

    def draw(k: int) -> list[Sample]:
        chosen: list[Sample] = []
        for category in sorted(pools):
            keys = (result.source, category, *((f"draw {k}",) if k else ()))
            chosen.extend(seeded_rng(seed, "select_clean", *keys).sample(pools[category], quota[category]))
        return sorted(chosen, key=lambda s: s.id)

    best = draw(0)
    if avg_tools is None or n == 0:
        return best
    best_gap = abs(mean_tools(best) - avg_tools)
    for k in range(1, AVG_TOOLS_DRAWS):
        if best_gap <= AVG_TOOLS_TOLERANCE * avg_tools:
            break
        picked = draw(k)
        gap = abs(mean_tools(picked) - avg_tools)
        if gap < best_gap:
            best, best_gap = picked, gap
    return best


def mean_tools(samples: list[Sample]) -> float:
    """Mean number of candidate tools per sample (Table 3's *Avg. tools*); 0 for none."""
    return sum(len(s.tools) for s in samples) / len(samples) if samples else 0.0


def _allocate(sizes: dict[str, int], n: int, seed: int, source: str) -> dict[str, int]:
    """Balanced quotas summing to ``n`` (``n`` below the total size)."""
    quota = dict.fromkeys(sizes, 0)
    left = n
    open_ = sorted(sizes)
    while left > 0 and open_:
        share = left // len(open_)
        if share == 0:
            rng = seeded_rng(seed, "select_clean", source, "remainder")
            for c in rng.sample(open_, left):
                quota[c] += 1
            break
        for c in open_:
            take = min(share, sizes[c] - quota[c])
            quota[c] += take
            left -= take
        open_ = [c for c in open_ if quota[c] < sizes[c]]
    return quota
