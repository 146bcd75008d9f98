"""Seeded, stratified choice of the clean baseline from a loaded source."""

from __future__ import annotations

from collections import defaultdict

from robustcall.core import Sample, seeded_rng
from robustcall.sources._types import LoadResult


def select_clean(result: LoadResult, n: int, seed: int) -> list[Sample]:
    """``n`` samples spread evenly over the source's categories, chosen with ``seed``; sorted by id.

    Allocation is balanced, not proportional: every category gets ``n // k`` (capped at its size,
    the rest passed on to categories that have more), and the last ``n mod k`` go to categories
    drawn with the seed. Small categories (e.g. BFCL's ``live_parallel``) are thus represented rather
    than swamped by large ones (``live_multiple``). Within a category the draw uses a stream keyed
    by (seed, source, category), so a category's picks do not depend on the other categories'
    sizes or order. ``n >= len(samples)`` returns them all.
    """
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    if n >= len(result.samples):
        return sorted(result.samples, key=lambda s: s.id)
    by_category: dict[str, list[Sample]] = defaultdict(list)
    for s in result.samples:
        by_category[s.category].append(s)
    quota = _allocate({c: len(v) for c, v in by_category.items()}, n, seed, result.source)
    chosen: list[Sample] = []
    for category in sorted(by_category):
        pool = sorted(by_category[category], key=lambda s: s.id)
        rng = seeded_rng(seed, "select_clean", result.source, category)
        chosen.extend(rng.sample(pool, quota[category]))
    return sorted(chosen, key=lambda s: s.id)


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
