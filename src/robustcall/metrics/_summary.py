"""Accuracy per perturbation type and POMDP component over per-sample verdicts (``score`` and the leaderboard).

Definitions (§6.1): *Clean* is accuracy on the clean samples; *Pert. Acc.* is sample-weighted
accuracy over all perturbed samples (clean excluded); accuracy per component pools that
component's records and Δ_X = Clean − that accuracy (``component_delta``); the drop of a type is
Clean minus its accuracy. Infrastructure errors are counted beside accuracy, never inside it.
Every value and half-width comes from ``robustness`` (95% percentile bootstrap, B = 10,000,
per-sample by default), so ``score``, ``report`` and the leaderboard print the same numbers.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable

import numpy as np
from pydantic import BaseModel, Field

from robustcall.core import BEYOND, TAXONOMY, TYPES, Verdict
from robustcall.metrics._bootstrap import DEFAULT_RESAMPLES, Resampling, bootstrap_halfwidth
from robustcall.metrics._ghost import GhostCounts
from robustcall.metrics._robustness import DELTA_COMPONENTS, Estimate, component_delta, robustness
from robustcall.metrics._trials import TrialSummary, trial_summary

COMPONENT_ORDER = ("clean", "observation", "action", "reward", "transition")


class Cell(BaseModel):
    """Accuracy of one group of verdicts."""

    n: int
    correct: float
    """Records answered correctly (binary correctness; partial credit is not counted)."""
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
    delta: dict[str, Estimate] = Field(default_factory=dict)
    """Component -> Δ_X = Clean − accuracy over X's pooled records (Table 2), with its half-width."""
    error_modes: dict[str, dict[str, int]] = Field(default_factory=dict)
    """Per component: Appendix L error mode -> count of incorrect records."""
    infra_error_ids: list[str] = Field(default_factory=list)
    bootstrap_resamples: int
    seed: int
    resampling: Resampling = "per-sample"
    """How the half-widths were resampled (``per-sample``: the paper's; ``clustered``: by source sample)."""
    beyond_by_type: dict[str, Cell] = Field(default_factory=dict)
    """Appendix N's axes (beyond the paper), kept out of every number above so Table 2 stays comparable
    (per-sample half-widths)."""
    beyond_drop_by_type: dict[str, float | None] = Field(default_factory=dict)
    attack_success: Cell | None = None
    """Prompt injection: the share of answered records that did what the injected instruction asked."""
    attack_success_by_kind: dict[str, Cell] = Field(default_factory=dict)
    """Prompt injection per kind of instruction (``call``, ``argument``, ``stop``): attack success."""
    injection_accuracy_by_kind: dict[str, Cell] = Field(default_factory=dict)
    """Prompt injection per kind of instruction: task accuracy on those records (beside the ASR)."""
    ghost_calls: GhostCounts | None = None
    """Calls to tools the model was not given (beyond the paper), over every record of the run."""
    scorer_version: int | None = None
    """The verdict rules the run was scored by (``core.SCORER_VERSION`` of the release that scored
    it; ``None``: not scored by ``robustcall score``, or before the version was recorded)."""
    robustcall_version: str | None = None
    """The robustcall release that scored the run."""
    trials: TrialSummary | None = None
    """A ``--trials K`` run (K > 1): mean accuracy, pass@k, pass^k, flip share and noise floor per
    type and component (``metrics._trials``); the cells above then count answers (records × trials)."""

    def component_delta(self, component: str) -> float | None:
        """Δ of a component: the stored value, else (summaries written before it was stored) the
        same ``component_delta`` over the stored cells."""
        if component in self.delta:
            return self.delta[component].value
        cell = self.by_component.get(component)
        if cell is None or not cell.n or self.clean.accuracy is None:
            return None
        return float(component_delta(self.clean.accuracy, [cell.correct], [cell.n]))


def _cell(vs: list[Verdict], est: Estimate | None) -> Cell:
    scored = [v for v in vs if v.correct is not None]
    correct = float(sum(1 for v in scored if v.correct))
    return Cell(
        n=len(scored),
        correct=correct,
        accuracy=correct / len(scored) if scored else None,
        ci95=est.ci95 if est is not None else None,
        infra_errors=len(vs) - len(scored),
    )


