"""A model's place among the paper's 21 reference rows of Table 2, by Pert. Acc. (the card's)."""

from __future__ import annotations

from pydantic import BaseModel

from robustcall.core import paper_reference
from robustcall.metrics import Robustness
from robustcall.report._paper_rows import paper_estimates, paper_pert_acc


class Placement(BaseModel):
    """The model among the paper's reference rows, by Pert. Acc."""

    rank: int
    """1 + the reference rows with a higher Pert. Acc."""
    rank_low: int
    rank_high: int
    """The ranks the two ends of its 95% interval would take: how far the rank holds."""
    of: int
    comparable: bool
    """Whether the run answered every record of the authors' release (``build --release``): only then
    is the rank like for like."""
    note: str
    rows: list[dict[str, str | float | bool | None]]
    """Every row, best Pert. Acc. first: ``name``, ``type``, ``family``, ``clean``, ``pert_acc``,
    ``retention``, ``this`` (the placed model)."""


def _rank(value: float, others: list[float]) -> int:
    return 1 + sum(1 for o in others if o > value)


def reference_placement(name: str, stats: Robustness, *, comparable: bool, versus: str | None = None) -> Placement:
    """Where ``stats``' Pert. Acc. falls among the paper's models, with the ranks its interval spans;
    ``versus``: why the run is or is not like for like with them (``report._release_note``)."""
    models = paper_reference().models
    others = [paper_pert_acc(m) for m in models]
    value = stats.pert_acc.value or 0.0
    half = stats.pert_acc.ci95 or 0.0
    rows: list[dict[str, str | float | bool | None]] = []
    for m, pert in zip(models, others, strict=True):
        clean, _, _, retention = paper_estimates(m)
        rows.append(
            {
                "name": m.name,
                "type": m.type,
                "family": m.family,
                "clean": clean.value,
                "pert_acc": pert,
                "retention": retention.value,
                "this": False,
            }
        )
    rows.append(
        {
            "name": name,
            "type": "this card",
            "family": "this card",
            "clean": stats.clean.value,
            "pert_acc": stats.pert_acc.value,
            "retention": stats.retention.value,
            "this": True,
        }
    )
    rows.sort(key=lambda r: (-(r["pert_acc"] if isinstance(r["pert_acc"], float) else -1.0), not r["this"]))
    rank, low, high = _rank(value, others), _rank(value + half, others), _rank(value - half, others)
    width = f"Pert. Acc. {100 * value:.1f}% ± {100 * half:.1f} points (95%): rank {rank} of {len(others) + 1}"
    spread = f", anywhere from {low} to {high} within the interval" if low != high else ", the same across the interval"
    if comparable:
        note = f"{width}{spread}; the authors' released benchmark in full, so like for like with the paper's rows."
    elif versus is not None:
        note = f"{width}{spread}. The card's run is {versus}: read the rank as no more precise than that range."
    else:
        note = (
            f"{width}{spread}. A quick card answers a stratified subset of BFCL only, not the paper's "
            "five-source build: read the rank as no more precise than that range (run --budget paper to compare)."
        )
    return Placement(
        rank=rank, rank_low=low, rank_high=high, of=len(others) + 1, comparable=comparable, note=note, rows=rows
    )
