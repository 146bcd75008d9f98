"""How many clean samples and trials ``compare`` needs to catch a drop (``robustcall compare --plan``).

The gate's test is the exact sign test over paired units, Holm-adjusted within a family of m rows
(``_paired``). A drop of D points on one figure is caught when the figure's Holm p < α and it went
down; with the other rows of its family unchanged, Holm's first step asks p < α / m. Units are
independent, each a *win*, a *loss* or a tie with probabilities (q_w, q_l), so the power over n units
is exact: Σ_m P(m discordant) · P(losses ≥ the critical count for m), binomial sums (:func:`sign_power`).

Where (q_w, q_l) come from (:func:`unit_odds`): a *pilot* run gives each record's chance of a right
answer, p_i (:func:`pilot_odds`: c_i / n_i over its trials, shrunk towards the type's mean by what
trial noise explains; a one-trial pilot: 1 or 0, a model that answers the same way every time). The
candidate of the plan loses D points on the target's records, each record's chance scaled by
1 − D / p̄ (p̄ = the pilot's accuracy on that type), so every targeted type drops by exactly D in
expectation. Baseline and candidate each ask every record K times; a unit (a type's record, or a
source sample with its records of the pooled types) is a loss when the candidate's mean over its
trials is below the baseline's. For a type row the odds are exact binomial sums over the pilot's
records; for a pooled row (a component, Pert. Acc.) they are estimated from ``draws`` seeded
simulations of pilot samples.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence

import numpy as np
from pydantic import BaseModel, Field

from robustcall.core import TYPES, Verdict, seeded_rng
from robustcall.metrics._paired import sign_test
from robustcall.metrics._robustness import source_id

POWER = 0.8
"""The power a plan asks for."""
MAX_SAMPLES = 20_000
"""The most clean samples a plan searches (beyond: "not reachable")."""
COMPONENT_ROWS = 6
"""The gate's component family: Clean, the four components and Pert. Acc."""


_LOG_FACT = np.zeros(1)


def _log_fact(n: int) -> np.ndarray:
    """log(k!) for k = 0..n (grown on demand)."""
    global _LOG_FACT
    if _LOG_FACT.size <= n:
        _LOG_FACT = np.concatenate(([0.0], np.cumsum(np.log(np.arange(1, 2 * n + 2, dtype=float)))))
    return _LOG_FACT[: n + 1]


def _binom_pmf(n: int, p: float) -> np.ndarray:
    """P(X = k), k = 0..n, X ~ Binomial(n, p)."""
    k = np.arange(n + 1)
    out: np.ndarray
    if p <= 0.0:
        out = (k == 0).astype(float)
    elif p >= 1.0:
        out = (k == n).astype(float)
    else:
        lf = _log_fact(n)
        out = np.exp(lf[n] - lf[k] - lf[n - k] + k * math.log(p) + (n - k) * math.log1p(-p))
    return out


