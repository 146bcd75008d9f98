"""The numbers behind Tables 1, 2, 3, 5 and 6 of the fault-injection paper, from trajectory records.

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

from robustcall.core import InputError, Trajectory
from robustcall.metrics._faults import FaultMetrics, fault_metrics
from robustcall.metrics._ghost import GhostCounts, ghost_calls_in_trajectories

SWEEP_DELTAS = (0.0, 0.1, 0.2, 0.3, 0.5)
"""Table 3's rates, plus δ = 0 for the Task Success Rate."""


def agent_of(t: Trajectory) -> str:
    variant = t.config.get("prompt")
    return t.model + (f" + {variant}" if variant and variant != "default" else "")


def delta_of(t: Trajectory) -> float:
    delta = t.config.get("delta")
    if not isinstance(delta, int | float):
        raise InputError(f"trajectory {t.id} has no numeric config.delta: not a fault-injection run")
    return float(delta)


class FaultReport(BaseModel):
    """Every group's metrics, keyed ``agent -> δ -> metrics``."""

    table_delta: float
    ufr_counts_step_limit: bool = False
    groups: dict[str, dict[float, FaultMetrics]]
    ghost_calls: dict[str, GhostCounts] = {}
    """Per agent: calls to tools that were not listed at reset (Appendix N (7), beyond the paper)."""

    def agents(self) -> list[str]:
        return sorted(self.groups)

    def at(self, agent: str, delta: float) -> FaultMetrics | None:
        return self.groups.get(agent, {}).get(delta)


def fault_report(
    trajectories: Iterable[Trajectory], *, table_delta: float = 0.3, ufr_step_limit: bool = False
) -> FaultReport:
    """Every (agent, δ) group's metrics; ``ufr_step_limit`` counts hitting the step limit towards UFR."""
    grouped: dict[str, dict[float, list[Trajectory]]] = defaultdict(lambda: defaultdict(list))
    by_agent: dict[str, list[Trajectory]] = defaultdict(list)
    for t in trajectories:
        grouped[agent_of(t)][delta_of(t)].append(t)
        by_agent[agent_of(t)].append(t)
    groups = {
        a: {d: fault_metrics(ts, ufr_step_limit=ufr_step_limit) for d, ts in sorted(by_d.items())}
        for a, by_d in grouped.items()
    }
    ghosts = {a: ghost_calls_in_trajectories(ts) for a, ts in sorted(by_agent.items())}
    return FaultReport(table_delta=table_delta, ufr_counts_step_limit=ufr_step_limit, groups=groups, ghost_calls=ghosts)
