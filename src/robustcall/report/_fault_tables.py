"""Tables 1, 2, 3, 5 and 6 of the fault-injection paper (``metrics.fault_report`` numbers as ``Table``s)."""

from __future__ import annotations

from collections import defaultdict

from robustcall.core import FAULT_CLASS_DISPLAY, FAULT_CLASSES
from robustcall.metrics import LOOP_RULE, MODE_DISPLAY, RECOVERY_RULE, FaultReport
from robustcall.report._table import Table


def _pct(x: float | None) -> str:
    return "—" if x is None else f"{100 * x:.1f}"


def fault_table1(rep: FaultReport) -> Table:
    d = rep.table_delta
    rows = []
    for a in rep.agents():
        clean, faulty = rep.at(a, 0.0), rep.at(a, d)
        rows.append(
            [
                a,
                _pct(clean.success_rate if clean else None),
                _pct(faulty.success_rate if faulty else None),
                _pct(faulty.recovery_rate if faulty else None),
                _pct(faulty.ufr if faulty else None),
                _pct(faulty.eia if faulty else None),
                _pct(faulty.recovery_rate_per_task if faulty else None),
                _pct(faulty.injection_rate if faulty else None),
                str(faulty.episodes if faulty else 0),
                str(faulty.faults if faulty else 0),
            ]
        )
    head = [
        "Model",
        "Task Success Rate",
        "RASR",
        "Recovery Rate",
        "UFR",
        "EIA",
        "RR per task (ours)",
        f"injected % of calls (δ = {d:g})",
        "tasks",
        "faults",
    ]
    limit = "counts" if rep.ufr_counts_step_limit else "does not count"
    title = (
        f"Table 1: Overall Robustness Performance (δ = {d:g}; Recovery Rate pooled over faults, (1/N) Σ R_i; "
        f"UFR = loop, crash or nonsensical output after a fault, hitting the step limit {limit})"
    )
    notes = [
        "Recovery Rate: the paper's (1/N) Σ R_i pooled over every fault of the group; RR per task (ours): "
        "the mean over task attempts with a fault of each attempt's own (1/N_τ) Σ R_i.",
        RECOVERY_RULE,
        "EIA: share of faults (with a later turn) whose error type (timeout, rate limit, not found, "
        "malformed, deprecated, parameter changed, ...) the agent's text names.",
        LOOP_RULE,
    ]
    return Table("faults_table1", title, head, rows, notes)


def fault_table2(rep: FaultReport) -> Table:
    d = rep.table_delta
    rows = []
    for a in rep.agents():
        m = rep.at(a, d)
        cells = [
            f"{_pct(m.recovery_by_class.get(c))} (n={m.faults_by_class.get(c, 0)})" if m else "—" for c in FAULT_CLASSES
        ]
        rows.append([a, *cells])
    head = ["Model", *(FAULT_CLASS_DISPLAY[c] for c in FAULT_CLASSES)]
    return Table("faults_table2", f"Table 2: Recovery Rate by Failure Type (δ = {d:g})", head, rows)


def fault_table3(rep: FaultReport) -> Table:
    deltas = sorted({d for by_d in rep.groups.values() for d in by_d if d > 0})
    rows = []
    for a in rep.agents():
        row = [a]
        for d in deltas:
            m = rep.at(a, d)
            row.append(_pct(m.success_rate if m else None))
        rows.append(row)
    head = ["Model", *(f"δ = {d:g}" for d in deltas)]
    return Table("faults_table3", "Table 3: RASR vs Fault Injection Rate (δ)", head, rows)


def fault_table5(rep: FaultReport) -> Table:
    d = rep.table_delta
    rows = []
    for a in rep.agents():
        clean, faulty = rep.at(a, 0.0), rep.at(a, d)
        s0 = clean.mean_steps if clean else None
        s1 = faulty.mean_steps if faulty else None
        inc = f"{100 * (s1 - s0) / s0:.1f}%" if s0 and s1 is not None else "—"
        rows.append([a, "—" if s0 is None else f"{s0:.1f}", "—" if s1 is None else f"{s1:.1f}", inc])
    head = ["Model", "Steps (No Fault)", f"Steps (δ = {d:g})", "% Increase"]
    return Table("faults_table5", "Table 5: Robustness vs. Efficiency (Avg. Steps per Task)", head, rows)


def fault_table6(rep: FaultReport) -> Table:
    d = rep.table_delta
    counts: dict[str, int] = defaultdict(int)
    for a in rep.agents():
        m = rep.at(a, d)
        for mode, n in (m.modes if m else {}).items():
            counts[mode] += n
    total = sum(counts.values())
    unrecovered = total - counts.get("recovered", 0)
    rows = []
    for mode, name in [*MODE_DISPLAY.items(), ("recovered", "Recovered")]:
        n = counts.get(mode, 0)
        share = _pct(n / total if total else None)
        among = _pct(n / unrecovered if unrecovered and mode != "recovered" else None)
        rows.append([name, str(n), share if share == "—" else f"{share}%", among if among == "—" else f"{among}%"])
    head = ["Failure Mode", "faults", "% of injected faults", "% of unrecovered"]  # "Other": no Table 6 mode fits
    title = f"Table 6: Frequency of Failure Modes (δ = {d:g}, all agents)"
    return Table("faults_table6", title, head, rows, [LOOP_RULE])


def ghost_table(rep: FaultReport) -> Table:
    """Calls to tools that were not listed, per agent (beyond the paper: Appendix N (7))."""
    rows = [
        [a, str(g.calls), str(g.ghost), str(g.near_miss), str(g.sibling), str(g.invented)]
        for a, g in rep.ghost_calls.items()
    ]
    head = ["Agent", "calls", "ghost calls", "near miss", "sibling", "invented"]
    notes = ["Beyond the paper (RobustBench-TC Appendix N (7)): calls to tools not in the list shown at reset."]
    return Table("faults_ghost_calls", "Ghost-tool calls (beyond the paper)", head, rows, notes)


def fault_tables(rep: FaultReport) -> list[Table]:
    tables = [fault_table1(rep), fault_table2(rep), fault_table3(rep), fault_table5(rep), fault_table6(rep)]
    return [*tables, ghost_table(rep)] if rep.ghost_calls else tables


def report_markdown(rep: FaultReport) -> str:
    return "\n".join(t.markdown() for t in fault_tables(rep))
