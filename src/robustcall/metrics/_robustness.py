"""Table 2 statistics of one run, with paired percentile-bootstrap intervals and significance.

Definitions (paper §6.1, Table 2, Figure 2):

- *Clean*: accuracy on the unperturbed samples.
- *Pert. Acc.*: sample-weighted accuracy over every perturbed sample (clean excluded).
- *Δ_X* = Clean − mean over X's perturbation types of their accuracy (the unweighted mean of the
  type accuracies: this reading reproduces Table 2 from Tables 7-8, e.g. ToolRL-DR-Full
  Δ_Obs = 0.643 − mean(0.603, 0.653, 0.643, 0.638) = 0.009).
- *drop* of a type = Clean − its accuracy; *retention* = 1 − mean(Δ_Obs, Δ_Act, Δ_Rew) / Clean.

Uncertainty: one bootstrap over the *source* samples (a clean sample and every perturbed sample made
from it form one row), so that Clean and each perturbation are resampled together and drops and
Δs are paired. Each statistic is computed on every replicate; the 95% half-width is half the
distance between the 2.5th and 97.5th percentiles. Infrastructure errors are missing values,
never wrong answers. Significance against a baseline resamples the shared source rows of both
runs with the same weights; the two-sided p-value is ``2 · min(P(d ≤ 0), P(d ≥ 0))`` over the
replicates d of (run − baseline), capped at 1; markers follow Table 2 (* p < 0.05, ** p < 0.01,
*** p < 0.001).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from pydantic import BaseModel

from robustcall.core import TAXONOMY, Verdict

DELTA_COMPONENTS = ("observation", "action", "reward", "transition")
RETENTION_COMPONENTS = ("observation", "action", "reward")
BLOCK = 1000
"""Replicates per vectorised block (bounds memory: BLOCK × sources weights at a time)."""

Array = np.ndarray[Any, Any]


def source_id(v: Verdict) -> str:
    """The clean sample a verdict's sample was made from (ids are ``<clean>__<type code>``)."""
    suffix = f"__{v.type}"
    return v.id[: -len(suffix)] if v.type != "clean" and v.id.endswith(suffix) else v.id


@dataclass(frozen=True)
class ScoreMatrix:
    """Per-sample scores, one row per source sample and one column per type (NaN: absent or infra)."""

    sources: list[str]
    columns: list[str]
    values: Array
    infra_errors: int

    @classmethod
    def from_verdicts(cls, verdicts: Iterable[Verdict]) -> ScoreMatrix:
        vs = list(verdicts)
        order = {code: i for i, code in enumerate(("clean", *(t.code for t in TAXONOMY)))}
        columns = sorted({v.type for v in vs}, key=lambda t: (order.get(t, len(order)), t))
        sources = sorted({source_id(v) for v in vs})
        row = {s: i for i, s in enumerate(sources)}
        col = {c: j for j, c in enumerate(columns)}
        values = np.full((len(sources), len(columns)), np.nan)
        infra = 0
        for v in vs:
            if v.correct is None:
                infra += 1
                continue
            values[row[source_id(v)], col[v.type]] = v.score
        return cls(sources, columns, values, infra)

    def restrict(self, sources: Sequence[str], columns: Sequence[str]) -> ScoreMatrix:
        """The sub-matrix on these rows and columns (NaN where this run lacks them)."""
        row = {s: i for i, s in enumerate(self.sources)}
        col = {c: j for j, c in enumerate(self.columns)}
        out = np.full((len(sources), len(columns)), np.nan)
        for j, c in enumerate(columns):
            if c in col:
                rows = [row.get(s, -1) for s in sources]
                have = np.array([r >= 0 for r in rows])
                out[have, j] = self.values[np.array(rows)[have], col[c]]
        return ScoreMatrix(list(sources), list(columns), out, self.infra_errors)


class Estimate(BaseModel):
    """A statistic and the half-width of its 95% percentile-bootstrap interval."""

    value: float | None
    ci95: float | None = None


class Robustness(BaseModel):
    """One run's Table 2 row and Tables 7-14 cells."""

    clean: Estimate
    pert_acc: Estimate
    delta: dict[str, Estimate]
    """Component -> Δ_X (Clean − mean accuracy of its types)."""
    retention: Estimate
    accuracy: dict[str, Estimate]
    """Type code (and ``clean``) -> accuracy."""
    drop: dict[str, Estimate]
    """Type code -> Clean − accuracy (paired)."""
    n_by_type: dict[str, int]
    sources: int
    infra_errors: int
    resamples: int
    seed: int


class Significance(BaseModel):
    """Paired-bootstrap comparison of one statistic with a baseline's."""

    difference: float | None
    p_value: float | None
    marker: str


def _components(columns: Sequence[str]) -> dict[str, list[int]]:
    comp = {t.code: t.component for t in TAXONOMY}
    out: dict[str, list[int]] = {c: [] for c in DELTA_COMPONENTS}
    for j, c in enumerate(columns):
        if c in comp:
            out[comp[c]].append(j)
    return out


def _statistics(sums: Array, counts: Array, columns: Sequence[str]) -> dict[str, Array]:
    """Every statistic as an array over the leading (replicate) axis, from column sums and counts."""
    with np.errstate(invalid="ignore", divide="ignore"):
        acc = sums / counts
        out: dict[str, Array] = {f"acc:{c}": acc[:, j] for j, c in enumerate(columns)}
        nan = np.full(acc.shape[0], np.nan)
        clean = acc[:, columns.index("clean")] if "clean" in columns else nan
        out["clean"] = clean
        pert = [j for j, c in enumerate(columns) if c != "clean"]
        out["pert_acc"] = sums[:, pert].sum(axis=1) / counts[:, pert].sum(axis=1) if pert else nan
        for j, c in enumerate(columns):
            if c != "clean":
                out[f"drop:{c}"] = clean - acc[:, j]
        for comp, cols in _components(columns).items():
            out[f"delta:{comp}"] = clean - acc[:, cols].mean(axis=1) if cols else nan
        deltas = np.stack([out[f"delta:{c}"] for c in RETENTION_COMPONENTS], axis=1)
        out["retention"] = 1.0 - deltas.mean(axis=1) / clean
    return out