def _beyond_cell(flags: list[bool | None], resamples: int, seed: int, group: str) -> Cell:
    """A cell over binary outcomes (``None``: an infrastructure error) with its per-sample half-width."""
    scored = np.array([float(f) for f in flags if f is not None])
    ci = bootstrap_halfwidth(scored, resamples, seed=seed, group=group)
    return Cell(
        n=int(scored.size),
        correct=float(scored.sum()),
        accuracy=float(scored.mean()) if scored.size else None,
        ci95=ci,
        infra_errors=len(flags) - int(scored.size),
    )


def _beyond(summary: Summary, verdicts: list[Verdict], resamples: int, seed: int) -> Summary:
    by_type: dict[str, list[Verdict]] = defaultdict(list)
    for v in verdicts:
        by_type[v.type].append(v)
    cells = {
        t.code: _beyond_cell([v.correct for v in by_type[t.code]], resamples, seed, t.code)
        for t in BEYOND
        if t.code in by_type
    }
    clean = summary.clean.accuracy
    attacked = [v.attack_success for v in verdicts if v.attack_success is not None]
    by_kind: dict[str, list[Verdict]] = defaultdict(list)
    for v in verdicts:
        if v.injection_kind is not None:
            by_kind[v.injection_kind].append(v)
    kinds = sorted(by_kind)
    return summary.model_copy(
        update={
            "beyond_by_type": cells,
            "beyond_drop_by_type": {
                t: clean - c.accuracy if clean is not None and c.accuracy is not None else None
                for t, c in cells.items()
            },
            "attack_success": _beyond_cell(list(attacked), resamples, seed, "attack") if attacked else None,
            "attack_success_by_kind": {
                k: _beyond_cell([v.attack_success for v in by_kind[k]], resamples, seed, f"attack/{k}") for k in kinds
            },
            "injection_accuracy_by_kind": {
                k: _beyond_cell([v.correct for v in by_kind[k]], resamples, seed, f"injection/{k}") for k in kinds
            },
        }
    )


def _is_beyond(v: Verdict) -> bool:
    return v.type in TYPES and TYPES[v.type].beyond


def summarize(
    verdicts: Iterable[Verdict],
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
    resampling: Resampling = "per-sample",
) -> Summary:
    """Per-type, per-component, Clean and Pert. Acc. cells, Δs, drops and error modes; the types beyond
    the paper apart (``beyond_by_type``, ``attack_success``)."""
    every = sorted(verdicts, key=lambda v: (v.type, v.id))
    vs = [v for v in every if not _is_beyond(v)]
    stats = robustness(vs, resamples=resamples, seed=seed, resampling=resampling)
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
    by_type = {t: _cell(by_type_v[t], stats.accuracy.get(t)) for t in type_order}
    by_component = {
        c: _cell(by_comp_v[c], stats.accuracy.get(c) if c == "clean" else stats.component_accuracy.get(c))
        for c in COMPONENT_ORDER
        if c in by_comp_v
    }
    clean = by_type.get("clean") or Cell(n=0, correct=0.0, accuracy=None)
    perturbed = _cell([v for v in vs if v.type != "clean"], stats.pert_acc)
    summary = Summary(
        by_type=by_type,
        by_component=by_component,
        clean=clean,
        perturbed=perturbed,
        drop_by_type={t: stats.drop[t].value if t in stats.drop else None for t in by_type if t != "clean"},
        delta={c: stats.delta[c] for c in DELTA_COMPONENTS if c in by_comp_v},
        error_modes={c: dict(sorted(m.items())) for c, m in sorted(modes.items())},
        infra_error_ids=[v.id for v in every if v.correct is None],
        bootstrap_resamples=resamples,
        seed=seed,
        resampling=resampling,
        trials=trial_summary(every),
    )
    beyond = [v for v in every if _is_beyond(v)]
    return _beyond(summary, beyond, resamples, seed) if beyond else summary
