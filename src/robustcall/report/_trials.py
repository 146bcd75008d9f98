"""The repeated-trials table (``run --trials K``): per component and type, mean accuracy over trials,
pass@K and pass^K (unbiased), the share of records that flip between trials, the noise floor of the
figure, and its drop from Clean marked where it does not exceed its own noise floor."""

from __future__ import annotations

from robustcall.core import TYPES
from robustcall.metrics import TrialCell, TrialSummary, difference_floor, frac, trial_summary, within_noise
from robustcall.report._runs import RunResult
from robustcall.report._table import Table

COMPONENT_LABELS = {
    "clean": "Clean",
    "observation": "Observation",
    "action": "Action",
    "reward": "Reward",
    "transition": "Transition",
    "overall": "Pert. Acc.",
}
NOISE_MARK = "≈ noise"
"""Beside a drop from Clean that does not exceed its noise floor: rerun noise alone could give it."""


def _drop(cell: TrialCell, clean: TrialCell | None) -> str:
    if clean is None or clean.accuracy is None or cell.accuracy is None:
        return "—"
    drop = clean.accuracy - cell.accuracy
    floor = difference_floor(clean.noise_floor, cell.noise_floor)
    text = frac(drop, signed=True)
    return f"{text} {NOISE_MARK}" if within_noise(drop, floor) else text


def trial_rows(summary: TrialSummary) -> list[list[str]]:
    """[group, records, mean accuracy, pass@K, pass^K, flip share, noise floor, drop from Clean]."""
    k = summary.trials
    clean = summary.by_type.get("clean")
    rows: list[list[str]] = []
    groups = [(COMPONENT_LABELS.get(c, c), cell, c != "clean") for c, cell in summary.by_component.items()]
    groups += [
        (f"{TYPES[t].display} ({t})" if t in TYPES else t, cell, True)
        for t, cell in summary.by_type.items()
        if t != "clean"
    ]
    for label, cell, dropped in groups:
        rows.append(
            [
                label,
                str(cell.records),
                frac(cell.accuracy),
                frac(cell.pass_at.get(k)),
                frac(cell.pass_hat.get(k)),
                frac(cell.flip_share),
                "—" if cell.noise_floor is None else f"±{cell.noise_floor:.3f}",
                _drop(cell, clean) if dropped else "",
            ]
        )
    return rows


def trial_header(k: int) -> list[str]:
    return ["Group", "Records", "Mean acc.", f"pass@{k}", f"pass^{k}", "Flip share", "Noise floor", "Drop from Clean"]


TRIAL_NOTE = (
    "Mean acc. = accuracy over all trials; pass@k = 1 − C(n−c, k)/C(n, k) (HumanEval) and pass^k = "
    "C(c, k)/C(n, k) (tau-bench), unbiased, per record of n trials with c right, averaged; flip share = "
    "records right in one trial and wrong in another; noise floor = 1.96 × the figure's rerun standard "
    f"deviation; a drop marked '{NOISE_MARK}' does not exceed √(floor² + Clean's floor²)."
)


def trials_table(runs: list[RunResult]) -> Table | None:
    """One block of rows per run of several trials; ``None`` when no run has more than one."""
    rows: list[list[str]] = []
    k_max = 0
    for r in runs:
        summary = trial_summary(r.verdicts)
        if summary is None:
            continue
        k_max = max(k_max, summary.trials)
        rows += [[r.name, *row] for row in trial_rows(summary)]
    if not rows:
        return None
    header = ["Model", *trial_header(k_max)]
    header[4], header[5] = "pass@K", "pass^K"
    notes = [TRIAL_NOTE, "K = each run's trials per record."]
    return Table("trials", "Repeated trials: pass@K, pass^K, flips and noise floors", header, rows, notes)
