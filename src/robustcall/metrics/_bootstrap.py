"""The percentile bootstrap every interval in robustcall comes from (``score``, ``report`` and the leaderboard).

The paper (§6.1, Table 2 and Tables 7-14 captions): "mean ± 95% percentile-bootstrap half-width on
per-sample binary correctness, B = 10,000". Its half-widths are those of records resampled within
each group on their own: Clean ± 0.065 over 199 samples, Pert. Acc. ± 0.016 over 3,522, a drop
± √(hw_Clean² + hw_type²) (Typo −0.040 ± 0.095 beside ± 0.065 and ± 0.070). That is the default here,
``per-sample``. ``clustered`` resamples source samples instead (a clean sample and every perturbed
sample made from it move together), which pairs drops and Δs with Clean: the right interval for
paired comparisons, an explicit option elsewhere.

A bootstrap replicate of a group's mean redraws its n records with replacement; how often each
distinct score value is drawn is multinomial(n, value frequencies), so the replicates are drawn
as B multinomial count vectors (B × distinct values; two values for binary correctness) rather
than B × n indices: the same distribution, at a cost independent of n.
"""

from __future__ import annotations

import zlib
from typing import Any, Literal

import numpy as np

from robustcall.core import DEFAULTS

Array = np.ndarray[Any, Any]

Resampling = Literal["per-sample", "clustered"]
"""``per-sample``: records resampled within each group (the paper's intervals); ``clustered``:
source samples resampled, every statistic of one replicate from the same draw (paired)."""
RESAMPLINGS: tuple[Resampling, ...] = ("per-sample", "clustered")
DEFAULT_RESAMPLES = DEFAULTS.bootstrap_resamples
"""B, as in the paper (``robustcall.core.DEFAULTS``)."""


def group_rng(seed: int, group: str) -> np.random.Generator:
    """The random stream of one group: fixed by the seed and the group's name only, so a group's
    interval does not change when other groups are added or removed (``score`` of a subset and
    ``report`` of the whole run agree)."""
    return np.random.default_rng([seed, zlib.crc32(group.encode("utf-8"))])


def sum_replicates(scores: Array, resamples: int, rng: np.random.Generator) -> Array:
    """``resamples`` bootstrap replicates of the sum of ``scores`` (empty: NaN)."""
    n = int(scores.shape[0])
    if n == 0:
        return np.full(resamples, np.nan)
    values, counts = np.unique(scores, return_counts=True)
    draws = rng.multinomial(n, counts / n, size=resamples)
    out: Array = draws @ values.astype(float)
    return out


def half_width(replicates: Array) -> float | None:
    """Half the distance between the 2.5th and 97.5th percentiles of the finite replicates."""
    finite = replicates[np.isfinite(replicates)]
    if finite.size < 2:
        return None
    lo, hi = np.percentile(finite, [2.5, 97.5])
    return float((hi - lo) / 2)


def bootstrap_halfwidth(
    scores: Array, resamples: int = DEFAULT_RESAMPLES, *, seed: int = 0, group: str = ""
) -> float | None:
    """Half-width of the 95% percentile-bootstrap interval of the mean of ``scores`` (per-sample)."""
    n = int(scores.shape[0])
    if n == 0 or resamples <= 0:
        return None
    return half_width(sum_replicates(scores, resamples, group_rng(seed, group)) / n)


def row_sum_replicates(rows: Array, resamples: int, rng: np.random.Generator, *, block: int = 1000) -> Array:
    """``resamples`` bootstrap replicates of the column sums of ``rows`` (n units × k columns), the
    units redrawn with replacement: ``sum_replicates`` for a unit that carries several numbers
    (a pair of records, both runs' counts of one episode), so the columns of one unit move together
    (a paired bootstrap). Drawn as multinomial counts over the distinct rows, as above."""
    n, k = rows.shape
    if n == 0:
        return np.full((resamples, k), np.nan)
    values, counts = np.unique(rows, axis=0, return_counts=True)
    out: Array = np.empty((resamples, k))
    for lo in range(0, resamples, block):  # bounds memory when the rows are many and distinct
        b = min(block, resamples - lo)
        out[lo : lo + b] = rng.multinomial(n, counts / n, size=b) @ values.astype(float)
    return out
