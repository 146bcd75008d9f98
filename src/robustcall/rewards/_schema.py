"""R_schema (ToolRM §5.3.2): +1 when every predicted call validates against the tool specifications,
-1 on any schema violation. Also the rule baseline "schema validation" of FC-RewardBench and Best-of-n.

Validation is the ``jsonschema`` library's (draft 2020-12) over the same JSON-Schema translation of a
tool's parameters that fc mode sends (``models.tool_parameters``), with two readings of our own:
an argument the tool does not declare is a violation (``additionalProperties: false`` at the top),
and BFCL's ``any`` accepts every value.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from robustcall.core import ToolCall, ToolSpec
from robustcall.models import tool_parameters

if TYPE_CHECKING:
    import jsonschema


def call_schema(tool: ToolSpec) -> dict[str, Any]:
    """The JSON Schema a call's arguments must satisfy (undeclared arguments refused)."""
    schema = tool_parameters(tool.parameters, any_type=True)
    schema["additionalProperties"] = False
    return schema


def _where(error: jsonschema.ValidationError) -> str:
    path = [str(p) for p in error.absolute_path]
    return f" at {'.'.join(path)}" if path else ""


def _message(name: str, error: jsonschema.ValidationError) -> list[str]:
    if error.validator == "required" and not error.absolute_path:
        missing = error.message.split(" is a required property")[0]
        return [f"{name}: missing required parameter {missing}"]
    if error.validator == "additionalProperties" and not error.absolute_path and isinstance(error.instance, dict):
        declared = error.schema.get("properties", {}) if isinstance(error.schema, dict) else {}
        return [f"{name}: unexpected parameter {key!r}" for key in error.instance if key not in declared]
    if error.validator == "type":
        return [f"{name}: parameter{_where(error)} has the wrong type ({error.message})"]
    if error.validator == "enum":
        return [f"{name}: parameter{_where(error)} is not one of its enum values"]
    return [f"{name}:{_where(error)} {error.message}"]


def schema_violations(calls: list[ToolCall], tools: list[ToolSpec]) -> list[str]:
    """Every way ``calls`` break ``tools``: unknown name, missing required, unexpected or mistyped
    parameter, a value outside ``enum``, a nested value breaking its schema. An empty call list is a
    violation (nothing to validate)."""
    if not calls:
        return ["no tool call"]
    import jsonschema  # the `schema` extra, needed only when a check runs (the CLI names it when missing)

    by_name = {t.name: t for t in tools}
    problems: list[str] = []
    for call in calls:
        spec = by_name.get(call.name)
        if spec is None:
            problems.append(f"{call.name}: unknown function")
            continue
        validator = jsonschema.Draft202012Validator(call_schema(spec))
        try:
            errors = sorted(validator.iter_errors(call.arguments), key=lambda e: [str(p) for p in e.absolute_path])
        except (jsonschema.SchemaError, re.error) as exc:  # a malformed pattern or the like in the source's schema
            problems.append(f"{call.name}: its schema cannot be checked ({exc})")
            continue
        for error in errors:
            problems.extend(_message(call.name, error))
    return problems


def schema_reward(calls: list[ToolCall] | None, tools: list[ToolSpec]) -> float:
    """R_schema ∈ {-1, 1}; ``None`` (unparseable output) is a violation."""
    return -1.0 if calls is None or schema_violations(calls, tools) else 1.0
