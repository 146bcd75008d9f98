"""BFCL's AST checker, re-implemented rule for rule (upstream ``ast_checker.py``, bfcl-eval 2026.3.23).

The rules, as upstream applies them to Python categories:

- dispatch on the category name: ``parallel`` in it -> order-free matching, each gold call (in gold
  order) takes the first still-unmatched call that passes (greedy, as upstream); ``multiple`` in it
  -> same count as gold, then the first call against the first gold call; otherwise exactly one
  call, checked against the sample's function;
- a call passes when: its name is the function's; every schema-required parameter is present; every
  given parameter is in the schema *and* in the possible answer; its type is the schema's (``int``
  accepted and converted for ``float``; a value of the possible answer's own type is a "variable"
  and then compared exactly); arrays check their items' type one level deep; dicts, lists of dicts,
  strings and lists compare after upstream's string standardisation (spaces and ``,./-_*^`` removed,
  lowercased, ``'`` -> ``"``); other values must be in the acceptable list (Python ``==``); and
  every possible-answer parameter without ``""`` in its list is present;
- irrelevance (no gold calls): correct iff there is no call.

Deliberate differences (none reachable from upstream's own decoder, see docs/scoring.md): schema
types upstream has no mapping for (``object``, ``number``...) are read as their JSON-schema meaning
instead of crashing, a gold function missing from the tool list fails the call instead of crashing,
and the tool of a single-call category is looked up by the gold name (upstream takes the first
tool; identical on BFCL's data, robust to perturbations that add or reorder tools).
"""

from __future__ import annotations

from typing import Any

from robustcall.core import GoldenAnswer, ToolCall, ToolSpec

_TYPES: dict[str, type] = {
    "string": str,
    "integer": int,
    "float": float,
    "boolean": bool,
    "array": list,
    "tuple": list,
    "dict": dict,
    "any": str,
    # not in upstream's table (it would raise KeyError): their JSON-schema / Python meaning
    "object": dict,
    "number": float,
    "str": str,
    "int": int,
    "bool": bool,
    "list": list,
}
_NESTED = frozenset({"array", "tuple"})
_STRIP = str.maketrans("", "", " ,./-_*^")


def standardize(s: str) -> str:
    """Upstream's ``standardize_string``: drop spaces and ``,./-_*^``, lowercase, ``'`` -> ``"``."""
    return s.translate(_STRIP).lower().replace("'", '"')


def check_bfcl(category: str, tools: list[ToolSpec], calls: list[ToolCall], golden: list[GoldenAnswer]) -> str | None:
    """``None`` when the calls pass, else upstream's ``error_type`` (e.g. ``value_error:string``)."""
    if not golden:
        return None if not calls else "irrelevance:called"
    try:
        if "parallel" in category:
            return _parallel(tools, calls, golden)
        if "multiple" in category:
            if len(calls) != len(golden):
                return "multiple_function_checker:wrong_count"
            return _check_call(_tool(tools, golden[0].name), calls[0], golden[0])
        if len(calls) != 1:
            return "simple_function_checker:wrong_count"
        tool = _tool(tools, golden[0].name) or (tools[0] if len(tools) == 1 else None)
        return _check_call(tool, calls[0], golden[0])
    except (TypeError, KeyError, AttributeError, IndexError) as exc:  # upstream would raise here
        return f"checker_error:{type(exc).__name__}"


def _tool(tools: list[ToolSpec], name: str) -> ToolSpec | None:
    return next((t for t in tools if t.name == name), None)


def _parallel(tools: list[ToolSpec], calls: list[ToolCall], golden: list[GoldenAnswer]) -> str | None:
    if len(calls) != len(golden):
        return "parallel_function_checker_no_order:wrong_count"
    matched: set[int] = set()
    for gold in golden:
        tool = _tool(tools, gold.name)
        for idx, call in enumerate(calls):
            if idx not in matched and _check_call(tool, call, gold) is None:
                matched.add(idx)
                break
        else:
            return "parallel_function_checker_no_order:cannot_find_match"
    return None


def acceptable_of(gold: GoldenAnswer) -> dict[str, Any]:
    """BFCL's possible-answer dict, or the canonical parameters as single acceptable values."""
    if gold.acceptable is not None:
        return gold.acceptable
    return {k: [v] for k, v in gold.parameters.items()}


