"""Tables 1-6 of the fault-injection paper (``metrics.fault_report`` numbers as ``Table``s)."""

from __future__ import annotations

from collections import defaultdict

from robustcall.core import FAULT_CLASS_DISPLAY, FAULT_CLASSES
from robustcall.metrics import (
    LOOP_RULE,
    MODE_DISPLAY,
    NO_TURN,
    NO_TURN_DISPLAY,
    RR_RULES,
    STEPS_RULES,
    FaultMetrics,
    FaultReport,
)
from robustcall.report._table import Table


def _pct(x: float | None) -> str:
    return "—" if x is None else f"{100 * x:.1f}"


def _rule(rep: FaultReport) -> str:
    return f"R_i rule: {rep.rr_rule}" + (" (default)" if rep.rr_rule == "identify" else " (--rr-rule retry)")


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
        f"Table 1: Overall Robustness Performance (δ = {d:g}; Recovery Rate pooled over faults, (1/N) Σ R_i, "
        f"{_rule(rep)}; UFR = loop, crash or nonsensical output after a fault, hitting the step limit {limit})"
    )
    notes = [
        "Recovery Rate: the paper's (1/N) Σ R_i pooled over every fault of the group; RR per task (ours): "
        "the mean over task attempts with a fault of each attempt's own (1/N_τ) Σ R_i.",
        RR_RULES[rep.rr_rule],
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
            f"{_pct(m.recovery_by_class.get(c))} (n={m.rr_faults_by_class.get(c, 0)})" if m else "—"
            for c in FAULT_CLASSES
        ]
        rows.append([a, *cells])
    head = ["Model", *(FAULT_CLASS_DISPLAY[c] for c in FAULT_CLASSES)]
    title = f"Table 2: Recovery Rate by Failure Type (δ = {d:g}, {_rule(rep)})"
    return Table("faults_table2", title, head, rows, [RR_RULES[rep.rr_rule]])


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


def method_labels(rep: FaultReport, methods: list[str] | None = None) -> list[str]:
    """Table 4's row labels: ``methods`` in order where given, else Baseline for the first agent, + CoT
    Prompting for a CoT-prompt agent, the agent's name for any other."""
    given = methods or []
    out = []
    for i, a in enumerate(rep.order):
        if i < len(given):
            out.append(given[i])
        elif i == 0:
            out.append("Baseline")
        else:
            out.append("+ CoT Prompting" if a.endswith(" + cot") else f"+ {a}")
    return out


def _with_change(x: float | None, base: float | None, first: bool) -> str:
    if first or x is None or base is None:
        return _pct(x)
    return f"{_pct(x)} ({100 * (x - base):+.1f})"


def fault_table4(rep: FaultReport, methods: list[str] | None = None) -> Table:
    """Baseline, CoT and fine-tuned agents side by side (the paper's Table 4), in the order of the runs."""
    d = rep.table_delta
    metrics: list[FaultMetrics | None] = [rep.at(a, d) for a in rep.order]
    base = metrics[0] if metrics else None

    def cell(m: FaultMetrics | None, name: str, first: bool) -> str:
        x = getattr(m, name) if m else None
        return _with_change(x, getattr(base, name) if base else None, first)

    rows = [
        [label, a, *(cell(m, n, i == 0) for n in ("success_rate", "recovery_rate", "ufr", "eia"))]
        for i, (label, a, m) in enumerate(zip(method_labels(rep, methods), rep.order, metrics, strict=True))
    ]
    head = ["Method", "Agent", "RASR", "Recovery Rate", "UFR", "EIA"]
    title = f"Table 4: Robustness by Method (δ = {d:g}, {_rule(rep)}; changes against the first row)"
    return Table("faults_table4", title, head, rows, [RR_RULES[rep.rr_rule]])


def fault_table5(rep: FaultReport) -> Table:
    d = rep.table_delta
    rows = []
    for a in rep.agents():
        if rep.steps_rule == "paired":
            p = rep.steps.get(a, {}).get(d)
            s0, s1, n = (p.clean, p.faulty, str(p.tasks)) if p else (None, None, "0")
        else:
            clean, faulty = rep.at(a, 0.0), rep.at(a, d)
            s0 = clean.mean_steps if clean else None
            s1 = faulty.mean_steps if faulty else None
            n = f"{clean.episodes if clean else 0} / {faulty.episodes if faulty else 0}"
        inc = f"{100 * (s1 - s0) / s0:.1f}%" if s0 and s1 is not None else "—"
        rows.append([a, "—" if s0 is None else f"{s0:.1f}", "—" if s1 is None else f"{s1:.1f}", inc, n])
    counted = "tasks completed in both" if rep.steps_rule == "paired" else "attempts (no fault / faults)"
    head = ["Model", "Steps (No Fault)", f"Steps (δ = {d:g})", "% Increase", counted]
    title = f"Table 5: Robustness vs. Efficiency (Avg. Steps per Task; {rep.steps_rule}: {STEPS_RULES[rep.steps_rule]})"
    return Table("faults_table5", title, head, rows)


def fault_table6(rep: FaultReport) -> Table:
    d = rep.table_delta
    counts: dict[str, int] = defaultdict(int)
    for a in rep.agents():
        m = rep.at(a, d)
        for mode, n in (m.modes if m else {}).items():
            counts[mode] += n
    total = sum(counts.values())
    unlabelled = ("recovered", NO_TURN)
    labelled = total - sum(counts.get(m, 0) for m in unlabelled)
    rows = []
    for mode, name in [*MODE_DISPLAY.items(), ("recovered", "Recovered"), (NO_TURN, NO_TURN_DISPLAY)]:
        n = counts.get(mode, 0)
        share = _pct(n / total if total else None)
        among = _pct(n / labelled if labelled and mode not in unlabelled else None)
        rows.append([name, str(n), share if share == "—" else f"{share}%", among if among == "—" else f"{among}%"])
    head = ["Failure Mode", "faults", "% of injected faults", "% of faults with a mode"]  # the paper's base
    title = f"Table 6: Frequency of Failure Modes (δ = {d:g}, all agents, {_rule(rep)})"
    notes = [
        "Graceful Failure counts every stop that names the fault's type, recovered ones (identify rule: a fault "
        "the episode offers no way past -- a deprecated tool, a sticky 404/401/403) included; Recovered: "
        "recoveries by an action.",
        LOOP_RULE,
    ]
    return Table("faults_table6", title, head, rows, notes)


def ghost_table(rep: FaultReport) -> Table:
    """Calls to tools that were not listed, per agent (beyond the paper: Appendix N (7))."""
    rows = [
        [a, str(g.calls), str(g.ghost), str(g.near_miss), str(g.sibling), str(g.invented)]
        for a, g in rep.ghost_calls.items()
    ]
    head = ["Agent", "calls", "ghost calls", "near miss", "sibling", "invented"]
    notes = ["Beyond the paper (RobustBench-TC Appendix N (7)): calls to tools not in the list shown at reset."]
    return Table("faults_ghost_calls", "Ghost-tool calls (beyond the paper)", head, rows, notes)


def fault_tables(rep: FaultReport, methods: list[str] | None = None) -> list[Table]:
    tables = [
        fault_table1(rep),
        fault_table2(rep),
        fault_table3(rep),
        fault_table4(rep, methods),
        fault_table5(rep),
        fault_table6(rep),
    ]
    return [*tables, ghost_table(rep)] if rep.ghost_calls else tables


def report_markdown(rep: FaultReport, methods: list[str] | None = None) -> str:
    return "\n".join(t.markdown() for t in fault_tables(rep, methods))