def critical_losses(m: int, alpha: float) -> int | None:
    """The fewest losses among ``m`` discordant units (the rest wins) whose sign test p < ``alpha``;
    ``None`` when no count reaches it."""
    for losses in range(m // 2 + 1, m + 1):
        if sign_test(m - losses, losses) < alpha:
            return losses
    return None


def sign_power(n: int, q_win: float, q_loss: float, alpha: float) -> float:
    """P(the sign test over ``n`` independent units flags a drop at ``alpha``): losses > wins and
    p < ``alpha``, each unit a win with ``q_win``, a loss with ``q_loss``, else a tie."""
    q = q_win + q_loss
    if n <= 0 or q <= 0:
        return 0.0
    r = q_loss / q
    pm = _binom_pmf(n, min(1.0, q))
    total = 0.0
    crit = 1
    for m in range(1, n + 1):
        if pm[m] < 1e-15:
            continue
        # the critical count grows with m by 0 or 1 step: walk it forward
        crit = max(crit, m // 2 + 1)
        while crit <= m and sign_test(m - crit, crit) >= alpha:
            crit += 1
        if crit > m:
            continue
        tail = _binom_pmf(m, r)[crit:].sum()
        total += float(pm[m] * tail)
    return min(1.0, total)


def _loss_odds(p: float, p2: float, k: int) -> tuple[float, float]:
    """(P(candidate's K-trial mean > baseline's), P(<)) for one record: baseline Bin(K, p), candidate Bin(K, p2)."""
    x = _binom_pmf(k, p)
    y = _binom_pmf(k, p2)
    joint = np.outer(x, y)  # [baseline count, candidate count]
    win = float(np.triu(joint, 1).sum())
    loss = float(np.tril(joint, -1).sum())
    return win, loss


Pilot = dict[str, dict[str, float]]
"""Source sample -> type -> the pilot's chance of a right answer on that record (c / n)."""


def pilot_odds(verdicts: Iterable[Verdict]) -> Pilot:
    """Per source sample and type, the pilot's estimate of the record's chance of a right answer.

    From a pilot of several trials the raw share c / n mixes the record's own chance with trial noise;
    each type's shares are shrunk towards the type's mean by w = between / (between + within), the
    records' spread beyond what trial noise explains (method of moments: within = mean of
    c (n − c) / (n (n − 1)) / n, between = var(c / n) − within, at least 0). A model whose records
    differ only by chance gets w ≈ 0: every record at the type's mean. A one-trial pilot cannot tell
    the two apart and is read as a model that answers each record the same way every time (w = 1)."""
    sums: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    for v in verdicts:
        if v.correct is not None:
            acc = sums[(source_id(v), v.type)]
            acc[0] += int(v.correct)
            acc[1] += 1
    by_type: dict[str, list[tuple[str, int, int]]] = defaultdict(list)
    for (source, code), (c, n) in sums.items():
        by_type[code].append((source, c, n))
    out: Pilot = defaultdict(dict)
    for code, recs in by_type.items():
        shares = np.array([c / n for _, c, n in recs])
        mean = float(shares.mean())
        repeated = [(c, n) for _, c, n in recs if n >= 2]
        weight = 1.0
        if repeated and len(recs) >= 2:
            within = float(np.mean([c * (n - c) / (n * (n - 1)) / n for c, n in repeated]))
            between = max(0.0, float(shares.var(ddof=1)) - within)
            weight = between / (between + within) if between + within > 0 else 1.0
        for (source, _, _), share in zip(recs, shares, strict=True):
            out[source][code] = mean + weight * (float(share) - mean)
    return dict(out)


def target_types(target: str, pilot: Pilot) -> list[str]:
    """The types a target names: ``type:<code>`` (or a code / display name), a component
    (``observation`` ...), ``overall`` (Pert. Acc.: every perturbed type of the paper)."""
    present = sorted({t for types in pilot.values() for t in types})
    paper = [t for t in present if t != "clean" and not (t in TYPES and TYPES[t].beyond)]
    if target == "overall":
        return paper
    if target in ("clean", "observation", "action", "reward", "transition"):
        return ["clean"] if target == "clean" else [t for t in paper if t in TYPES and TYPES[t].component == target]
    code = target.removeprefix("type:")
    from robustcall.core import type_info

    return [type_info(code).code]


def _type_means(pilot: Pilot) -> dict[str, float]:
    sums: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])
    for types in pilot.values():
        for t, p in types.items():
            sums[t][0] += p
            sums[t][1] += 1
    return {t: s / n for t, (s, n) in sums.items()}


def _scaled(pilot: Pilot, types: Sequence[str], drop: float) -> dict[str, float]:
    """Type -> the factor each targeted record's chance is scaled by, so that the type drops ``drop``."""
    means = _type_means(pilot)
    out = {}
    for t in types:
        mean = means.get(t, 0.0)
        if drop > mean + 1e-12:
            raise ValueError(f"a drop of {drop:g} is more than {t}'s pilot accuracy {mean:.3f}")
        out[t] = 1.0 - drop / mean if mean > 0 else 1.0
    return out


