"""Fault decisions: with probability δ a call is intercepted and a type is drawn from λ (Algorithm 1).

Every decision uses its own random stream derived from (profile seed, episode key, call index),
so a decision never depends on earlier outcomes: the same agent actions meet the same faults,
different agents meet the same draws at the same call (paired comparisons), and a logged run
replays exactly. A RobustBench-TC transition perturbation is the special case δ = 1 at call 0 with
one fixed-message type.
"""

from __future__ import annotations

import random
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from robustcall.core import TRANSITION_MESSAGES, FaultClass, FaultType, ToolCall, seeded_rng
from robustcall.faults._profile import FaultProfile


class InjectedFault(BaseModel):
    """One injection, logged so a run can be replayed and analysed (``Step.fault`` holds its dump)."""

    model_config = ConfigDict(extra="forbid")

    step: int
    """Index of the intercepted call within the episode (0-based)."""
    tool: str
    """The tool the agent called (as it wrote it)."""
    fault_type: str
    fault_class: FaultClass
    transient: bool
    observation: str
    """What the agent was shown instead of (or in place of) the real result."""
    executed: bool = False
    """The call ran in the environment (semantic anomalies corrupt a real result)."""
    requested: str | None = None
    """The type drawn from λ when a different one had to be applied (an anomaly that did not fit)."""
    repeat_of: int | None = None
    """A persisting fault met again: the step of the original injection (not a new draw; excluded from N)."""
    persists: bool = False
    """The fault stays for the rest of the episode within its scope (non-stationarity always; 404 / 401 /
    403 under a sticky profile; the prerequisite and type-mismatch axes): an identical call meets it again."""
    detail: dict[str, Any] = Field(default_factory=dict)
    """Type-specific facts: the renamed parameter, the newly required one, the real result's length."""


def synthesise(ftype: FaultType, tool: str) -> str:
    """The observation of a ``replace`` fault (fixed message, or a template naming the tool)."""
    if ftype.message is not None:
        return ftype.message
    templates = {
        "http_404": "HTTP 404 Not Found. The remote endpoint has no resource matching the request to `{tool}`.",
        "http_403": (
            "HTTP 403 Forbidden. The provider rejected the call because the supplied credentials "
            "lack permission to use `{tool}`."
        ),
        "http_503": (
            "HTTP 503 Service Unavailable. The remote endpoint is temporarily overloaded or down for maintenance."
        ),
        "tool_deprecated": (
            "HTTP 410 Gone. The tool `{tool}` has been deprecated and removed; it is no longer available."
        ),
    }
    if ftype.code not in templates:
        raise ValueError(f"fault type {ftype.code!r} has no synthesised observation")
    return templates[ftype.code].format(tool=tool)


class FaultInjector:
    """Draws decisions for one episode (``key`` names it) and keeps the log of injections."""

    def __init__(self, profile: FaultProfile, *, key: str = "") -> None:
        self.profile = profile
        self.key = key
        self.log: list[InjectedFault] = []

    def draw(self, index: int, tool: str) -> tuple[FaultType | None, random.Random]:
        """The type injected at call ``index`` of ``tool`` (``None``: run it), and the stream for synthesis."""
        rng = seeded_rng(self.profile.seed, self.key, str(index))
        roll, pick = rng.random(), rng.random()  # both drawn always: decisions stay aligned
        allowed = self.profile.at_calls is None or index in self.profile.at_calls
        if not allowed or roll >= self.profile.rate_for(tool):
            return None, rng
        acc = 0.0
        weights = self.profile.weights_for(tool)
        for code, p in weights:
            acc += p
            if pick < acc:
                return self.profile.fault_type(code), rng
        return self.profile.fault_type(weights[-1][0]), rng

    def maybe_inject(self, step: int, call: ToolCall) -> InjectedFault | None:
        """The replacing fault for a stateless caller (``replace`` types only), or ``None`` to execute."""
        ftype, _ = self.draw(step, call.name)
        if ftype is None:
            return None
        if ftype.effect != "replace":
            raise ValueError(f"{ftype.code} needs the stateful FaultSession (it is a {ftype.effect} fault)")
        fault = InjectedFault(
            step=step,
            tool=call.name,
            fault_type=ftype.code,
            fault_class=ftype.fault_class,
            transient=ftype.transient,
            observation=synthesise(ftype, call.name),
        )
        self.log.append(fault)
        return fault


def fixed_profile(messages: dict[str, str], *, delta: float, seed: int = 0, name: str = "fixed") -> FaultProfile:
    """A profile of fixed-message execution errors, uniform λ (messages: type -> observation)."""
    return FaultProfile.model_validate(
        {
            "name": name,
            "delta": delta,
            "seed": seed,
            "faults": dict.fromkeys(messages, 1.0),
            "custom": {code: {"class": "execution", "message": msg} for code, msg in messages.items()},
        }
    )


def transition_injector(type_code: str) -> FaultInjector:
    """The injector of one transition type: δ = 1 at the first call, the Appendix G message."""
    if type_code not in TRANSITION_MESSAGES:
        raise KeyError(f"unknown transition type {type_code!r}; valid: {', '.join(TRANSITION_MESSAGES)}")
    profile = FaultProfile(name=type_code, delta=1.0, faults={type_code: 1.0}, at_calls=[0])
    return FaultInjector(profile, key=type_code)
