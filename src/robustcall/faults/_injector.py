"""Fault injection between the agent and the tool back-end.

A RobustBench-TC transition perturbation is the special case of a fault profile with injection
probability 1 at the first tool call and one fixed message; the fault-injection system reuses
this injector with richer profiles.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from robustcall.core import ToolCall
from robustcall.faults._transition import TRANSITION_MESSAGES


@dataclass(frozen=True)
class InjectedFault:
    """One injection decision, logged so a run can be replayed exactly."""

    step: int
    tool: str
    fault_type: str
    observation: str


@dataclass
class FaultInjector:
    """Decide, call by call, whether a tool result is replaced by a synthesised fault.

    ``messages`` maps fault type -> observation text; ``rate`` is the global injection
    probability δ; ``first_call_only`` restricts injection to step 0 (the transition harness).
    """

    messages: dict[str, str]
    rate: float = 1.0
    first_call_only: bool = False
    seed: int = 0
    log: list[InjectedFault] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.messages:
            raise ValueError("a fault injector needs at least one fault type")
        if not 0.0 <= self.rate <= 1.0:
            raise ValueError(f"injection rate must be in [0, 1], got {self.rate}")
        self._rng = random.Random(self.seed)
        self._types = sorted(self.messages)

    def maybe_inject(self, step: int, call: ToolCall) -> InjectedFault | None:
        """The fault replacing this call's result, or ``None`` to execute it normally."""
        if self.first_call_only and step != 0:
            return None
        # Draw both numbers every time so decisions do not depend on earlier outcomes.
        roll = self._rng.random()
        pick = self._types[self._rng.randrange(len(self._types))]
        if roll >= self.rate:
            return None
        fault = InjectedFault(step=step, tool=call.name, fault_type=pick, observation=self.messages[pick])
        self.log.append(fault)
        return fault


def transition_injector(type_code: str) -> FaultInjector:
    """The injector of one transition type: δ = 1 at the first call, the Appendix G message."""
    if type_code not in TRANSITION_MESSAGES:
        raise KeyError(f"unknown transition type {type_code!r}; valid: {', '.join(TRANSITION_MESSAGES)}")
    return FaultInjector({type_code: TRANSITION_MESSAGES[type_code]}, rate=1.0, first_call_only=True)
