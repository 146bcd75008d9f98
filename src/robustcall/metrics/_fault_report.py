"""Tables 1, 2, 3, 5 and 6 of the fault-injection paper from trajectory records.

Trajectories are grouped by *agent* (model, plus `` + CoT`` for the CoT prompt variant) and by the
δ in their ``config``. Task Success Rate is the δ = 0 group's success rate; RASR, RR, EIA, UFR and
recovery by class are read at the table's δ (0.3 by default, Table 1's rate); Table 3 lists RASR
at every δ run; Table 5 compares mean steps per task at δ = 0 and at the table's δ; Table 6 pools
every agent's faults at the table's δ.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from pydantic import BaseModel

from robustcall.core import Trajectory
from robustcall.faults import CLASS_DISPLAY, FAULT_CLASSES
from robustcall.metrics._faults import MODE_DISPLAY, FaultMetrics, fault_metrics

SWEEP_DELTAS = (0.0, 0.1, 0.2, 0.3, 0.5)
"""Table 3's rates, plus δ = 0 for the Task Success Rate."""


def agent_of(t: Trajectory) -> str:
    variant = t.config.get("prompt")
    return t.model + (f" + {variant}" if variant and variant != "default" else "")


def delta_of(t: Trajectory) -> float:
    delta = t.config.get("delta")
    if not isinstance(delta, int | float):
        raise ValueError(f"trajectory {t.id} has no numeric config.delta: not a fault-injection run")
    return float(delta)


class FaultReport(BaseModel):
    """Every group's metrics, keyed ``agent -> δ -> metrics``."""

    table_delta: float
    groups: dict[str, dict[float, FaultMetrics]]

    def agents(self) -> list[str]:
        return sorted(self.groups)

    def at(self, agent: str, delta: float) -> FaultMetrics | None:
        return self.groups.get(agent, {}).get(delta)


def fault_report(trajectories: Iterable[Trajectory], *, table_delta: float = 0.3) -> FaultReport:
    grouped: dict[str, dict[float, list[Trajectory]]] = defaultdict(lambda: defaultdict(list))
    for t in trajectories:
        grouped[agent_of(t)][delta_of(t)].append(t)
    groups = {a: {d: fault_metrics(ts) for d, ts in sorted(by_d.items())} for a, by_d in grouped.items()}
    return FaultReport(table_delta=table_delta, groups=groups)


def _pct(x: float | None) -> str:
    return "—" if x is None else f"{100 * x:.1f}"


def _row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def _table(header: list[str], rows: list[list[str]]) -> str:
    sep = "|" + "|".join("---" for _ in header) + "|"
    return "\n".join([_row(header), sep, *(_row(r) for r in rows)])


def table1(rep: FaultReport) -> str:
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
                str(faulty.episodes if faulty else 0),
                str(faulty.faults if faulty else 0),
            ]
        )
    head = ["Model", "Task Success Rate", "RASR", "Recovery Rate", "UFR", "EIA", "tasks", "faults"]
    return f"Table 1: Overall Robustness Performance (δ = {d:g})\n\n" + _table(head, rows)


def table2(rep: FaultReport) -> str:
    d = rep.table_delta
    rows = []
    for a in rep.agents():
        m = rep.at(a, d)
        cells = [
            f"{_pct(m.recovery_by_class.get(c))} (n={m.faults_by_class.get(c, 0)})" if m else "—" for c in FAULT_CLASSES
        ]
        rows.append([a, *cells])
    head = ["Model", *(CLASS_DISPLAY[c] for c in FAULT_CLASSES)]
    return f"Table 2: Recovery Rate by Failure Type (δ = {d:g})\n\n" + _table(head, rows)


def table3(rep: FaultReport) -> str:
    deltas = sorted({d for by_d in rep.groups.values() for d in by_d if d > 0})
    rows = []
    for a in rep.agents():
        row = [a]
        for d in deltas:
            m = rep.at(a, d)
            row.append(_pct(m.success_rate if m else None))
        rows.append(row)
    head = ["Model", *(f"δ = {d:g}" for d in deltas)]
    return "Table 3: RASR vs Fault Injection Rate (δ)\n\n" + _table(head, rows)


def table5(rep: FaultReport) -> str:
    d = rep.table_delta
    rows = []
    for a in rep.agents():
        clean, faulty = rep.at(a, 0.0), rep.at(a, d)
        s0 = clean.mean_steps if clean else None
        s1 = faulty.mean_steps if faulty else None
        inc = f"{100 * (s1 - s0) / s0:.1f}%" if s0 and s1 is not None else "—"
        rows.append([a, "—" if s0 is None else f"{s0:.1f}", "—" if s1 is None else f"{s1:.1f}", inc])
    head = ["Model", "Steps (No Fault)", f"Steps (δ = {d:g})", "% Increase"]
    return "Table 5: Robustness vs. Efficiency (Avg. Steps per Task)\n\n" + _table(head, rows)


def table6(rep: FaultReport) -> str:
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
    head = ["Failure Mode", "faults", "% of injected faults", "% of unrecovered"]
    return f"Table 6: Frequency of Failure Modes (δ = {d:g}, all agents)\n\n" + _table(head, rows)


def report_markdown(rep: FaultReport) -> str:
    return "\n\n".join([table1(rep), table2(rep), table3(rep), table5(rep), table6(rep)]) + "\n"
