"""Statistics over repeated trials (``run --trials K``): each record asked K times, trial t with its
own request seed.

Per record i of a group (a perturbation type, a component, Pert. Acc.): n_i scored trials, c_i right.

- **Mean accuracy**: Σ c_i / Σ n_i (with equal n_i, the mean over trials of each trial's accuracy;
  the same number ``summarize`` gives the group).
- **pass@k** (HumanEval, Chen et al. 2021, eq. 1): the chance that at least one of k trials drawn
  without replacement from the record's n is right, unbiased: 1 − C(n − c, k) / C(n, k), averaged
  over the records with n_i ≥ k.
- **pass^k** (tau-bench, Yao et al. 2024): the chance that all k drawn trials are right, unbiased:
  C(c, k) / C(n, k), averaged the same way. pass@1 = pass^1 = the mean per-record accuracy.
- **Flip share**: the share of records (n_i ≥ 2) that were right in some trial and wrong in another.
- **Noise floor**: how far the group's K-trial accuracy moves between reruns of the same model by
  chance alone, 1.96 × its rerun standard deviation. Trials are independent given the record, so
  Var = Σ_i p_i (1 − p_i) / n_i / N², with the unbiased per-record estimate
  p_i (1 − p_i) ≈ c_i (n_i − c_i) / (n_i (n_i − 1)). A difference of two figures (a type's drop
  from Clean, a Δ between two runs) has the noise floor √(floor_a² + floor_b²)
  (:func:`difference_floor`); a Δ that does not exceed it is within rerun noise and is marked so.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping

from pydantic import BaseModel, Field

from robustcall.core import TYPES, Verdict

Z95 = 1.959963984540054
"""The two-sided 95% normal quantile."""


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k of one record with ``c`` of ``n`` trials right (HumanEval): 1 − C(n−c, k)/C(n, k)."""
    if not 0 <= c <= n or not 1 <= k <= n:
        raise ValueError(f"pass@k needs 0 <= c <= n and 1 <= k <= n, got n={n}, c={c}, k={k}")
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def pass_hat_k(n: int, c: int, k: int) -> float:
    """Unbiased pass^k of one record (tau-bench): C(c, k) / C(n, k)."""
    if not 0 <= c <= n or not 1 <= k <= n:
        raise ValueError(f"pass^k needs 0 <= c <= n and 1 <= k <= n, got n={n}, c={c}, k={k}")
    return math.comb(c, k) / math.comb(n, k)


class TrialCell(BaseModel):
    """One group's figures over trials."""

    records: int = Field(description="Records with at least one scored trial.")
    answers: int = Field(description="Scored trials over those records (Σ n_i).")
    trials: int = Field(description="The most trials any record has (K).")
    accuracy: float | None = Field(description="Σ c_i / Σ n_i: the mean accuracy over trials.")
    pass_at: dict[int, float] = Field(default_factory=dict, description="k -> unbiased pass@k, k = 1..K.")
    pass_hat: dict[int, float] = Field(default_factory=dict, description="k -> unbiased pass^k, k = 1..K.")
    flip_share: float | None = Field(description="Share of records right in one trial and wrong in another.")
    noise_floor: float | None = Field(
        description="1.96 × the rerun standard deviation of ``accuracy`` (None: no record has 2 trials)."
    )


class TrialSummary(BaseModel):
    """Trial figures of one run per perturbation type and per component (``overall``: Pert. Acc.)."""

    trials: int
    by_type: dict[str, TrialCell]
    by_component: dict[str, TrialCell]


