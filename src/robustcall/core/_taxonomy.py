"""The vocabularies the papers define, in one place: the 22 RobustBench-TC perturbation types (code
name, display name, POMDP component), the six transition errors' exact messages, and the
fault-injection taxonomy (fault classes and types).

Code names are the release's identifiers (Appendix D, Table 4); display names are the paper's
abbreviated identifiers (Table 1). ``robustcall.faults`` re-exports the fault vocabulary.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from robustcall.core._errors import UnknownNameError
from robustcall.core._model import Component


@dataclass(frozen=True)
class TypeInfo:
    code: str
    display: str
    component: Component
    beyond: bool = False
    """Beyond the paper: one of Appendix N's future axes, reported apart from the paper's 22."""


TAXONOMY: tuple[TypeInfo, ...] = (
    TypeInfo("realistic_typos", "Typo", "observation"),
    TypeInfo("query_paraphrase", "QueryPara", "observation"),
    TypeInfo("paraphrase_tool_description", "ToolPara", "observation"),
    TypeInfo("paraphrase_parameter_description", "ParamPara", "observation"),
    TypeInfo("same_name_A", "Dup-NoDesc", "action"),
    TypeInfo("same_name_B", "Dup-Desc", "action"),
    TypeInfo("same_name_C", "Dup-WrongP", "action"),
    TypeInfo("same_name_D", "Dup-DescWP", "action"),
    TypeInfo("same_name_E", "Dup-SwapDP", "action"),
    TypeInfo("redundant", "RedunTool", "action"),
    TypeInfo("CD", "MisDesc", "reward"),
    TypeInfo("TD", "TimeDesc", "reward"),
    TypeInfo("CD_NT", "MisDesc-N", "reward"),
    TypeInfo("TD_NT", "TimeDesc-N", "reward"),
    TypeInfo("CD_AB", "MisDesc-Abbr", "reward"),
    TypeInfo("TD_AB", "TimeDesc-Abbr", "reward"),
    TypeInfo("transient_timeout", "Timeout", "transition"),
    TypeInfo("transient_rate_limit", "RateLim", "transition"),
    TypeInfo("transient_auth_error", "AuthErr", "transition"),
    TypeInfo("transient_server_error", "5xxErr", "transition"),
    TypeInfo("transient_malformed_response", "Malform", "transition"),
    TypeInfo("transient_schema_drift", "SchemaD", "transition"),
)

BEYOND: tuple[TypeInfo, ...] = (
    # Appendix N (1), Reward ∩ Observation: listed under Reward, the component its verdict measures
    TypeInfo("fabricated_observation", "FabObs", "reward", beyond=True),
    TypeInfo("silent_noop", "NoOp", "reward", beyond=True),  # Appendix N (2)
    TypeInfo("context_pressure_2k", "Ctx-2k", "observation", beyond=True),  # Appendix N (3), three lengths
    TypeInfo("context_pressure_8k", "Ctx-8k", "observation", beyond=True),
    TypeInfo("context_pressure_32k", "Ctx-32k", "observation", beyond=True),
    TypeInfo("prompt_injection", "Inject", "observation", beyond=True),  # Appendix N (4)
    TypeInfo("ghost_tool", "GhostTool", "action", beyond=True),  # Appendix N (7), its static probe
)
"""Appendix N's static axes, beyond the paper: built with ``robustcall build --types beyond``, kept out of
Table 2. The runtime axes (stale resource, prerequisite dependency, parameter type mismatch) are fault
types of ``robustcall.faults``; ghost-tool calls are counted in every run kind by ``robustcall.metrics``."""

CLEAN = TypeInfo("clean", "Clean", "clean")
TYPES: dict[str, TypeInfo] = {t.code: t for t in (CLEAN, *TAXONOMY, *BEYOND)}
STATIC_TYPES: tuple[str, ...] = tuple(t.code for t in TAXONOMY if t.component != "transition")
TRANSITION_TYPES: tuple[str, ...] = tuple(t.code for t in TAXONOMY if t.component == "transition")
BEYOND_TYPES: tuple[str, ...] = tuple(t.code for t in BEYOND)


def type_info(code: str) -> TypeInfo:
    """Look up a type by code name or display name; unknown names list the valid ones."""
    if code in TYPES:
        return TYPES[code]
    for t in TYPES.values():
        if t.display == code:
            return t
    raise UnknownNameError(f"unknown perturbation type {code!r}; valid: {', '.join(TYPES)}")


# ---- The fault-injection taxonomy (§3.1) -------------------------------------------------------
# The failure taxonomy (§3.1): three classes, each with concrete, named members.
#
# Every member says whether it is *transient* (an identical retry may succeed) or *permanent*
# (an identical retry fails the same way), and what the injector does with the call:
#
# - ``replace``: the call is not executed; a synthesised observation is returned (Algorithm 1).
# - ``transform``: the call is executed and its real result is corrupted (a semantic anomaly:
#   "the tool executes successfully but returns a result that is malformed or contextually invalid").
# - ``interface``: the environment's interface changes from this call on (non-stationarity); the
#   call that triggers the change is not executed.
#
# Permanent faults are sticky with a ``scope``: ``call`` (the same tool with the same arguments fails
# again, e.g. a 404 for a missing resource), ``tool`` (every later call of the tool fails, e.g. revoked
# credentials or a deprecated tool) or ``interface`` (calls written against the old interface fail,
# calls written against the new one run).

TRANSITION_MESSAGES: dict[str, str] = {
    "transient_timeout": (
        "Tool execution timed out after the configured request timeout. "
        "The remote endpoint did not respond within the allotted time."
    ),
    "transient_rate_limit": (
        "HTTP 429 Too Many Requests. "
        "The provider rejected the call because the per-minute rate limit has been exceeded."
    ),
    "transient_auth_error": (
        "HTTP 401 Unauthorized. The provider rejected the call because the supplied credentials are invalid or expired."
    ),
    "transient_server_error": ("HTTP 500 Internal Server Error. The remote endpoint failed to handle the request."),
    "transient_malformed_response": ("Malformed response from tool execution: the body could not be parsed as JSON."),
    "transient_schema_drift": (
        "Schema validation failed: the response did not match the tool's declared output schema (extra/missing fields)."
    ),
}
"""The six RobustBench-TC transition errors' observations (Appendix G strings, verbatim)."""


