"""The deterministic error-type classifier: which Table 1 type an incorrect output is.

Rules, in order (the first that applies wins):

1. the text holds no readable call sequence -> ``Incorrect output format`` (when it looks like an
   attempted call: it has a bracket, brace or parenthesis) or ``Incorrect number of functions``
   (plain prose: zero calls where calls were due);
2. the call count differs from the gold count -> ``Incorrect number of functions``;
3. the multiset of called names differs from the gold names -> ``Incorrect Function Name``;
4. calls are paired with gold calls of the same name (each gold call, in gold order, takes the first
   unpaired call that passes it, else the first unpaired call of that name); the first failing pair,
   checked by the BFCL AST checker's single-call rules, gives the type of its first failure:
   missing required -> ``Missing Required Parameter``, unexpected -> ``Unexpected Parameter``, a type
   error -> ``Incorrect Parameter Type``, a possible-answer parameter left out that the schema does
   not require -> ``Missing Optional Parameter``, any value error -> ``Incorrect Parameter Value``.

An output that passes every pair (possible only when the caller's scorer has a rule ours lacks)
returns ``None``.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from robustcall.core import GoldenAnswer, ToolCall, ToolSpec
from robustcall.rewards._output import output_calls
from robustcall.rewards._types import ErrorType
from robustcall.score import BfclChecker

_CHECKER_TYPES: tuple[tuple[str, ErrorType], ...] = (
    ("simple_function_checker:missing_required", "Missing Required Parameter"),
    ("simple_function_checker:unexpected_param", "Unexpected Parameter"),
    ("simple_function_checker:missing_optional", "Missing Optional Parameter"),
    ("simple_function_checker:wrong_func_name", "Incorrect Function Name"),
    ("type_error", "Incorrect Parameter Type"),
)


def _acceptable(gold: GoldenAnswer) -> GoldenAnswer:
    """A gold call with BFCL's possible-answer form (each canonical value the only acceptable one)."""
    if gold.acceptable is not None:
        return gold
    return gold.model_copy(update={"acceptable": {k: [v] for k, v in gold.parameters.items()}})


def _checker_type(error: str) -> ErrorType:
    for prefix, kind in _CHECKER_TYPES:
        if error.startswith(prefix):
            return kind
    return "Incorrect Parameter Value"


def _pair_error(tools: list[ToolSpec], call: ToolCall, gold: GoldenAnswer) -> str | None:
    return BfclChecker("simple", tools, [gold]).check([(call.name, call.arguments)])


def classify_calls(calls: list[ToolCall], golden: list[GoldenAnswer], tools: list[ToolSpec]) -> ErrorType | None:
    """Rules 2-4 on already parsed ``calls``."""
    if len(calls) != len(golden):
        return "Incorrect number of functions"
    if Counter(c.name for c in calls) != Counter(g.name for g in golden):
        return "Incorrect Function Name"
    golds = [_acceptable(g) for g in golden]
    free = list(range(len(calls)))
    pairs: list[tuple[ToolCall, GoldenAnswer]] = []
    for gold in golds:
        same = [i for i in free if calls[i].name == gold.name]
        passing = [i for i in same if _pair_error(tools, calls[i], gold) is None]
        pick = (passing or same)[0]
        free.remove(pick)
        pairs.append((calls[pick], gold))
    for call, gold in pairs:
        err = _pair_error(tools, call, gold)
        if err is not None:
            return _checker_type(err)
    return None


def _looks_like_call(text: str) -> bool:
    return any(ch in text for ch in "[{(")


def classify_error(
    output: str, golden: list[GoldenAnswer], tools: list[ToolSpec], calls: list[ToolCall] | None = None
) -> ErrorType | None:
    """The Table 1 type of an incorrect ``output`` against ``golden`` (``calls``: already parsed)."""
    if calls is None:
        calls = output_calls(output, tools)
    if calls is None:
        return "Incorrect output format" if _looks_like_call(output) else "Incorrect number of functions"
    return classify_calls(calls, golden, tools)


def golden_of(calls: list[ToolCall]) -> list[GoldenAnswer]:
    """Gold answers from a correct call sequence (each value the only acceptable one)."""
    out: list[GoldenAnswer] = []
    for c in calls:
        params: dict[str, Any] = dict(c.arguments)
        out.append(GoldenAnswer(name=c.name, parameters=params, acceptable={k: [v] for k, v in params.items()}))
    return out
