"""Table 2 statistics of one run, with percentile-bootstrap intervals and paired significance.

Definitions (paper §6.1, Table 2, Figure 2):

- *Clean*: accuracy on the unperturbed samples.
- *Pert. Acc.*: sample-weighted accuracy over every perturbed sample (clean excluded).
- *Δ_X* = Clean − accuracy over the pooled records of X's perturbation types
  (``component_delta``). Table 2's caption reads "Clean − mean(Acc on X-perturbations)"; recomputed
  from the paper's own per-type tables (Appendix J, Tables 7-14, with the per-type record counts
  those accuracies imply), pooling the records reproduces all 84 printed Δs of Table 2 to the
  digit, the unweighted mean of the type accuracies 37 of them (o4-mini Δ_Rew: 0.326 printed,
  pooled 0.326, mean 0.289). ``tests/metrics/test_table2_delta.py`` pins the recomputation.
- *drop* of a type = Clean − its accuracy; *retention* = 1 − mean(Δ_Obs, Δ_Act, Δ_Rew) / Clean.

Uncertainty (``_bootstrap``): 95% percentile bootstrap, B = 10,000, two ways.

- ``per-sample`` (default, the paper's): every group of records (Clean, each type, each
  component's pooled records, all perturbed records) is resampled on its own, with its own seeded
  stream; a drop or Δ replicate is the difference of independent Clean and group replicates.
- ``clustered``: the *source* samples are resampled (a clean sample and every perturbed sample made
  from it form one row), so Clean and each perturbation move together and drops and Δs are paired.

Infrastructure errors are missing values, never wrong answers. Significance against a baseline is
always clustered: it resamples the shared source rows of both runs with the same weights; the
two-sided p-value is ``2 · min(P(d ≤ 0), P(d ≥ 0))`` over the replicates d of (run − baseline),
capped at 1; markers follow Table 2 (* p < 0.05, ** p < 0.01, *** p < 0.001). A marker also needs
the level to be reachable by an exact paired test: with m source samples on which the two runs differ
(for that statistic), no sign-flip (exact sign / McNemar) test can give p below 2^(1 − m), whereas a
bootstrap over 4 such samples gives p = 0; so the marker is that of max(p, 2^(1 − m)): * needs
m ≥ 6, ** m ≥ 8, *** m ≥ 11.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike
from pydantic import BaseModel

from robustcall.core import TAXONOMY, Verdict
from robustcall.metrics._bootstrap import (
    DEFAULT_RESAMPLES,
    Array,
    Resampling,
    group_rng,
    half_width,
    sum_replicates,
)

DELTA_COMPONENTS = ("observation", "action", "reward", "transition")
RETENTION_COMPONENTS = ("observation", "action", "reward")
BLOCK = 1000
"""Replicates per vectorised block (bounds memory: BLOCK × sources weights at a time)."""


def source_id(v: Verdict) -> str:
    """The clean sample a verdict's sample was made from (ids are ``<clean>__<type code>``)."""
    suffix = f"__{v.type}"
    return v.id[: -len(suffix)] if v.type != "clean" and v.id.endswith(suffix) else v.id


