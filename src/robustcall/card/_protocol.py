"""The card's protocol: what one ``robustcall card`` runs, fixed and versioned per budget.

A card is comparable with another card of the same ``PROTOCOL_VERSION`` and budget only; any change
to what is run (sources, sample counts, environments, tasks, levels, δ, step limits, seeds) bumps the
version, which ``card.json`` records."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from robustcall.core import FAULT_CLASSES, FaultClass

PROTOCOL_VERSION = "card-1"

Budget = Literal["quick", "paper"]
BUDGETS: tuple[Budget, ...] = ("quick", "paper")

PipeLevel = Literal["origin", "synonym", "symbol", "dual"]
PIPE_PLAN: tuple[tuple[PipeLevel, Literal[1, 2]], ...] = (
    ("origin", 1),
    ("synonym", 1),
    ("symbol", 1),
    ("dual", 1),
    ("dual", 2),
)
"""PIPE's four levels, the dual interface in both orders (Appendix F's counterbalancing)."""

FAULT_DELTA = 0.3
"""Table 1's rate: the one δ a card injects at."""


@dataclass(frozen=True)
class Protocol:
    """Everything a card runs, for one budget."""

    budget: Budget
    tc_sources: tuple[str, ...]
    """RobustBench-TC's sources (``paper``: the five of Table 3, which need ``--data-dir``)."""
    tc_clean: int | None
    """Clean samples drawn per source, stratified over its categories with ``seed`` (``None``: the
    paper's default build, Table 3's slice)."""
    tc_composition: Literal["paper", "all"]
    min_records_per_type: int
    """Records every one of the 22 types (and Clean) must have; a build with fewer is refused."""
    envs: tuple[str, ...]
    """The two environments PIPE and fault injection run on (no data download needed)."""
    tasks: int | None
    """Tasks per environment (the first N of the environment's list; ``None``: all of them)."""
    max_steps: int
    """Step limit of a PIPE episode."""
    fault_max_steps: int
    """Step limit T of a fault-injection episode."""
    fault_classes: tuple[FaultClass, ...] = FAULT_CLASSES
    """One fault run per class (its built-in profile, Table 2's columns), each at ``FAULT_DELTA``."""
    fault_seeds: tuple[int, ...] = (0,)
    env_format: Literal["json"] = "json"
    """Prompt-mode action format of the episodes (the local model copies the ``tool_call`` example's
    placeholder instead of calling; docs/pipe.md)."""
    seed: int = 0

    @property
    def version(self) -> str:
        return PROTOCOL_VERSION


PROTOCOLS: dict[Budget, Protocol] = {
    "quick": Protocol(
        budget="quick",
        tc_sources=("bfcl",),
        tc_clean=20,
        tc_composition="all",
        min_records_per_type=20,
        envs=("maze", "textcraft"),
        tasks=3,
        max_steps=15,
        fault_max_steps=10,
    ),
    "paper": Protocol(
        budget="paper",
        tc_sources=("bfcl", "apibank", "rotbench", "toolalpaca", "tooleyes"),
        tc_clean=None,
        tc_composition="paper",
        min_records_per_type=102,
        envs=("maze", "textcraft"),
        tasks=None,
        max_steps=30,
        fault_max_steps=10,
    ),
}
"""The budgets: ``quick`` (BFCL from the wheel, 20 clean samples stratified by category with every
type on each: 20 records a type, 460 in all; the first 3 tasks of each environment, step limit 15
under PIPE and 10 under faults) and ``paper`` (the default 3,721-record build of the five sources,
every task, step limit 30 under PIPE and 10 under faults, the commands' defaults)."""