def trial_cell(counts: list[tuple[int, int]]) -> TrialCell:
    """The figures of records given as (n_i scored trials, c_i right)."""
    counts = [(n, c) for n, c in counts if n > 0]
    k_max = max((n for n, _ in counts), default=0)
    answers = sum(n for n, _ in counts)
    pass_at: dict[int, float] = {}
    pass_hat: dict[int, float] = {}
    for k in range(1, k_max + 1):
        eligible = [(n, c) for n, c in counts if n >= k]
        if eligible:
            pass_at[k] = sum(pass_at_k(n, c, k) for n, c in eligible) / len(eligible)
            pass_hat[k] = sum(pass_hat_k(n, c, k) for n, c in eligible) / len(eligible)
    repeated = [(n, c) for n, c in counts if n >= 2]
    floor = None
    if repeated:
        var = sum(c * (n - c) / (n * (n - 1)) / n for n, c in repeated) / len(counts) ** 2
        floor = Z95 * math.sqrt(var)
    return TrialCell(
        records=len(counts),
        answers=answers,
        trials=k_max,
        accuracy=sum(c for _, c in counts) / answers if answers else None,
        pass_at=pass_at,
        pass_hat=pass_hat,
        flip_share=sum(1 for n, c in repeated if 0 < c < n) / len(repeated) if repeated else None,
        noise_floor=floor,
    )


def record_counts(verdicts: Iterable[Verdict]) -> dict[tuple[str, str], tuple[int, int]]:
    """(type, id) -> (scored trials, right trials); infrastructure errors are not trials."""
    out: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    for v in verdicts:
        acc = out[(v.type, v.id)]
        if v.correct is not None:
            acc[0] += 1
            acc[1] += int(v.correct)
    return {k: (n, c) for k, (n, c) in out.items()}


def has_trials(verdicts: Iterable[Verdict]) -> bool:
    """Whether any verdict comes from a trial other than the first (a ``--trials K`` run, K > 1)."""
    return any(v.trial is not None and v.trial > 0 for v in verdicts)


def trial_summary(verdicts: Iterable[Verdict]) -> TrialSummary | None:
    """The trial figures of a run, ``None`` for a one-trial run (nothing to add to its accuracy).

    Appendix N's types (beyond the paper) have their own rows and stay out of the components and
    ``overall`` (Pert. Acc.), as in ``summarize``."""
    vs = list(verdicts)
    if not has_trials(vs):
        return None
    counts = record_counts(vs)
    by_type: dict[str, list[tuple[int, int]]] = defaultdict(list)
    by_comp: dict[str, list[tuple[int, int]]] = defaultdict(list)
    component = {v.type: str(v.component) for v in vs}
    for (code, _), nc in sorted(counts.items()):
        by_type[code].append(nc)
        info = TYPES.get(code)
        if info is not None and info.beyond:
            continue
        by_comp[component[code]].append(nc)
        if code != "clean":
            by_comp["overall"].append(nc)
    order = {code: i for i, code in enumerate(("clean", *TYPES))}
    comp_order = ("clean", "observation", "action", "reward", "transition", "overall")
    cells = {t: trial_cell(by_type[t]) for t in sorted(by_type, key=lambda t: (order.get(t, len(order)), t))}
    comps = {c: trial_cell(by_comp[c]) for c in comp_order if by_comp.get(c)}
    return TrialSummary(trials=max(c.trials for c in cells.values()), by_type=cells, by_component=comps)


def difference_floor(*floors: float | None) -> float | None:
    """The noise floor of a difference of independent figures: √Σ floor²; ``None`` if one is unknown."""
    if any(f is None for f in floors):
        return None
    return math.sqrt(sum(f * f for f in floors if f is not None))


def within_noise(delta: float | None, floor: float | None) -> bool:
    """Whether ``delta`` does not exceed its noise floor (a Δ rerun noise alone could give)."""
    return delta is not None and floor is not None and abs(delta) <= floor


def type_drop_floors(summary: TrialSummary) -> Mapping[str, float | None]:
    """Per perturbation type, the noise floor of its drop from Clean (Clean − type accuracy)."""
    clean = summary.by_type.get("clean")
    base = clean.noise_floor if clean is not None else None
    return {t: difference_floor(base, c.noise_floor) for t, c in summary.by_type.items() if t != "clean"}
