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

CLEAN = TypeInfo("clean", "Clean", "clean")
TYPES: dict[str, TypeInfo] = {t.code: t for t in (CLEAN, *TAXONOMY)}
STATIC_TYPES: tuple[str, ...] = tuple(t.code for t in TAXONOMY if t.component != "transition")
TRANSITION_TYPES: tuple[str, ...] = tuple(t.code for t in TAXONOMY if t.component == "transition")


def type_info(code: str) -> TypeInfo:
    """Look up a type by code name or display name; unknown names list the valid ones."""
    if code in TYPES:
        return TYPES[code]
    for t in TYPES.values():
        if t.display == code:
            return t
    raise UnknownNameError(f"unknown perturbation type {code!r}; valid: {', '.join(TYPES)}")
