"""The failure taxonomy (§3.1): three classes, each with concrete, named members.

Every member says whether it is *transient* (an identical retry may succeed) or *permanent*
(an identical retry fails the same way), and what the injector does with the call:

- ``replace``: the call is not executed; a synthesised observation is returned (Algorithm 1).
- ``transform``: the call is executed and its real result is corrupted (a semantic anomaly:
  "the tool executes successfully but returns a result that is malformed or contextually invalid").
- ``interface``: the environment's interface changes from this call on (non-stationarity); the
  call that triggers the change is not executed.

Permanent faults are sticky with a ``scope``: ``call`` (the same tool with the same arguments fails
again, e.g. a 404 for a missing resource), ``tool`` (every later call of the tool fails, e.g. revoked
credentials or a deprecated tool) or ``interface`` (calls written against the old interface fail,
calls written against the new one run).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from robustcall.core import UnknownNameError
from robustcall.faults._transition import TRANSITION_MESSAGES

FaultClass = Literal["execution", "semantic", "nonstationary"]
"""The three primary classes of the taxonomy (Table 2's columns)."""

FAULT_CLASSES: tuple[FaultClass, ...] = ("execution", "semantic", "nonstationary")
CLASS_DISPLAY: dict[FaultClass, str] = {
    "execution": "Execution Errors",
    "semantic": "Semantic Anomalies",
    "nonstationary": "Env. Non-Stationarity",
}

Effect = Literal["replace", "transform", "interface"]
Scope = Literal["none", "call", "tool", "interface"]


@dataclass(frozen=True)
class FaultType:
    """One member of the taxonomy."""

    code: str
    """Name used in profiles and logs, e.g. ``http_404``."""
    fault_class: FaultClass
    transient: bool
    effect: Effect
    description: str
    scope: Scope = "none"
    """Where a permanent fault sticks (``none`` for transient faults)."""
    message: str | None = None
    """A fixed observation (``None``: synthesised from the call and, for anomalies, its real result)."""


def _execution(
    code: str, transient: bool, description: str, scope: Scope = "none", msg: str | None = None
) -> FaultType:
    return FaultType(code, "execution", transient, "replace", description, scope, msg)


_MEMBERS: list[FaultType] = [
    # Execution errors: interface-level failures; the call never runs.
    _execution("http_404", False, "HTTP 404 Not Found: the requested resource does not exist", "call"),
    _execution(
        "http_401",
        False,
        "HTTP 401 Unauthorized: invalid or expired credentials",
        "tool",
        TRANSITION_MESSAGES["transient_auth_error"],
    ),
    _execution("http_403", False, "HTTP 403 Forbidden: the credentials lack permission", "tool"),
    _execution(
        "http_429", True, "HTTP 429 Too Many Requests: rate limited", msg=TRANSITION_MESSAGES["transient_rate_limit"]
    ),
    _execution("http_500", True, "HTTP 500 Internal Server Error", msg=TRANSITION_MESSAGES["transient_server_error"]),
    _execution("http_503", True, "HTTP 503 Service Unavailable: overloaded or down for maintenance"),
    _execution("timeout", True, "the request timed out", msg=TRANSITION_MESSAGES["transient_timeout"]),
    # Semantic anomalies: the call runs; its result is corrupted.
    FaultType("empty_result", "semantic", True, "transform", "an empty result ({}, [] or an empty body)"),
    FaultType("malformed_body", "semantic", True, "transform", "a truncated body that is no longer valid JSON"),
    FaultType("implausible_value", "semantic", True, "transform", "a number made implausible (a negative price)"),
    FaultType("wrong_type", "semantic", True, "transform", "a field of the wrong type (a number sent as a string)"),
    FaultType("plausible_wrong", "semantic", True, "transform", "a plausible but wrong value with a valid schema"),
    # Environmental non-stationarity: the interface changes for the rest of the episode.
    FaultType(
        "tool_deprecated",
        "nonstationary",
        False,
        "interface",
        "the tool is deprecated and gone for the rest of the episode",
        "tool",
    ),
    FaultType(
        "param_renamed",
        "nonstationary",
        False,
        "interface",
        "a parameter is renamed; calls with the old name are rejected",
        "interface",
    ),
    FaultType(
        "param_required",
        "nonstationary",
        False,
        "interface",
        "a newly required parameter; calls without it are rejected",
        "interface",
    ),
]

# The six RobustBench-TC transition errors are fixed-message members too (one injector for both).
_TRANSITION_CLASS: dict[str, FaultClass] = {
    "transient_timeout": "execution",
    "transient_rate_limit": "execution",
    "transient_auth_error": "execution",
    "transient_server_error": "execution",
    "transient_malformed_response": "semantic",
    "transient_schema_drift": "semantic",
}
_MEMBERS += [
    FaultType(code, _TRANSITION_CLASS[code], True, "replace", f"RobustBench-TC transition error {code}", "none", msg)
    for code, msg in TRANSITION_MESSAGES.items()
]

FAULT_TYPES: dict[str, FaultType] = {t.code: t for t in _MEMBERS}
"""Every built-in fault type by code."""

TAXONOMY_TYPES: tuple[str, ...] = tuple(t.code for t in _MEMBERS if not t.code.startswith("transient_"))
"""The taxonomy members proper (the transition errors excluded), in a fixed order."""


def fault_type(code: str) -> FaultType:
    """The built-in type ``code``; a clear error lists the valid codes."""
    try:
        return FAULT_TYPES[code]
    except KeyError:
        raise UnknownNameError(f"unknown fault type {code!r}; valid: {', '.join(FAULT_TYPES)}") from None