def unit_odds(
    pilot: Pilot, target: str, drop: float, trials: int, *, draws: int = 20_000, seed: int = 0
) -> tuple[float, float, float]:
    """(q_win, q_loss, units per clean sample) of the row ``target`` under a drop of ``drop`` points.

    A type row's unit is one record (a type may not apply to every sample: the share that has it is
    the third number); a pooled row's unit is a source sample with its records of the pooled types."""
    types = target_types(target, pilot)
    scale = _scaled(pilot, types, drop)
    with_target = [s for s, ts in pilot.items() if any(t in ts for t in types)]
    if not with_target:
        raise ValueError(f"the pilot has no record of {target}")
    share = len(with_target) / len(pilot)
    if len(types) == 1:
        (t,) = types
        odds = [_loss_odds(pilot[s][t], pilot[s][t] * scale[t], trials) for s in with_target]
        return sum(w for w, _ in odds) / len(odds), sum(x for _, x in odds) / len(odds), share
    rng = np.random.default_rng(seeded_rng(seed, "plan", target, str(trials)).getrandbits(63))
    picks = rng.integers(0, len(with_target), size=draws)
    win = loss = 0
    for i in picks:
        ps = [(p, p * scale[t]) for t, p in pilot[with_target[int(i)]].items() if t in scale]
        base = sum(int(rng.binomial(trials, p)) for p, _ in ps)
        cand = sum(int(rng.binomial(trials, p2)) for _, p2 in ps)
        win += cand > base
        loss += cand < base
    return win / draws, loss / draws, share


class PlanRow(BaseModel):
    """How many clean samples catch the drop at one number of trials."""

    trials: int
    samples: int | None = Field(description="Clean samples for the power asked (None: beyond MAX_SAMPLES).")
    power: float | None = Field(description="The exact power at that many samples.")
    answers: int | None = Field(description="Model answers a run of that size asks (samples × records × trials).")


class Plan(BaseModel):
    """``compare --plan``: per number of trials, the clean samples that detect the drop."""

    target: str
    drop: float
    alpha: float
    alpha_row: float = Field(description="α / m: the level the target row must reach (Holm's first step).")
    power: float
    pilot_samples: int
    records_per_sample: float = Field(description="The pilot's records per clean sample (every type it ran).")
    rows: list[PlanRow]


def samples_for_power(q_win: float, q_loss: float, share: float, alpha: float, power: float = POWER) -> int | None:
    """The fewest clean samples whose power reaches ``power`` (units = samples × ``share``)."""

    def pw(n: int) -> float:
        return sign_power(max(0, round(n * share)), q_win, q_loss, alpha)

    hi = 8
    while pw(hi) < power:
        hi *= 2
        if hi > MAX_SAMPLES:
            return None
    lo = hi // 2 if hi > 8 else 1
    while lo < hi:  # the first n past the target (the sign test's power rises in small steps)
        mid = (lo + hi) // 2
        if pw(mid) >= power:
            hi = mid
        else:
            lo = mid + 1
    return hi


def plan(
    pilot_verdicts: Sequence[Verdict],
    target: str,
    drop: float,
    *,
    alpha: float = 0.05,
    trials: Sequence[int] = (1, 2, 3, 5, 10),
    power: float = POWER,
    seed: int = 0,
) -> Plan:
    """The plan (module docstring) for a drop of ``drop`` (a fraction) on ``target``."""
    pilot = pilot_odds(pilot_verdicts)
    if not pilot:
        raise ValueError("the pilot run has no scored record")
    types = target_types(target, pilot)
    family = (
        len({t for ts in pilot.values() for t in ts if t != "clean"})
        if len(types) == 1 and target != "clean"
        else COMPONENT_ROWS
    )
    alpha_row = alpha / max(1, family)
    rows = []
    for k in trials:
        q_win, q_loss, share = unit_odds(pilot, target, drop, k, seed=seed)
        n = samples_for_power(q_win, q_loss, share, alpha_row, power)
        got = sign_power(round(n * share), q_win, q_loss, alpha_row) if n is not None else None
        per_sample = sum(len(ts) for ts in pilot.values()) / len(pilot)
        rows.append(
            PlanRow(
                trials=k,
                samples=n,
                power=got,
                answers=None if n is None else round(n * per_sample * k),
            )
        )
    return Plan(
        target=target,
        drop=drop,
        alpha=alpha,
        alpha_row=alpha_row,
        power=power,
        pilot_samples=len(pilot),
        records_per_sample=sum(len(ts) for ts in pilot.values()) / len(pilot),
        rows=rows,
    )
