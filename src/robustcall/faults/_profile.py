"""Fault profiles P = (F, λ, δ): which failure types, how likely each is, and how often to inject.

A profile file (YAML or JSON)::

    name: flaky-search
    delta: 0.3                  # δ, the global injection rate
    seed: 0
    faults:                     # F and λ: weights, normalised on use
      http_503: 2
      timeout: 1
      empty_result: 1
      tool_deprecated: 0.5
    tools:                      # per-tool overrides: a "flaky" tool
      search:
        delta: 0.9
        faults: {http_503: 1}
    custom:                     # your own fixed-message types
      vendor_quota:
        class: execution
        transient: true
        message: "Quota exceeded for project 1234."

``at_calls`` restricts injection to the listed call indexes of an episode (the transition harness
injects at call 0 only). Algorithm 1's Bernoulli(δ) draw decides on every call whether a fault is
injected; non-stationarity, once injected, persists for the episode; ``sticky: true`` makes the
permanent execution errors persist too (see ``FaultProfile.sticky``).
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from robustcall.core import FAULT_TYPES, FaultClass, FaultType, InputError, MissingInputError, load_config_file


class CustomFault(BaseModel):
    """A user-defined type with a fixed observation (its call is not executed)."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    fault_class: FaultClass = Field(alias="class")
    transient: bool = True
    message: str


class ToolOverride(BaseModel):
    """Per-tool δ and/or λ (unset fields fall back to the profile's)."""

    model_config = ConfigDict(extra="forbid")

    delta: float | None = Field(default=None, ge=0.0, le=1.0)
    faults: dict[str, float] | None = None


class FaultProfile(BaseModel):
    """P = (F, λ, δ) plus per-tool overrides and a seed."""

    model_config = ConfigDict(extra="forbid")

    name: str = "custom"
    delta: float = Field(default=0.3, ge=0.0, le=1.0)
    """δ: probability that a tool call is intercepted."""
    faults: dict[str, float]
    """F with λ: fault type -> weight (normalised on use; drawn in sorted code order, so a file's
    key order never changes a draw)."""
    tools: dict[str, ToolOverride] = Field(default_factory=dict)
    custom: dict[str, CustomFault] = Field(default_factory=dict)
    at_calls: list[int] | None = None
    """Inject only at these call indexes of an episode (``None``: any call)."""
    seed: int = 0
    sticky: bool = False
    """The permanent execution errors persist without a new draw: a 404 answers the same call again,
    401 / 403 answer every later call of the tool. ``False`` (the default): they are observations of
    the call they were drawn for. Either way ``inject_fault ~ Bernoulli(δ)`` is drawn on every call
    (Algorithm 1) and non-stationarity, once injected, persists for the episode (§3.1: the tool
    "becomes permanently unavailable", the "specification changes")."""

    @model_validator(mode="after")
    def _check(self) -> FaultProfile:
        clash = sorted(set(self.custom) & set(FAULT_TYPES))
        if clash:
            raise InputError(f"custom fault types shadow built-in ones: {', '.join(clash)}")
        self._check_weights(self.faults, "faults")
        for tool, over in self.tools.items():
            if over.faults is not None:
                self._check_weights(over.faults, f"tools.{tool}.faults")
        return self

    def _check_weights(self, weights: dict[str, float], where: str) -> None:
        unknown = [c for c in weights if c not in FAULT_TYPES and c not in self.custom]
        if unknown:
            raise InputError(
                f"{where}: unknown fault type(s) {', '.join(unknown)}; valid: {', '.join([*FAULT_TYPES, *self.custom])}"
            )
        if any(w < 0 for w in weights.values()) or sum(weights.values()) <= 0:
            raise InputError(f"{where}: weights must be >= 0 with a positive sum")

    def fault_type(self, code: str) -> FaultType:
        """The built-in or custom type ``code``."""
        if code in self.custom:
            c = self.custom[code]
            return FaultType(code, c.fault_class, c.transient, "replace", "custom", "none", c.message)
        return FAULT_TYPES[code]

    def rate_for(self, tool: str) -> float:
        """δ for calls of ``tool`` (its override, else the global rate)."""
        over = self.tools.get(tool)
        return over.delta if over is not None and over.delta is not None else self.delta

    def weights_for(self, tool: str) -> list[tuple[str, float]]:
        """λ for calls of ``tool``: normalised ``(code, probability)`` pairs in code order, positive weights only."""
        over = self.tools.get(tool)
        weights = over.faults if over is not None and over.faults is not None else self.faults
        total = sum(weights.values())
        return [(code, weights[code] / total) for code in sorted(weights) if weights[code] > 0]

    def with_delta(self, delta: float) -> FaultProfile:
        """The same profile at global rate ``delta`` (per-tool overrides kept)."""
        return self.model_validate({**self.model_dump(by_alias=True), "delta": delta})

    def classes(self) -> set[FaultClass]:
        """The taxonomy classes this profile can inject."""
        codes = set(self.faults) | {c for o in self.tools.values() for c in (o.faults or {})}
        return {self.fault_type(c).fault_class for c in codes}


BUILTIN_PROFILES = ("default", "execution", "semantic", "nonstationary", "transient", "permanent")


def load_profile(spec: str | Path) -> FaultProfile:
    """A profile from a YAML/JSON file, or a built-in by name (``default``, ``execution``, ...)."""
    path = Path(spec)
    data: Any
    if path.is_file():
        data = load_config_file(path)  # one-line errors naming file, line and column
        where = str(path)
    elif str(spec) in BUILTIN_PROFILES:
        text = resources.files("robustcall.faults").joinpath(f"profiles/{spec}.yaml").read_text(encoding="utf-8")
        data = yaml.safe_load(text)
        where = f"built-in profile {spec}"
    else:
        raise MissingInputError(f"no profile file {spec!r}; built-in profiles: {', '.join(BUILTIN_PROFILES)}")
    if not isinstance(data, dict):
        raise InputError(f"{where}: a profile is a mapping with at least `faults`")
    try:
        return FaultProfile.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = ".".join(str(p) for p in first["loc"]) or "<profile>"
        raise InputError(f"{where}: field {loc}: {first['msg']}") from None