FaultClass = Literal["execution", "semantic", "nonstationary"]
"""The three primary classes of the taxonomy (Table 2's columns)."""

FAULT_CLASSES: tuple[FaultClass, ...] = ("execution", "semantic", "nonstationary")
FAULT_CLASS_DISPLAY: dict[FaultClass, str] = {
    "execution": "Execution Errors",
    "semantic": "Semantic Anomalies",
    "nonstationary": "Env. Non-Stationarity",
}

FaultEffect = Literal["replace", "transform", "interface"]
FaultScope = Literal["none", "call", "tool", "interface"]


@dataclass(frozen=True)
class FaultType:
    """One member of the taxonomy."""

    code: str
    """Name used in profiles and logs, e.g. ``http_404``."""
    fault_class: FaultClass
    transient: bool
    effect: FaultEffect
    description: str
    scope: FaultScope = "none"
    """Where a permanent fault sticks (``none`` for transient faults)."""
    message: str | None = None
    """A fixed observation (``None``: synthesised from the call and, for anomalies, its real result)."""
    dead_end: bool = False
    """Once it persists (``InjectedFault.persists``), the episode offers no way past it: the tool is gone
    (deprecated, or refused tool-wide by a sticky 401 / 403) or the resource stays missing (a sticky 404),
    and the injector adds no replacement. Only after such a fault is stopping with an explanation a
    plausible subsequent action (R_i, §3.3; Table 6: Graceful Failure is "the desired behavior when
    recovery is impossible"). Every other type can be got past within the episode: a retry, an adapted
    call, a re-query or the missing prerequisite (docs/faults.md has the table)."""


def _execution(
    code: str, transient: bool, description: str, scope: FaultScope = "none", msg: str | None = None
) -> FaultType:
    # a permanent execution error that persists (sticky) is a dead end: the resource or the tool stays refused
    return FaultType(code, "execution", transient, "replace", description, scope, msg, dead_end=not transient)


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
        dead_end=True,
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
    FaultType(code, _TRANSITION_CLASS[code], True, "replace", msg, "none", msg)
    for code, msg in TRANSITION_MESSAGES.items()
]

FAULT_TYPES: dict[str, FaultType] = {t.code: t for t in _MEMBERS}
"""Every built-in fault type by code."""

FAULT_TAXONOMY_TYPES: tuple[str, ...] = tuple(t.code for t in _MEMBERS if not t.code.startswith("transient_"))
"""The taxonomy members proper (the transition errors excluded), in a fixed order."""


# Appendix N's runtime axes (``robustcall.faults.AxisEnv``)
Axis = Literal["stale_resource", "prerequisite", "prerequisite_error", "param_type_mismatch"]
AXES: tuple[Axis, ...] = ("stale_resource", "prerequisite", "prerequisite_error", "param_type_mismatch")

AXIS_FAULT_TYPES: dict[str, FaultType] = {
    "stale_resource": FaultType(
        "stale_resource", "semantic", True, "transform", "a read returns the state as it was before the last write"
    ),
    "prerequisite": FaultType(
        "prerequisite", "execution", False, "replace", "a write fails until `authenticate` has been called", "tool"
    ),
    "prerequisite_error": FaultType(
        "prerequisite_error",
        "execution",
        True,
        "replace",
        "the prerequisite `authenticate` returns an error the first time; writes fail until it succeeds",
    ),
    "param_type_mismatch": FaultType(
        "param_type_mismatch",
        "execution",
        False,
        "replace",
        "an argument of the wrong type is refused (HTTP 422)",
        "call",
    ),
}
"""The axes as fault types (for the logs and the recovery metrics); not drawn by the injector, so no
profile can name them: ``--axis`` turns them on."""

KNOWN_FAULT_TYPES: dict[str, FaultType] = {**FAULT_TYPES, **AXIS_FAULT_TYPES}
"""Every fault type a trajectory can carry: the injector's and the runtime axes' (what metrics look up)."""


def fault_type(code: str) -> FaultType:
    """The built-in or axis type ``code``; a clear error lists the valid codes."""
    try:
        return KNOWN_FAULT_TYPES[code]
    except KeyError:
        raise UnknownNameError(f"unknown fault type {code!r}; valid: {', '.join(KNOWN_FAULT_TYPES)}") from None
