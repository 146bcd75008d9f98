"""The 22 RobustBench-TC perturbation types: code name, display name, POMDP component.

Code names are the release's identifiers (Appendix D, Table 4); display names are the paper's
abbreviated identifiers (Table 1). This table is the one place these facts live.
"""

from __future__ import annotations

from dataclasses import dataclass

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
