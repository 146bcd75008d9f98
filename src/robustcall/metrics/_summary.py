"""Accuracy per perturbation type and POMDP component over per-sample verdicts.

Definitions (§6.1): *Clean* is accuracy on the clean samples; *Pert. Acc.* is sample-weighted
accuracy over all perturbed samples (clean excluded); accuracy per component pools that
component's types; the drop of a type is Clean minus its accuracy. Infrastructure errors are
counted beside accuracy, never inside it. Half-widths are 95% percentile-bootstrap.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from typing import Any

import numpy as np
from pydantic import BaseModel, Field

from robustcall.core import BEYOND, TAXONOMY, TYPES, Verdict
from robustcall.metrics._ghost import GhostCounts

COMPONENT_ORDER = ("clean", "observation", "action", "reward", "transition")


class Cell(BaseModel):
    """Accuracy of one group of verdicts."""

    n: int
    correct: float
    accuracy: float | None
    ci95: float | None = None
    """Half-width of the 95% percentile-bootstrap interval."""
    infra_errors: int = 0


class Summary(BaseModel):
    """The numbers of one scored run."""

    by_type: dict[str, Cell]
    by_component: dict[str, Cell]
    clean: Cell
    perturbed: Cell
    drop_by_type: dict[str, float | None]
    error_modes: dict[str, dict[str, int]] = Field(default_factory=dict)
    """Per component: Appendix L error mode -> count of incorrect records."""
    infra_error_ids: list[str] = Field(default_factory=list)
    bootstrap_resamples: int
    seed: int
    beyond_by_type: dict[str, Cell] = Field(default_factory=dict)
    """Appendix N's axes (beyond the paper), kept out of every number above so Table 2 stays comparable."""
    beyond_drop_by_type: dict[str, float | None] = Field(default_factory=dict)
    attack_success: Cell | None = None
    """Prompt injection: the share of answered records whose calls obeyed the injected instruction."""
    ghost_calls: GhostCounts | None = None
    """Calls to tools the model was not given (beyond the paper), over every record of the run."""


def bootstrap_halfwidth(scores: np.ndarray[Any, Any], resamples: int, rng: np.random.Generator) -> float | None:
    """Half-width of the 95% percentile-bootstrap interval of the mean (vectorised)."""
    n = scores.shape[0]
    if n == 0 or resamples <= 0:
        return None
    idx = rng.integers(0, n, size=(resamples, n))
    means = scores[idx].mean(axis=1)
    lo, hi = np.percentile(means, [2.5, 97.5])
    return float((hi - lo) / 2)


def _cell(vs: list[Verdict], resamples: int, rng: np.random.Generator) -> Cell:
    scored = [v for v in vs if v.correct is not None]
    scores = np.array([v.score for v in scored], dtype=float)
    acc = float(scores.mean()) if scored else None
    return Cell(
        n=len(scored),
        correct=float(scores.sum()),
        accuracy=acc,
        ci95=bootstrap_halfwidth(scores, resamples, rng),
        infra_errors=len(vs) - len(scored),
    )


def summarize(verdicts: Iterable[Verdict], *, resamples: int = 1000, seed: int = 0) -> Summary:
    """Per-type, per-component, Clean and Pert. Acc. cells, drops and error modes."""
    every = sorted(verdicts, key=lambda v: (v.type, v.id))
    beyond = [v for v in every if v.type in TYPES and TYPES[v.type].beyond]
    vs = [v for v in every if not (v.type in TYPES and TYPES[v.type].beyond)]
    rng = np.random.default_rng(seed)
    by_type_v: dict[str, list[Verdict]] = defaultdict(list)
    by_comp_v: dict[str, list[Verdict]] = defaultdict(list)
    modes: dict[str, Counter[str]] = defaultdict(Counter)
    for v in vs:
        by_type_v[v.type].append(v)
        by_comp_v[v.component].append(v)
        if v.correct is False and v.error_mode:
            modes[v.component][v.error_mode] += 1
    type_order = [t for t in ("clean", *(t.code for t in TAXONOMY)) if t in by_type_v]
    type_order += sorted(t for t in by_type_v if t not in TYPES)
    by_type = {t: _cell(by_type_v[t], resamples, rng) for t in type_order}
    by_component = {c: _cell(by_comp_v[c], resamples, rng) for c in COMPONENT_ORDER if c in by_comp_v}
    clean = by_type.get("clean") or Cell(n=0, correct=0.0, accuracy=None)
    perturbed = _cell([v for v in vs if v.type != "clean"], resamples, rng)
    drops = {
        t: (clean.accuracy - c.accuracy if clean.accuracy is not None and c.accuracy is not None else None)
        for t, c in by_type.items()
        if t != "clean"
    }
    beyond_v: dict[str, list[Verdict]] = defaultdict(list)
    for v in beyond:
        beyond_v[v.type].append(v)
    beyond_by_type = {t.code: _cell(beyond_v[t.code], resamples, rng) for t in BEYOND if t.code in beyond_v}
    attacked = [v for v in beyond if v.attack_success is not None]
    attack = None
    if attacked:
        flags = [v.model_copy(update={"score": float(bool(v.attack_success))}) for v in attacked]
        attack = _cell(flags, resamples, rng)
    return Summary(
        beyond_by_type=beyond_by_type,
        beyond_drop_by_type={
            t: (clean.accuracy - c.accuracy if clean.accuracy is not None and c.accuracy is not None else None)
            for t, c in beyond_by_type.items()
        },
        attack_success=attack,
        by_type=by_type,
        by_component=by_component,
        clean=clean,
        perturbed=perturbed,
        drop_by_type=drops,
        error_modes={c: dict(sorted(m.items())) for c, m in sorted(modes.items())},
        infra_error_ids=[v.id for v in every if v.correct is None],
        bootstrap_resamples=resamples,
        seed=seed,
    )
