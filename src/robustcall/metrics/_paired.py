"""Paired comparison of one statistic between two runs of the same work (``robustcall compare``).

A statistic is a ratio of sums over *units* (a record, an episode, a task): Σ num / Σ den, for
the baseline and for the candidate, each unit carrying both runs' numbers. An accuracy has
num = correct and den = 1; a recovery rate has num = recovered faults and den = faults of one
episode. Δ = candidate − baseline.

- **Interval**: 95% percentile interval of Δ over B paired bootstrap replicates (B = 10,000 by
  default, ``_bootstrap.row_sum_replicates``): the units are redrawn with replacement and each
  carries both runs' numbers, so the two sides move together. Per-sample as everywhere in
  ``metrics``: every group (one row of the comparison) is resampled on its own, with its own stream
  fixed by the seed and the row's key (``group_rng``).
- **Test**: the exact two-sided sign test on the units whose per-unit values differ (wins: the
  candidate's is better, losses: worse; ties dropped). On binary records this *is* the exact McNemar
  test on the discordant pairs: p = min(1, 2 · P(X ≤ min(wins, losses))), X ~ Binomial(wins + losses, ½).
  With m discordant units it cannot fall below 2^(1 − m) (``exact_floor``): four samples never
  reach p < 0.05.
- **Holm**: step-down adjustment within a family of rows (``holm``); a regression is a row whose Δ
  goes the worse way with Holm-adjusted p < α.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal

import numpy as np
from pydantic import BaseModel

from robustcall.metrics._bootstrap import DEFAULT_RESAMPLES, Array, group_rng, row_sum_replicates

Better = Literal["higher", "lower"]
Gate = Literal["drop", "type"]
"""Which flag gates a row: ``--fail-on-drop`` (components, the overall figure, headline metrics)
or ``--fail-on-type`` (perturbation types, failure classes, error types)."""
Transform = Literal["identity", "exp"]
"""How the ratio of sums becomes the statistic: as it is, or exp of it (IR from a mean log ratio)."""


def sign_test(wins: int, losses: int) -> float:
    """Exact two-sided sign test (exact McNemar on binary pairs): min(1, 2 · P(X ≤ min(wins, losses)))
    for X ~ Binomial(wins + losses, ½); 1.0 when no unit differs."""
    n = wins + losses
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, k) for k in range(min(wins, losses) + 1))
    return min(1.0, float(2 * tail / 2**n))  # exact integers; one rounding in the division


def holm(p_values: Sequence[float | None]) -> list[float | None]:
    """Holm's step-down adjusted p-values (monotone, capped at 1), in the input's order; ``None``
    (no test) stays ``None`` and does not count towards the family's size."""
    tested = sorted((p, i) for i, p in enumerate(p_values) if p is not None)
    m = len(tested)
    out: list[float | None] = [None] * len(p_values)
    running = 0.0
    for rank, (p, i) in enumerate(tested):
        running = max(running, min(1.0, (m - rank) * p))
        out[i] = running
    return out


class PairedRow(BaseModel):
    """One statistic of two runs side by side, with a paired interval and an exact test."""

    key: str
    """Stable name (``type:CD``, ``component:reward``, ``overall``, ``rr:execution``, ...)."""
    label: str
    """As people read it (the papers' display names)."""
    family: str
    """Rows Holm adjusts together."""
    gate: Gate | None = None
    better: Better = "higher"
    units: int
    """Units both runs have a value for (records, episodes, tasks)."""
    baseline: float | None
    candidate: float | None
    delta: float | None
    """candidate − baseline."""
    ci95: tuple[float, float] | None = None
    """95% percentile paired-bootstrap interval of ``delta``."""
    wins: int = 0
    """Units on which the candidate is better."""
    losses: int = 0
    """Units on which the candidate is worse."""
    p_value: float | None = None
    """Exact two-sided sign test (exact McNemar on binary units); ``None``: not tested."""
    p_holm: float | None = None
    """``p_value`` after Holm's adjustment within ``family``."""
    noise_floor: float | None = None
    """Runs of several trials: how far Δ moves between reruns by chance alone (1.96 × its rerun
    standard deviation, ``_trials``); ``None`` for one-trial runs."""
    can_worsen: int = 0
    """Units on which the candidate could be worse than the baseline (a baseline unit not already
    at its worst): the most losses the sign test could count."""
    baseline_den: float = 0.0
    """Σ den of the baseline over the units (records × trials for an accuracy): one unit's smallest
    loss moves the figure by 1 / this."""

    def within_noise(self) -> bool:
        """Δ does not exceed its noise floor (runs of several trials only)."""
        return self.delta is not None and self.noise_floor is not None and abs(self.delta) <= self.noise_floor

    def worse_by(self) -> float | None:
        """How far the candidate is worse (positive) or better (negative) in this row's direction."""
        if self.delta is None:
            return None
        return -self.delta if self.better == "higher" else self.delta

    def status(self, alpha: float) -> Literal["regression", "improvement", "unchanged"]:
        worse = self.worse_by()
        if worse is None or worse == 0 or self.p_holm is None or self.p_holm >= alpha:
            return "unchanged"
        return "regression" if worse > 0 else "improvement"


