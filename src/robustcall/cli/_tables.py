"""Rich tables for the terminal."""

from __future__ import annotations

from typing import Any

from rich.table import Table

from robustcall.core import TYPES
from robustcall.metrics import Cell, Summary


def _pct(cell: Cell) -> str:
    if cell.accuracy is None:
        return "—"
    ci = f" ± {100 * cell.ci95:.1f}" if cell.ci95 is not None else ""
    return f"{100 * cell.accuracy:.1f}{ci}"


def summary_table(summary: Summary, title: str = "") -> Table:
    """Accuracy (%, 95% bootstrap half-width) per component and per type, with drops from Clean
    (a component's drop is its Δ, Table 2)."""
    how = "records resampled per group" if summary.resampling == "per-sample" else "source samples resampled"
    caption = f"± 95% percentile bootstrap, B = {summary.bootstrap_resamples:,}, {how}"
    table = Table(title=title or None, caption=caption if summary.bootstrap_resamples else None)
    for col in ("group", "n", "accuracy %", "drop pp", "infra"):
        table.add_column(col, justify="left" if col == "group" else "right")
    table.add_row("[bold]Clean", str(summary.clean.n), _pct(summary.clean), "", str(summary.clean.infra_errors))
    table.add_row(
        "[bold]Pert. Acc.",
        str(summary.perturbed.n),
        _pct(summary.perturbed),
        "",
        str(summary.perturbed.infra_errors),
    )
    for comp, cell in summary.by_component.items():
        if comp == "clean":
            continue
        est = summary.delta.get(comp)
        delta = summary.component_delta(comp)
        drop = "" if delta is None else f"{100 * delta:.1f}"
        if est is not None and est.ci95 is not None and delta is not None:
            drop += f" ± {100 * est.ci95:.1f}"
        table.add_row(f"[bold]{comp.capitalize()}", str(cell.n), _pct(cell), drop, str(cell.infra_errors))
    table.add_section()
    for code, cell in summary.by_type.items():
        if code == "clean":
            continue
        type_drop = summary.drop_by_type.get(code)
        display = TYPES[code].display if code in TYPES else code
        table.add_row(
            f"{display} ({code})",
            str(cell.n),
            _pct(cell),
            f"{100 * type_drop:.1f}" if type_drop is not None else "",
            str(cell.infra_errors),
        )
    return table


def endpoint_table(endpoints: list[dict[str, Any]]) -> Table:
    """Per endpoint of a model with several base URLs: requests sent, answered, failed, times marked down."""
    table = Table(title="endpoints")
    for col in ("endpoint", "requests", "ok", "failed", "marked down", "healthy at end"):
        table.add_column(col, justify="left" if col == "endpoint" else "right")
    for ep in endpoints:
        table.add_row(
            str(ep["url"]), str(ep["requests"]), str(ep["ok"]), str(ep["failed"]), str(ep["marked_down"]),
            "yes" if ep["healthy"] else "no",
        )  # fmt: skip
    return table
