"""The rows of ``robustcall compare`` for each kind of run, from both runs' records (``_paired`` does
the statistics).

- **RobustBench-TC** (verdicts paired by perturbation type and sample id): accuracy per perturbation
  type (Holm family ``type``, gated by ``--fail-on-type``); per component, Clean included, and the
  overall figure, Pert. Acc. (every perturbed record pooled, §6.1) (family ``component``, gated by
  ``--fail-on-drop``); the retention ratio 1 − mean(Δ_Obs, Δ_Act, Δ_Rew) / Clean (Table 2), with its
  paired interval and no test (it is a function of the rows above). The unit of a type's row is
  its record (one per source sample); the unit of a pooled row is the *source sample* (a clean
  sample and every perturbed record made from it, ``source_id``), the pooled records of one sample
  moving together in the bootstrap and counting once in the sign test. The records of one sample
  are not independent: counted as records, 4 samples × 6 types would look like 24 pairs and claim
  significance that 4 samples cannot carry. Appendix N's types (beyond the
  paper) are rows of their own and stay out of the components and Pert. Acc., as in ``summarize``.
- **Fault injection** (episodes paired by task, seed and δ; ``analyse`` decides every R_i, EIA and
  UFR, so a change of its rules shows here unchanged): RASR, RR (pooled: Σ R_i / N), EIA and UFR
  (lower is better) over all episodes (family ``faults``, ``--fail-on-drop``), and per failure class
  (family ``class``, ``--fail-on-type``): RR and EIA over the faults of that class, RASR and UFR over
  the episodes that met a fault of that class.
- **PIPE** (episodes paired by task, seed and dual order): score (mean r(τ)) and success rate
  (family ``pipe``, ``--fail-on-drop``); on a dual run IR at α = 0.5 / 1 / 2 (family ``ir``, never
  gated; lower is better: less reliance on the original names). IR's unit is a task: the mean over
  its dual orders of log((n_ori + α) / (n_syn + α)); exp of the mean over tasks is eq. 3 when every
  task ran in both orders (``combined_interface_reliance``).
- **Reward-model evaluations** (records paired by position in the evaluated set): pairwise accuracy
  overall (``--fail-on-drop``) and per error type (``--fail-on-type``).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from statistics import fmean
from typing import Literal

import numpy as np
from pydantic import BaseModel, Field

from robustcall.core import FAULT_CLASS_DISPLAY, FAULT_CLASSES, TYPES, Trajectory, Verdict
from robustcall.metrics._bootstrap import DEFAULT_RESAMPLES, Array, group_rng, row_sum_replicates
from robustcall.metrics._faults import analyse
from robustcall.metrics._paired import PairedRow, adjust, paired_row
from robustcall.metrics._pipe import ALPHAS
from robustcall.metrics._robustness import DELTA_COMPONENTS, RETENTION_COMPONENTS, source_id
from robustcall.metrics._trials import difference_floor, trial_cell

GateName = Literal["drop", "type"]
CompareKind = Literal["robustbench", "faults", "pipe", "rm"]
KIND_DISPLAY: dict[CompareKind, str] = {
    "robustbench": "RobustBench-TC",
    "faults": "fault injection",
    "pipe": "PIPE",
    "rm": "reward-model evaluation",
}
UFR_REASONS = frozenset({"loop", "crash", "nonsensical"})
"""The paper's three UFR reasons (``fault_metrics``' default: hitting the step limit does not count)."""


class Pairing(BaseModel):
    """How many records each run has and how many were compared."""

    baseline: int
    candidate: int
    shared: int
    """Records both runs have."""
    compared: int
    """Of those, the ones with a verdict in both (infrastructure errors left out)."""
    unit: str = "records"
    trials_baseline: int | None = None
    trials_candidate: int | None = None
    """Runs of several trials: the most trials a record of each run has (``None``: one-trial runs)."""


class PairedComparison(BaseModel):
    """Every row of one comparison of two runs of the same kind."""

    kind: CompareKind
    pairing: Pairing
    rows: list[PairedRow]
    resamples: int
    seed: int
    notes: list[str] = Field(default_factory=list)


def _rows(units: Sequence[Sequence[float]]) -> Array:
    return np.asarray(units, dtype=float).reshape(-1, 4)


def _type_label(code: str) -> str:
    if code == "clean":
        return "Clean"
    info = TYPES.get(code)
    return f"{info.display} ({code})" if info is not None else code


Units = dict[str, list[float]]
"""Source sample -> [baseline correct, baseline records, candidate correct, candidate records] of a group."""


def _retention_row(groups: Mapping[str, Units], resamples: int, seed: int) -> PairedRow | None:
    """Retention of both runs, Δ and its paired interval (each group resampled on its own stream:
    the same draws as the group's own row)."""
    names = ("clean", *RETENTION_COMPONENTS)
    if any(not groups.get(g) for g in names):
        return None

    def retention(acc: Mapping[str, Array]) -> Array:
        with np.errstate(invalid="ignore", divide="ignore"):
            deltas = np.stack([acc["clean"] - acc[c] for c in RETENTION_COMPONENTS], axis=-1)
            out: Array = 1.0 - deltas.mean(axis=-1) / acc["clean"]
        return out

    def side(sums: Mapping[str, Array], i: int) -> Array:
        return retention({g: s[..., i] / s[..., i + 1] for g, s in sums.items()})

    arrays = {g: _rows([u for _, u in sorted(groups[g].items())]) for g in names}
    totals = {g: a.sum(axis=0, keepdims=True) for g, a in arrays.items()}
    base, cand = float(side(totals, 0)[0]), float(side(totals, 2)[0])
    ok = math.isfinite(base) and math.isfinite(cand)
    ci = None
    if ok and resamples > 0:
        reps = {g: row_sum_replicates(a, resamples, group_rng(seed, f"component:{g}")) for g, a in arrays.items()}
        with np.errstate(invalid="ignore"):  # both sides infinite where a draw has Clean = 0
            d = side(reps, 2) - side(reps, 0)
        d = d[np.isfinite(d)]
        if d.size >= 2:
            lo, hi = np.percentile(d, [2.5, 97.5])
            ci = (float(lo), float(hi))
    return PairedRow(
        key="retention",
        label="Retention",
        family="retention",
        units=len(set().union(*(groups[g] for g in names))),
        baseline=base if ok else None,
        candidate=cand if ok else None,
        delta=cand - base if ok else None,
        ci95=ci,
    )


def _by_record(verdicts: Iterable[Verdict]) -> dict[tuple[str, str], tuple[int, int, Verdict]]:
    """(type, id) -> (scored trials, right trials, a verdict of it): a record's trials pooled (one
    trial: 1 / 0 or, for an infrastructure error, 0 / 0)."""
    out: dict[tuple[str, str], tuple[int, int, Verdict]] = {}
    for v in verdicts:
        n, c, first = out.get((v.type, v.id), (0, 0, v))
        if v.correct is not None:
            n, c = n + 1, c + int(v.correct)
        out[(v.type, v.id)] = (n, c, first)
    return out


def _floor(counts: list[tuple[int, int]], other: list[tuple[int, int]]) -> float | None:
    """The noise floor of Δ between two runs' figures over these records (``_trials``)."""
    return difference_floor(trial_cell(counts).noise_floor, trial_cell(other).noise_floor)


def compare_verdicts(
    baseline: Iterable[Verdict], candidate: Iterable[Verdict], *, resamples: int = DEFAULT_RESAMPLES, seed: int = 0
) -> PairedComparison:
    """RobustBench-TC rows (module docstring) over the records both runs scored.

    Runs of several trials (``run --trials K``) pair per record over its trials: a record's numbers
    are (right trials, scored trials) of each run, so a type's unit is still its record, and its value
    the record's mean over trials. Each row then carries the noise floor of its Δ (``_trials``)."""
    a = _by_record(baseline)
    b = _by_record(candidate)
    shared = sorted(set(a) & set(b))
    by_type: dict[str, Units] = defaultdict(dict)
    by_comp: dict[str, Units] = defaultdict(dict)
    counts: dict[str, tuple[list[tuple[int, int]], list[tuple[int, int]]]] = defaultdict(lambda: ([], []))
    compared = 0
    for key in shared:
        (na, ca, va), (nb, cb, _) = a[key], b[key]
        if na == 0 or nb == 0:  # infrastructure errors only, on one side
            continue
        compared += 1
        pair = (float(ca), float(na), float(cb), float(nb))
        source = source_id(va)
        groups = ["clean"] if va.type == "clean" else [f"type:{va.type}"]
        if va.type != "clean":  # Clean is the ``component:clean`` row
            by_type[va.type][source] = list(pair)
        info = TYPES.get(va.type)
        if info is None or not info.beyond:
            if va.type != "clean":
                groups += [str(va.component), "overall"]
            for g in groups:
                if g.startswith("type:"):
                    continue
                unit = by_comp[g].setdefault(source, [0.0, 0.0, 0.0, 0.0])
                for i, x in enumerate(pair):
                    unit[i] += x
        for g in groups:
            counts[g][0].append((na, ca))
            counts[g][1].append((nb, cb))
    order = {code: i for i, code in enumerate(("clean", *TYPES))}
    trials = any(n > 1 for n, _, _ in (*a.values(), *b.values()))

    def row(key: str, label: str, units: Units, family: str, gate: GateName, group: str) -> PairedRow:
        array = _rows([u for _, u in sorted(units.items())])
        out = paired_row(key, label, array, family=family, gate=gate, resamples=resamples, seed=seed)
        if trials:
            out.noise_floor = _floor(*counts[group])
        return out

    rows = [
        row(f"component:{c}", "Clean" if c == "clean" else c.capitalize(), by_comp[c], "component", "drop", c)
        for c in ("clean", *DELTA_COMPONENTS)
        if by_comp.get(c)
    ]
    if by_comp.get("overall"):
        rows.append(row("overall", "Pert. Acc. (overall)", by_comp["overall"], "component", "drop", "overall"))
    rows += [
        row(f"type:{t}", _type_label(t), by_type[t], "type", "type", f"type:{t}")
        for t in sorted(by_type, key=lambda t: (order.get(t, len(order)), t))
    ]
    retention = _retention_row(by_comp, resamples, seed)
    if retention is not None:
        rows.append(retention)
    return PairedComparison(
        kind="robustbench",
        pairing=Pairing(
            baseline=len(a),
            candidate=len(b),
            shared=len(shared),
            compared=compared,
            trials_baseline=max((n for n, _, _ in a.values()), default=0) if trials else None,
            trials_candidate=max((n for n, _, _ in b.values()), default=0) if trials else None,
        ),
        rows=adjust(rows),
        resamples=resamples,
        seed=seed,
    )


def _episode_key(t: Trajectory) -> tuple[str, int, str]:
    return (t.task_id, t.seed, repr(t.config.get("delta")) + "/" + repr(t.config.get("order")))


def _pair_episodes(
    baseline: Iterable[Trajectory], candidate: Iterable[Trajectory]
) -> tuple[list[tuple[Trajectory, Trajectory]], Pairing]:
    a = {_episode_key(t): t for t in baseline}
    b = {_episode_key(t): t for t in candidate}
    shared = sorted(set(a) & set(b))
    pairs = [(a[k], b[k]) for k in shared if a[k].success is not None and b[k].success is not None]
    pairing = Pairing(baseline=len(a), candidate=len(b), shared=len(shared), compared=len(pairs), unit="episodes")
    return pairs, pairing


EpisodeNumbers = dict[str, tuple[float, float]]
"""Statistic key -> (num, den) of one episode."""


def _fault_numbers(t: Trajectory) -> EpisodeNumbers:
    episode, faults = analyse(t)
    failed = float(episode.unrecoverable in UFR_REASONS)
    out: EpisodeNumbers = {
        "rasr": (float(episode.success), 1.0),
        "rr": (float(sum(f.recovered for f in faults)), float(sum(f.in_rr for f in faults))),
        "eia": (float(sum(f.identified for f in faults if f.answered)), float(sum(f.answered for f in faults))),
        "ufr": (failed, 1.0),
    }
    for c in FAULT_CLASSES:
        fs = [f for f in faults if f.fault_class == c]
        met = 1.0 if fs else 0.0
        out[f"rr:{c}"] = (float(sum(f.recovered for f in fs)), float(sum(f.in_rr for f in fs)))
        out[f"eia:{c}"] = (float(sum(f.identified for f in fs if f.answered)), float(sum(f.answered for f in fs)))
        out[f"rasr:{c}"] = (float(episode.success) * met, met)
        out[f"ufr:{c}"] = (failed * met, met)
    return out


_FAULT_STATS: dict[str, tuple[str, Literal["higher", "lower"]]] = {
    "rasr": ("RASR", "higher"),
    "rr": ("RR", "higher"),
    "eia": ("EIA", "higher"),
    "ufr": ("UFR", "lower"),
}


def _numbers_rows(
    pairs: list[tuple[Trajectory, Trajectory]],
    numbers: Callable[[Trajectory], EpisodeNumbers],
    specs: list[tuple[str, str, str, Literal["drop", "type"] | None, Literal["higher", "lower"]]],
    prefix: str,
    resamples: int,
    seed: int,
) -> list[PairedRow]:
    """One row per (key, label, family, gate, better) over the episode pairs' numbers."""
    na = [numbers(x) for x, _ in pairs]
    nb = [numbers(y) for _, y in pairs]
    rows = []
    for key, label, family, gate, better in specs:
        units = _rows([(*ea[key], *eb[key]) for ea, eb in zip(na, nb, strict=True)])
        rows.append(
            paired_row(
                prefix + key,
                label,
                units,
                family=prefix + family,
                gate=gate,
                better=better,
                resamples=resamples,
                seed=seed,
            )
        )
    return rows


def compare_fault_runs(
    baseline: Iterable[Trajectory],
    candidate: Iterable[Trajectory],
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
) -> PairedComparison:
    """Fault-injection rows (module docstring); one block of rows per δ when the runs swept several."""
    pairs, pairing = _pair_episodes(baseline, candidate)
    by_delta: dict[float, list[tuple[Trajectory, Trajectory]]] = defaultdict(list)
    for x, y in pairs:
        d = x.config.get("delta")
        by_delta[float(d) if isinstance(d, int | float) else math.nan].append((x, y))
    specs: list[tuple[str, str, str, Literal["drop", "type"] | None, Literal["higher", "lower"]]] = [
        (key, label, "faults", "drop", better) for key, (label, better) in _FAULT_STATS.items()
    ]
    specs += [
        (f"{key}:{c}", f"{label} ({FAULT_CLASS_DISPLAY[c]})", "class", "type", better)
        for c in FAULT_CLASSES
        for key, (label, better) in _FAULT_STATS.items()
    ]
    rows: list[PairedRow] = []
    for delta, group in sorted(by_delta.items()):
        prefix = f"δ={delta:g}/" if len(by_delta) > 1 else ""
        block = _numbers_rows(group, _fault_numbers, specs, prefix, resamples, seed)
        if prefix:
            block = [r.model_copy(update={"label": f"δ = {delta:g} · {r.label}"}) for r in block]
        rows += block
    return PairedComparison(kind="faults", pairing=pairing, rows=adjust(rows), resamples=resamples, seed=seed)


def compare_pipe_runs(
    baseline: Sequence[Trajectory],
    candidate: Sequence[Trajectory],
    counts: Callable[[Trajectory], tuple[int, int]],
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
) -> PairedComparison:
    """PIPE rows (module docstring) of one interface level; ``counts`` gives an episode's (n_ori, n_syn)
    (``interface.episode_counts``, which this layer cannot import)."""
    pairs, pairing = _pair_episodes(baseline, candidate)
    getters: list[tuple[str, str, Callable[[Trajectory], float]]] = [
        ("score", "Score (mean r(τ))", lambda t: float(t.score)),
        ("success", "Success rate", lambda t: float(bool(t.success))),
    ]
    rows = [
        paired_row(
            key,
            label,
            _rows([(get(x), 1.0, get(y), 1.0) for x, y in pairs]),
            family="pipe",
            gate="drop",
            resamples=resamples,
            seed=seed,
        )
        for key, label, get in getters
    ]
    if any(x.config.get("level") == "dual" for x, _ in pairs):
        by_task: dict[tuple[str, int], list[tuple[Trajectory, Trajectory]]] = defaultdict(list)
        for x, y in pairs:
            by_task[(x.task_id, x.seed)].append((x, y))
        for alpha in ALPHAS:

            def log_ratio(t: Trajectory, alpha: float = alpha) -> float:
                ori, syn = counts(t)
                return math.log((ori + alpha) / (syn + alpha))

            per_task = [
                (fmean(log_ratio(x) for x, _ in eps), fmean(log_ratio(y) for _, y in eps))
                for _, eps in sorted(by_task.items())
            ]
            units = _rows([(x, 1.0, y, 1.0) for x, y in per_task])
            rows.append(
                paired_row(
                    f"ir:{alpha:g}",
                    f"IR α={alpha:g}",
                    units,
                    family="ir",
                    better="lower",
                    transform="exp",
                    resamples=resamples,
                    seed=seed,
                )
            )
    return PairedComparison(kind="pipe", pairing=pairing, rows=adjust(rows), resamples=resamples, seed=seed)


def compare_hits(
    baseline: Sequence[tuple[str, str, bool]],
    candidate: Sequence[tuple[str, str, bool]],
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
) -> PairedComparison:
    """Reward-model rows: per record (record key, error type, hit), paired by record key."""
    a = {k: (t, h) for k, t, h in baseline}
    b = {k: (t, h) for k, t, h in candidate}
    shared = sorted(set(a) & set(b))
    by_type: dict[str, list[tuple[float, float, float, float]]] = defaultdict(list)
    every = []
    for k in shared:
        unit = (float(a[k][1]), 1.0, float(b[k][1]), 1.0)
        every.append(unit)
        by_type[a[k][0]].append(unit)
    rows = [
        paired_row(
            "accuracy", "Pairwise accuracy", _rows(every), family="rm", gate="drop", resamples=resamples, seed=seed
        )
    ]
    rows += [
        paired_row(f"type:{t}", t, _rows(by_type[t]), family="type", gate="type", resamples=resamples, seed=seed)
        for t in sorted(by_type)
    ]
    pairing = Pairing(baseline=len(a), candidate=len(b), shared=len(shared), compared=len(shared))
    return PairedComparison(kind="rm", pairing=pairing, rows=adjust(rows), resamples=resamples, seed=seed)