def _replicates(values: Array, resamples: int, seed: int) -> tuple[Array, Array]:
    """Column sums and counts of every bootstrap replicate (rows resampled with replacement)."""
    n, k = values.shape
    present = ~np.isnan(values)
    # one matrix product per block gives sums and counts together; weights and scores are small
    # integers or sample scores, exact enough in float64 accumulation
    stacked = np.concatenate([np.where(present, values, 0.0), present], axis=1)
    rng = np.random.default_rng(seed)
    out = np.empty((resamples, 2 * k))
    for lo in range(0, resamples, BLOCK):
        b = min(BLOCK, resamples - lo)
        idx = rng.integers(0, n, size=(b, n), dtype=np.int64)
        # how often each row was drawn in each replicate
        weights = np.bincount((idx + n * np.arange(b)[:, None]).ravel(), minlength=b * n).reshape(b, n)
        out[lo : lo + b] = weights @ stacked
    return out[:, :k], out[:, k:]


def _half_width(reps: Array) -> float | None:
    finite = reps[np.isfinite(reps)]
    if finite.size < 2:
        return None
    lo, hi = np.percentile(finite, [2.5, 97.5])
    return float((hi - lo) / 2)


def _value(x: Array) -> float | None:
    v = float(x[0])
    return v if np.isfinite(v) else None


def _point(matrix: ScoreMatrix) -> dict[str, Array]:
    present = ~np.isnan(matrix.values)
    sums = np.where(present, matrix.values, 0.0).sum(axis=0, keepdims=True)
    return _statistics(sums, present.sum(axis=0, keepdims=True).astype(float), matrix.columns)


def robustness(verdicts: Iterable[Verdict], *, resamples: int = 10_000, seed: int = 0) -> Robustness:
    """Table 2 / Tables 7-14 statistics of one run's verdicts."""
    m = ScoreMatrix.from_verdicts(verdicts)
    point = _point(m)
    reps = _statistics(*_replicates(m.values, resamples, seed), m.columns) if resamples > 0 and m.sources else {}

    def est(name: str) -> Estimate:
        value = _value(point[name])
        return Estimate(value=value, ci95=_half_width(reps[name]) if reps and value is not None else None)

    perturbed = [c for c in m.columns if c != "clean"]
    return Robustness(
        clean=est("clean"),
        pert_acc=est("pert_acc"),
        delta={c: est(f"delta:{c}") for c in DELTA_COMPONENTS},
        retention=est("retention"),
        accuracy={c: est(f"acc:{c}") for c in m.columns},
        drop={c: est(f"drop:{c}") for c in perturbed},
        n_by_type={c: int((~np.isnan(m.values[:, j])).sum()) for j, c in enumerate(m.columns)},
        sources=len(m.sources),
        infra_errors=m.infra_errors,
        resamples=resamples,
        seed=seed,
    )


def marker(p: float | None) -> str:
    """Table 2's superscript for a p-value."""
    if p is None:
        return ""
    return "***" if p < 0.001 else "**" if p < 0.01 else "*" if p < 0.05 else ""


def paired_significance(
    run: Iterable[Verdict], baseline: Iterable[Verdict], *, resamples: int = 10_000, seed: int = 0
) -> dict[str, Significance]:
    """Statistic name (``clean``, ``pert_acc``, ``delta:<component>``, ``retention``, ``acc:<type>``,
    ``drop:<type>``) -> paired-bootstrap comparison of ``run`` against ``baseline`` on their shared
    source samples."""
    a, b = ScoreMatrix.from_verdicts(run), ScoreMatrix.from_verdicts(baseline)
    sources = sorted(set(a.sources) & set(b.sources))
    columns = [c for c in a.columns if c in set(b.columns)]
    if not sources or not columns:
        return {}
    a, b = a.restrict(sources, columns), b.restrict(sources, columns)
    stacked = np.concatenate([a.values, b.values], axis=1)  # one set of weights for both runs
    sums, counts = _replicates(stacked, resamples, seed)
    k = len(columns)
    rep_a = _statistics(sums[:, :k], counts[:, :k], columns)
    rep_b = _statistics(sums[:, k:], counts[:, k:], columns)
    point_a, point_b = _point(a), _point(b)
    out: dict[str, Significance] = {}
    for name in rep_a:
        diff = _value(point_a[name] - point_b[name])
        d = rep_a[name] - rep_b[name]
        d = d[np.isfinite(d)]
        if diff is None or d.size == 0:
            out[name] = Significance(difference=diff, p_value=None, marker="")
            continue
        p = min(1.0, 2.0 * min(float((d <= 0).mean()), float((d >= 0).mean())))
        out[name] = Significance(difference=diff, p_value=p, marker=marker(p))
    return out


def error_mode_shares(verdicts: Iterable[Verdict]) -> dict[str, dict[str, float]]:
    """Per component: Appendix L error mode -> its share of the component's incorrect records."""
    counts: dict[str, dict[str, int]] = {}
    for v in verdicts:
        if v.correct is False:
            modes = counts.setdefault(v.component, {})
            mode = v.error_mode or "other"
            modes[mode] = modes.get(mode, 0) + 1
    return {
        comp: {mode: n / sum(modes.values()) for mode, n in sorted(modes.items())}
        for comp, modes in sorted(counts.items())
    }