def component_delta(clean: ArrayLike, correct: ArrayLike, n: ArrayLike) -> Array:
    """Δ_X as Table 2 computes it: Clean − (score sum over X's records) / (number of X's records).

    ``correct`` and ``n`` give, along their last axis, the score sum and record count of each of X's
    types (or a single entry: the component's pooled records); leading axes are replicates. The
    one definition ``score``, ``report`` and the leaderboard all use. NaN where X has no records.
    """
    sums = np.asarray(correct, dtype=float)
    counts = np.asarray(n, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        out: Array = np.asarray(clean, dtype=float) - sums.sum(axis=-1) / counts.sum(axis=-1)
    return out


@dataclass(frozen=True)
class ScoreMatrix:
    """Per-sample binary correctness (1 / 0), one row per source sample and one column per type (NaN:
    absent or infra). Binary as the paper's captions say ("per-sample binary correctness"): a
    verdict's partial credit (``score``, ToolEyes steps) stays in ``scores.jsonl``, not in accuracy."""

    sources: list[str]
    columns: list[str]
    values: Array
    infra_errors: int
    components: dict[str, str] = field(default_factory=dict)
    """Column -> its POMDP component (from the verdicts; the taxonomy's where they say nothing)."""

    @classmethod
    def from_verdicts(cls, verdicts: Iterable[Verdict]) -> ScoreMatrix:
        vs = list(verdicts)
        order = {code: i for i, code in enumerate(("clean", *(t.code for t in TAXONOMY)))}
        columns = sorted({v.type for v in vs}, key=lambda t: (order.get(t, len(order)), t))
        sources = sorted({source_id(v) for v in vs})
        row = {s: i for i, s in enumerate(sources)}
        col = {c: j for j, c in enumerate(columns)}
        right = np.zeros((len(sources), len(columns)))
        asked = np.zeros((len(sources), len(columns)))
        components = {t.code: str(t.component) for t in TAXONOMY if t.code in col}
        infra = 0
        for v in vs:
            components.setdefault(v.type, str(v.component))
            if v.correct is None:
                infra += 1
                continue
            i, j = row[source_id(v)], col[v.type]
            right[i, j] += 1.0 if v.correct else 0.0
            asked[i, j] += 1.0
        # several trials of a record: its cell is the mean over them (one trial: 1 / 0 as before)
        with np.errstate(invalid="ignore"):
            values = np.where(asked > 0, right / np.where(asked > 0, asked, 1.0), np.nan)
        return cls(sources, columns, values, infra, components)

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
        comps = {c: self.components[c] for c in columns if c in self.components}
        return ScoreMatrix(list(sources), list(columns), out, self.infra_errors, comps)

    def groups(self) -> dict[str, list[int]]:
        """Every group a statistic is taken over -> its columns: ``acc:<type>``, ``component:<X>``
        (X's types pooled) and ``pert_acc`` (every perturbed type pooled)."""
        out = {f"acc:{c}": [j] for j, c in enumerate(self.columns)}
        for comp in DELTA_COMPONENTS:
            out[f"component:{comp}"] = [j for j, c in enumerate(self.columns) if self.components.get(c) == comp]
        out["pert_acc"] = [j for j, c in enumerate(self.columns) if c != "clean"]
        return out


class Estimate(BaseModel):
    """A statistic and the half-width of its 95% percentile-bootstrap interval."""

    value: float | None
    ci95: float | None = None


class Robustness(BaseModel):
    """One run's Table 2 row and Tables 7-14 cells."""

    clean: Estimate
    pert_acc: Estimate
    delta: dict[str, Estimate]
    """Component -> Δ_X (Clean − accuracy over X's pooled records)."""
    retention: Estimate
    accuracy: dict[str, Estimate]
    """Type code (and ``clean``) -> accuracy."""
    component_accuracy: dict[str, Estimate] = {}
    """Component -> accuracy over its pooled records."""
    drop: dict[str, Estimate]
    """Type code -> Clean − accuracy."""
    n_by_type: dict[str, int]
    sources: int
    infra_errors: int
    resamples: int
    seed: int
    resampling: Resampling = "per-sample"
    """How the half-widths were resampled (``per-sample`` or ``clustered``)."""


class Significance(BaseModel):
    """Paired-bootstrap comparison of one statistic with a baseline's."""

    difference: float | None
    p_value: float | None
    """The paired bootstrap's two-sided p-value (Table 2's test)."""
    marker: str
    """Table 2's superscript for ``max(p_value, p_floor)``."""
    pairs: int = 0
    """Source samples both runs have records of for this statistic."""
    discordant: int = 0
    """Of those, the ones on which the runs' records differ."""
    p_floor: float = 1.0
    """``min(1, 2^(1 − discordant))``: the smallest two-sided p an exact paired (sign-flip) test can give."""


Groups = dict[str, tuple[Array, Array]]
"""Group name -> (score sums, record counts), each over the leading (replicate) axis."""


def _statistics(groups: Groups, columns: Sequence[str]) -> dict[str, Array]:
    """Every statistic as an array over the replicate axis, from each group's sums and counts."""
    with np.errstate(invalid="ignore", divide="ignore"):
        out: dict[str, Array] = {name: sums / counts for name, (sums, counts) in groups.items()}
        clean = out.get("acc:clean", np.full(groups["pert_acc"][0].shape, np.nan))
        out["clean"] = clean
        for c in columns:
            if c != "clean":
                out[f"drop:{c}"] = clean - out[f"acc:{c}"]
        for comp in DELTA_COMPONENTS:
            sums, counts = groups[f"component:{comp}"]
            out[f"delta:{comp}"] = component_delta(clean, sums[..., None], counts[..., None])
        deltas = np.stack([out[f"delta:{c}"] for c in RETENTION_COMPONENTS], axis=-1)
        out["retention"] = 1.0 - deltas.mean(axis=-1) / clean
    return out


def _column_groups(matrix: ScoreMatrix, sums: Array, counts: Array) -> Groups:
    """Groups from per-column sums and counts (replicates × columns): a pooled group sums its columns."""
    return {name: (sums[:, cols].sum(axis=1), counts[:, cols].sum(axis=1)) for name, cols in matrix.groups().items()}


def _clustered(values: Array, resamples: int, seed: int) -> tuple[Array, Array]:
    """Column sums and counts of every bootstrap replicate (source rows resampled with replacement)."""
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


def _per_sample(matrix: ScoreMatrix, resamples: int, seed: int) -> Groups:
    """Each group's records resampled on their own (its own stream, named by the group)."""
    out: Groups = {}
    for name, cols in matrix.groups().items():
        block = matrix.values[:, cols]
        scores = block[~np.isnan(block)]
        out[name] = (sum_replicates(scores, resamples, group_rng(seed, name)), np.full(resamples, float(scores.size)))
    return out


def _value(x: Array) -> float | None:
    v = float(x[0])
    return v if np.isfinite(v) else None


def _point(matrix: ScoreMatrix) -> dict[str, Array]:
    present = ~np.isnan(matrix.values)
    sums = np.where(present, matrix.values, 0.0).sum(axis=0, keepdims=True)
    counts = present.sum(axis=0, keepdims=True).astype(float)
    return _statistics(_column_groups(matrix, sums, counts), matrix.columns)


def robustness(
    verdicts: Iterable[Verdict],
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
    resampling: Resampling = "per-sample",
) -> Robustness:
    """Table 2 / Tables 7-14 statistics of one run's verdicts (half-widths resampled as ``resampling`` says)."""
    m = ScoreMatrix.from_verdicts(verdicts)
    point = _point(m)
    reps: dict[str, Array] = {}
    if resamples > 0 and m.sources:
        if resampling == "clustered":
            groups = _column_groups(m, *_clustered(m.values, resamples, seed))
        elif resampling == "per-sample":
            groups = _per_sample(m, resamples, seed)
        else:
            raise ValueError(f"resampling must be per-sample or clustered, got {resampling!r}")
        reps = _statistics(groups, m.columns)

    def est(name: str) -> Estimate:
        value = _value(point[name])
        return Estimate(value=value, ci95=half_width(reps[name]) if reps and value is not None else None)

    perturbed = [c for c in m.columns if c != "clean"]
    return Robustness(
        clean=est("clean"),
        pert_acc=est("pert_acc"),
        delta={c: est(f"delta:{c}") for c in DELTA_COMPONENTS},
        retention=est("retention"),
        accuracy={c: est(f"acc:{c}") for c in m.columns},
        component_accuracy={c: est(f"component:{c}") for c in DELTA_COMPONENTS},
        drop={c: est(f"drop:{c}") for c in perturbed},
        n_by_type={c: int((~np.isnan(m.values[:, j])).sum()) for j, c in enumerate(m.columns)},
        sources=len(m.sources),
        infra_errors=m.infra_errors,
        resamples=resamples,
        seed=seed,
        resampling=resampling,
    )


def marker(p: float | None) -> str:
    """Table 2's superscript for a p-value."""
    if p is None:
        return ""
    return "***" if p < 0.001 else "**" if p < 0.01 else "*" if p < 0.05 else ""


def exact_floor(discordant: int) -> float:
    """The smallest two-sided p-value any exact paired sign-flip test (sign test, exact McNemar) can
    reach with ``discordant`` differing pairs: both all-same-sign outcomes, ``2 / 2^m``."""
    return min(1.0, 2.0 ** (1 - discordant))


def _statistic_columns(name: str, matrix: ScoreMatrix) -> list[int]:
    """The columns a statistic of ``_statistics`` reads (Clean included where it is subtracted)."""
    groups = matrix.groups()
    clean = groups.get("acc:clean", [])
    kind, _, arg = name.partition(":")
    if name == "clean":
        return clean
    if kind in ("acc", "component") or name == "pert_acc":
        return groups[name]
    if kind == "drop":
        return clean + groups[f"acc:{arg}"]
    if kind == "delta":
        return clean + groups[f"component:{arg}"]
    return clean + [j for c in RETENTION_COMPONENTS for j in groups[f"component:{c}"]]  # retention


def paired_significance(
    run: Iterable[Verdict], baseline: Iterable[Verdict], *, resamples: int = DEFAULT_RESAMPLES, seed: int = 0
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
    sums, counts = _clustered(stacked, resamples, seed)
    k = len(columns)
    rep_a = _statistics(_column_groups(a, sums[:, :k], counts[:, :k]), columns)
    rep_b = _statistics(_column_groups(b, sums[:, k:], counts[:, k:]), columns)
    point_a, point_b = _point(a), _point(b)
    present = ~np.isnan(a.values) & ~np.isnan(b.values)
    differs = present & (a.values != b.values)
    out: dict[str, Significance] = {}
    for name in rep_a:
        cols = _statistic_columns(name, a)
        pairs = int(present[:, cols].any(axis=1).sum())
        discordant = int(differs[:, cols].any(axis=1).sum())
        floor = exact_floor(discordant)
        diff = _value(point_a[name] - point_b[name])
        d = rep_a[name] - rep_b[name]
        d = d[np.isfinite(d)]
        if diff is None or d.size == 0:
            out[name] = Significance(difference=diff, p_value=None, marker="", pairs=pairs, discordant=discordant)
            continue
        p = min(1.0, 2.0 * min(float((d <= 0).mean()), float((d >= 0).mean())))
        out[name] = Significance(
            difference=diff, p_value=p, marker=marker(max(p, floor)), pairs=pairs, discordant=discordant, p_floor=floor
        )
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
