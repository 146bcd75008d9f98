"""The paper's 21 models as reference rows of Table 2 and Tables 7-14, beside a report's runs.

The numbers are the paper's as printed (``robustcall.core.paper_reference``: Table 2's values and
half-widths, Tables 7-14's accuracies); each row is marked ``(paper)`` and carries Table 2's family
and Figure 5's Type. Rank is by Pert. Acc. over every row, runs and the paper's together.
"""

from __future__ import annotations

from collections.abc import Sequence

from robustcall.core import DELTA_STATS, PaperModel, paper_reference
from robustcall.metrics import Estimate

PAPER_MARK = " (paper)"
RUN_FAMILY = "this report"


def paper_name(model: PaperModel) -> str:
    return model.name + PAPER_MARK


def paper_estimates(model: PaperModel) -> tuple[Estimate, Estimate, dict[str, Estimate], Estimate]:
    """Table 2's Clean, Pert. Acc., Δ per component and the retention they give (no interval)."""
    t = model.table2
    clean, pert = (
        Estimate(value=t["clean"].value, ci95=t["clean"].ci95),
        Estimate(value=t["pert_acc"].value, ci95=t["pert_acc"].ci95),
    )
    delta = {c: Estimate(value=t[s].value, ci95=t[s].ci95) for c, s in DELTA_STATS.items()}
    kept = [t[DELTA_STATS[c]].value for c in ("observation", "action", "reward")]
    retention = Estimate(value=1.0 - sum(kept) / len(kept) / t["clean"].value)
    return clean, pert, delta, retention


def paper_markers(model: PaperModel) -> dict[str, str]:
    """Table 2's own superscripts (against ToolRL-Qwen2.5-3B), by report statistic name."""
    t = model.table2
    out = {"clean": t["clean"].marker, "pert_acc": t["pert_acc"].marker}
    out |= {f"delta:{c}": t[s].marker for c, s in DELTA_STATS.items()}
    return out


def paper_pert_acc(model: PaperModel) -> float:
    """Pert. Acc. from the records Tables 7-14 imply: Table 2's value unrounded (Figure 5 prints it to
    4 digits), so that its 0.390 ties rank as the paper's leaderboard does."""
    reference = paper_reference()
    return reference.pooled_accuracy(model, list(reference.type_records))


def ranks(values: Sequence[float | None]) -> list[str]:
    """Competition ranks (1, 2, 2, 4) by value descending; ``—`` for an undefined value."""
    defined = [v for v in values if v is not None]
    return ["—" if v is None else str(1 + sum(1 for w in defined if w > v)) for v in values]


def paper_type_cells(model: PaperModel, types: Sequence[str]) -> list[str]:
    """Tables 7-14's cells: Clean, then per type ``accuracy (drop from Clean)``, both as printed; ``—`` for
    a type the paper does not have (Appendix N's)."""
    cells = [f"{model.accuracy['clean']:.3f}"]
    for t in types:
        acc = model.accuracy.get(t)
        cells.append("—" if acc is None else f"{acc:.3f} ({model.drop[t] + 0.0:+.3f})")
    return cells


def paper_note() -> str:
    ref = paper_reference()
    total = ref.clean_records + sum(ref.type_records.values())
    return (
        f"Rows marked{PAPER_MARK} are the paper's (RobustBench-TC Table 2 and Tables 7-14, its {total:,}-record "
        "build; a run on another build compares only roughly; superscripts there are the paper's own, against "
        "ToolRL-Qwen2.5-3B), grouped in Table 2's "
        f"families; Type is Figure 5's; Rank is by Pert. Acc. over every row. `--no-paper` leaves them out."
    )
