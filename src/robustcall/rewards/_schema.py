"""R_schema (ToolRM §5.3.2): +1 when every predicted call validates against the tool specifications,
-1 on any schema violation. Also the rule baseline "schema validation" of FC-RewardBench and Best-of-n.
"""

from __future__ import annotations

from typing import Any

from robustcall.core import ToolCall, ToolSpec

_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "float": (int, float),
    "boolean": (bool,),
    "array": (list, tuple),
    "tuple": (list, tuple),
    "object": (dict,),
    "dict": (dict,),
}


def _type_ok(value: Any, schema: Any) -> bool:
    if not isinstance(schema, dict):
        return True
    declared = schema.get("type")
    names = declared if isinstance(declared, list) else [declared]
    allowed = [_JSON_TYPES[n] for n in names if isinstance(n, str) and n in _JSON_TYPES]
    if not allowed:
        return True  # an unknown or absent type (BFCL's "any") accepts everything
    if isinstance(value, bool) and "boolean" not in names:
        return False  # bool is an int in Python, never in JSON schema
    return any(isinstance(value, t) for t in allowed)


def schema_violations(calls: list[ToolCall], tools: list[ToolSpec]) -> list[str]:
    """Every way ``calls`` break ``tools``: unknown name, missing required, unexpected or mistyped
    parameter, a value outside ``enum``. An empty call list is a violation (nothing to validate)."""
    if not calls:
        return ["no tool call"]
    by_name = {t.name: t for t in tools}
    problems: list[str] = []
    for call in calls:
        spec = by_name.get(call.name)
        if spec is None:
            problems.append(f"{call.name}: unknown function")
            continue
        props = spec.properties()
        for req in spec.required():
            if req not in call.arguments:
                problems.append(f"{call.name}: missing required parameter {req!r}")
        for key, value in call.arguments.items():
            if key not in props:
                problems.append(f"{call.name}: unexpected parameter {key!r}")
            elif not _type_ok(value, props[key]):
                problems.append(f"{call.name}: parameter {key!r} has the wrong type")
            elif isinstance(props[key], dict) and "enum" in props[key] and value not in props[key]["enum"]:
                problems.append(f"{call.name}: parameter {key!r} is not one of its enum values")
    return problems


def schema_reward(calls: list[ToolCall] | None, tools: list[ToolSpec]) -> float:
    """R_schema ∈ {-1, 1}; ``None`` (unparseable output) is a violation."""
    return -1.0 if calls is None or schema_violations(calls, tools) else 1.0
