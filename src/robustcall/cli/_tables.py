"""Rich tables for the terminal."""

from __future__ import annotations

from typing import Any

from rich.table import Table

from robustcall.core import TYPES
from robustcall.metrics import UNIT_NOTE, Cell, Summary, frac


def _acc(cell: Cell) -> str:
    return frac(cell.accuracy, cell.ci95)


def summary_table(summary: Summary, title: str = "") -> Table:
    """Accuracy (95% bootstrap half-width) per component and per type, with drops from Clean (a
    component's drop is its Δ, Table 2); fractions in [0, 1] as in the report and the leaderboard."""
    how = "records resampled per group" if summary.resampling == "per-sample" else "source samples resampled"
    caption = f"± 95% percentile bootstrap, B = {summary.bootstrap_resamples:,}, {how}; {UNIT_NOTE}"
    table = Table(title=title or None, caption=caption if summary.bootstrap_resamples else UNIT_NOTE)
    for col in ("group", "n", "accuracy", "drop", "infra"):
        table.add_column(col, justify="left" if col == "group" else "right")
    table.add_row("[bold]Clean", str(summary.clean.n), _acc(summary.clean), "", str(summary.clean.infra_errors))
    table.add_row(
        "[bold]Pert. Acc.",
        str(summary.perturbed.n),
        _acc(summary.perturbed),
        "",
        str(summary.perturbed.infra_errors),
    )
    for comp, cell in summary.by_component.items():
        if comp == "clean":
            continue
        est = summary.delta.get(comp)
        delta = summary.component_delta(comp)
        drop = "" if delta is None else frac(delta, est.ci95 if est is not None else None)
        table.add_row(f"[bold]{comp.capitalize()}", str(cell.n), _acc(cell), drop, str(cell.infra_errors))
    table.add_section()
    for code, cell in summary.by_type.items():
        if code == "clean":
            continue
        type_drop = summary.drop_by_type.get(code)
        display = TYPES[code].display if code in TYPES else code
        table.add_row(
            f"{display} ({code})",
            str(cell.n),
            _acc(cell),
            frac(type_drop) if type_drop is not None else "",
            str(cell.infra_errors),
        )
    if summary.beyond_by_type:  # Appendix N's axes, apart: none of the numbers above includes them
        table.add_section()
        for code, cell in summary.beyond_by_type.items():
            beyond_drop = summary.beyond_drop_by_type.get(code)
            shown = frac(beyond_drop) if beyond_drop is not None else ""
            name = f"beyond: {TYPES[code].display} ({code})"
            table.add_row(name, str(cell.n), _acc(cell), shown, str(cell.infra_errors))
        if summary.attack_success is not None:
            attack = summary.attack_success
            table.add_row("beyond: injection attack success ↓", str(attack.n), _acc(attack), "", "")
            for kind, asr in summary.attack_success_by_kind.items():
                acc = summary.injection_accuracy_by_kind.get(kind)
                table.add_row(f"beyond: injection `{kind}` ASR ↓", str(asr.n), _acc(asr), "", "")
                if acc is not None:
                    table.add_row(f"beyond: injection `{kind}` accuracy", str(acc.n), _acc(acc), "", "")
    if summary.ghost_calls is not None and summary.ghost_calls.calls:
        g = summary.ghost_calls
        table.caption = (
            f"{table.caption}; ghost calls (unlisted tools): {g.ghost} of {g.calls} "
            f"({g.near_miss} near miss, {g.sibling} sibling, {g.invented} invented)"
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