def _check_call(tool: ToolSpec | None, call: ToolCall, gold: GoldenAnswer) -> str | None:
    if tool is None:
        return "simple_function_checker:gold_function_not_in_tools"
    if call.name != tool.name:
        return "simple_function_checker:wrong_func_name"
    answer = acceptable_of(gold)
    args = call.arguments
    schema = tool.parameters
    details: dict[str, Any] = schema.get("properties") or {}
    for param in schema.get("required") or []:
        if param not in args:
            return "simple_function_checker:missing_required"
    for param, value in args.items():
        if param not in details or param not in answer:
            return "simple_function_checker:unexpected_param"
        detail = details[param]
        type_name = detail["type"]
        expected = _TYPES[type_name]
        nested: type | None = None
        if type_name in _NESTED:
            items = detail.get("items")
            if isinstance(items, dict) and "type" in items:
                nested = _TYPES[items["type"]]
        if type(value) is tuple:
            value = list(value)
        if type_name == "float" and type(value) is int:
            value = float(value)
        accepted = answer[param]
        ok, is_variable = _type_check(value, accepted, expected, nested)
        if not ok:
            return "type_error:nested" if nested is not None and type(value) is expected else "type_error:simple"
        if not is_variable:
            err: str | None
            if expected is dict:
                err = _dict_check(value, accepted)
            elif expected is list and nested is dict:
                err = _list_dict_check(value, accepted)
            elif expected is str:
                err = _string_check(value, accepted)
            elif expected is list:
                err = _list_check(value, accepted)
            else:
                err = None if value in accepted else "value_error:others"
            if err is not None:
                return err
            continue
        if value not in accepted:
            return "value_error:others"
    for param, accepted in answer.items():
        if param not in args and "" not in accepted:
            return "simple_function_checker:missing_optional"
    return None


def _answer_type(accepted: Any) -> type | None:
    for a in accepted:
        if a != "":
            return type(a)
    return None


def _type_check(value: Any, accepted: Any, expected: type, nested: type | None) -> tuple[bool, bool]:
    """Upstream's ``type_checker``: (valid, is_variable)."""
    answer_type = _answer_type(accepted)
    is_variable = answer_type is not None and answer_type is not expected
    if type(value) is expected:
        if nested is None:
            return True, is_variable
        elements: Any = value
        for item in accepted:
            if type(item) is list and not all(_type_check(v, item, nested, None)[0] for v in elements):
                continue
            return True, is_variable
        return False, False
    if answer_type is not None and type(value) is answer_type:
        return True, True
    return False, False


def _std(x: Any) -> Any:
    return standardize(x) if type(x) is str else x


def _std_list(xs: Any) -> list[Any]:
    return [_std(xs[i]) for i in range(len(xs))]


def _string_check(value: str, accepted: Any) -> str | None:
    target = standardize(value)
    for a in accepted:
        if type(a) is str and standardize(a) == target:
            return None
    return "value_error:string"


def _list_check(value: list[Any], accepted: Any) -> str | None:
    mine = [_std(v) for v in value]
    if mine in [_std_list(a) for a in accepted]:
        return None
    return "value_error:list/tuple"


def _dict_check(value: dict[str, Any], accepted: Any) -> str | None:
    err = "dict_checker:unclear"
    for cand in accepted:
        if cand == "":
            continue
        err = "dict_checker:unclear"
        ok = True
        for key, v in value.items():
            if key not in cand:
                err, ok = "value_error:dict_key", False
                break
            if _std(v) not in _std_list(cand[key]):
                err, ok = "value_error:dict_value", False
                break
        for key, vals in cand.items():
            if key not in value and "" not in vals:
                err, ok = "value_error:dict_key", False
                break
        if ok:
            return None
    return err


def _list_dict_check(value: list[Any], accepted: Any) -> str | None:
    err: str | None = "list_dict_checker:unclear"
    for cand in accepted:
        if len(value) != len(cand):
            err = "value_error:list_dict_count"
            continue
        ok = True
        for j in range(len(value)):
            err = _dict_check(value[j], [cand[j]])
            if err is not None:
                ok = False
                break
        if ok:
            return None
    return err
