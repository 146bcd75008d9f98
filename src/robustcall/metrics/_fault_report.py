"""The numbers behind Tables 1-6 of the fault-injection paper, from trajectory records.

Trajectories are grouped by *agent* (model, plus `` + CoT`` for the CoT prompt variant) and by the
δ in their ``config``. Task Success Rate is the δ = 0 group's success rate; RASR, RR, EIA, UFR and
recovery by class are read at the table's δ (0.3 by default, Table 1's rate); Table 3 lists RASR
at every δ run; Table 4 puts the agents side by side in the order their runs were given (the first is
the baseline); Table 5 compares "the average number of steps required to complete a task" at δ = 0
and at the table's δ, by default over the task attempts (task, seed) completed in both conditions
(``paired``), optionally over every attempt (``all``, the rule before issue 35); Table 6 pools every
agent's faults at the table's δ.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import Literal

from pydantic import BaseModel, Field

from robustcall.core import InputError, Trajectory
from robustcall.metrics._faults import FaultMetrics, RRRule, fault_metrics
from robustcall.metrics._ghost import GhostCounts, ghost_calls_in_trajectories

SWEEP_DELTAS = (0.0, 0.1, 0.2, 0.3, 0.5)
"""Table 3's rates, plus δ = 0 for the Task Success Rate."""


StepsRule = Literal["paired", "all"]
STEPS_RULES: dict[StepsRule, str] = {
    "paired": "steps averaged over the task attempts (task, seed) completed in both conditions",
    "all": "steps averaged over every task attempt of each condition, completed or not (--steps all)",
}


class PairedSteps(BaseModel):
    """Mean steps over the task attempts completed both without faults and at one δ."""

    tasks: int
    clean: float | None
    faulty: float | None


def paired_steps(clean: Iterable[Trajectory], faulty: Iterable[Trajectory]) -> PairedSteps:
    """Mean steps at δ = 0 and under faults over the (env, task, seed) solved in both."""
    solved0 = {(t.env, t.task_id, t.seed): len(t.steps) for t in clean if t.success}
    solved1 = {(t.env, t.task_id, t.seed): len(t.steps) for t in faulty if t.success}
    both = sorted(solved0.keys() & solved1.keys())
    if not both:
        return PairedSteps(tasks=0, clean=None, faulty=None)
    return PairedSteps(
        tasks=len(both),
        clean=sum(solved0[k] for k in both) / len(both),
        faulty=sum(solved1[k] for k in both) / len(both),
    )


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
    rr_rule: RRRule = "identify"
    steps_rule: StepsRule = "paired"
    groups: dict[str, dict[float, FaultMetrics]]
    order: list[str] = Field(default_factory=list)
    """Agents in the order they first appear in the input (the runs as given): Table 4's rows."""
    steps: dict[str, dict[float, PairedSteps]] = Field(default_factory=dict)
    """Per agent and δ > 0: mean steps over the attempts completed at δ = 0 and at δ (Table 5, paired)."""
    ghost_calls: dict[str, GhostCounts] = {}
    """Per agent: calls to tools that were not listed at reset (Appendix N (7), beyond the paper)."""

    def agents(self) -> list[str]:
        return sorted(self.groups)

    def at(self, agent: str, delta: float) -> FaultMetrics | None:
        return self.groups.get(agent, {}).get(delta)


def fault_report(
    trajectories: Iterable[Trajectory],
    *,
    table_delta: float = 0.3,
    ufr_step_limit: bool = False,
    rr_rule: RRRule = "identify",
    steps_rule: StepsRule = "paired",
) -> FaultReport:
    """Every (agent, δ) group's metrics; ``ufr_step_limit`` counts hitting the step limit towards UFR;
    ``rr_rule`` is the R_i rule; ``steps_rule`` Table 5's (``paired`` or ``all``)."""
    grouped: dict[str, dict[float, list[Trajectory]]] = defaultdict(lambda: defaultdict(list))
    by_agent: dict[str, list[Trajectory]] = defaultdict(list)
    for t in trajectories:
        grouped[agent_of(t)][delta_of(t)].append(t)
        by_agent[agent_of(t)].append(t)
    groups = {
        a: {d: fault_metrics(ts, ufr_step_limit=ufr_step_limit, rr_rule=rr_rule) for d, ts in sorted(by_d.items())}
        for a, by_d in grouped.items()
    }
    steps = {
        a: {d: paired_steps(by_d.get(0.0, []), ts) for d, ts in sorted(by_d.items()) if d > 0}
        for a, by_d in grouped.items()
    }
    ghosts = {a: ghost_calls_in_trajectories(ts) for a, ts in sorted(by_agent.items())}
    return FaultReport(
        table_delta=table_delta,
        ufr_counts_step_limit=ufr_step_limit,
        rr_rule=rr_rule,
        steps_rule=steps_rule,
        groups=groups,
        order=list(grouped),
        steps=steps,
        ghost_calls=ghosts,
    )