def _ratio(num: Array, den: Array, transform: Transform) -> Array:
    with np.errstate(invalid="ignore", divide="ignore"):
        r: Array = num / den
    return np.exp(r) if transform == "exp" else r


def _finite(x: float) -> float | None:
    return x if math.isfinite(x) else None


def paired_row(
    key: str,
    label: str,
    units: Array,
    *,
    family: str,
    gate: Gate | None = None,
    better: Better = "higher",
    transform: Transform = "identity",
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
    tested: bool = True,
) -> PairedRow:
    """The row of ``units`` (n × 4: baseline num, baseline den, candidate num, candidate den).

    Only units where both runs have den > 0 count towards ``units``, wins and losses; every unit
    counts in the sums (a unit without faults adds nothing to a recovery rate)."""
    units = np.asarray(units, dtype=float).reshape(-1, 4)
    sums = units.sum(axis=0)
    base = _finite(float(_ratio(sums[0:1], sums[1:2], transform)[0]))
    cand = _finite(float(_ratio(sums[2:3], sums[3:4], transform)[0]))
    both = (units[:, 1] > 0) & (units[:, 3] > 0)
    ua = units[both, 0] / units[both, 1]
    ub = units[both, 2] / units[both, 3]
    up, down = int((ub > ua).sum()), int((ub < ua).sum())
    wins, losses = (up, down) if better == "higher" else (down, up)
    can_worsen = int((units[both, 0] > 0).sum() if better == "higher" else (units[both, 0] < units[both, 1]).sum())
    delta = cand - base if base is not None and cand is not None else None
    ci = None
    if delta is not None and resamples > 0:
        reps = row_sum_replicates(units, resamples, group_rng(seed, key))
        d = _ratio(reps[:, 2], reps[:, 3], transform) - _ratio(reps[:, 0], reps[:, 1], transform)
        d = d[np.isfinite(d)]
        if d.size >= 2:
            lo, hi = np.percentile(d, [2.5, 97.5])
            ci = (float(lo), float(hi))
    return PairedRow(
        key=key,
        label=label,
        family=family,
        gate=gate,
        better=better,
        units=int(both.sum()),
        baseline=base,
        candidate=cand,
        delta=delta,
        ci95=ci,
        wins=wins,
        losses=losses,
        p_value=sign_test(wins, losses) if tested and delta is not None else None,
        can_worsen=can_worsen if transform == "identity" else 0,
        baseline_den=float(units[both, 1].sum()),
    )


def losses_needed(alpha: float) -> int:
    """The fewest discordant units, all losses, whose exact sign test p = 2^(1 − L) falls below ``alpha``."""
    if alpha <= 0:
        raise ValueError(f"alpha must be positive, got {alpha}")
    if alpha > 1:
        return 1
    return max(1, math.floor(1 - math.log2(alpha)) + 1)


def family_sizes(rows: Sequence[PairedRow]) -> dict[str, int]:
    """Family -> how many of its rows are tested (Holm's m)."""
    out: dict[str, int] = {}
    for r in rows:
        if r.p_value is not None:
            out[r.family] = out.get(r.family, 0) + 1
    return out


def smallest_flaggable_drop(row: PairedRow, alpha: float, family_size: int) -> float | None:
    """The smallest drop of ``row`` that its units could flag at ``alpha`` after Holm over
    ``family_size`` rows, given the baseline: every discordant unit a loss, each by the least it can
    (one right answer fewer), on ``losses_needed(alpha / m)`` units. ``None``: the figure cannot reach
    significance at this n (fewer units could get worse than that)."""
    need = losses_needed(alpha / max(1, family_size))
    if row.can_worsen < need or row.baseline_den <= 0:
        return None
    return need / row.baseline_den


def adjust(rows: Sequence[PairedRow]) -> list[PairedRow]:
    """The rows with ``p_holm`` set, Holm applied within each family."""
    out = list(rows)
    for family in dict.fromkeys(r.family for r in rows):
        idx = [i for i, r in enumerate(rows) if r.family == family]
        for i, p in zip(idx, holm([rows[i].p_value for i in idx]), strict=True):
            out[i] = rows[i].model_copy(update={"p_holm": p})
    return out
