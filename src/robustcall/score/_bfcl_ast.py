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
- Java and JavaScript categories (``simple_java``, ``simple_javascript``): a value must be a string
  (``type_error:java`` / ``type_error:js``), converted by BFCL's own converter for the schema type
  (imported from the wheel) and then checked by the rules above against the language's type table;
- irrelevance (no gold calls): correct iff there is no call; ``live_relevance`` (no gold calls either):
  correct iff there is at least one call (upstream's ``relevance_file_runner``).

Deliberate differences (none reachable from upstream's own decoder, see docs/scoring.md): schema
types upstream has no mapping for (``object``, ``number``...) are read as their JSON-schema meaning
instead of crashing, a gold function missing from the tool list fails the call instead of crashing,
and the tool of a single-call category is looked up by the gold name (upstream takes the first
tool; identical on BFCL's data, robust to perturbations that add or reorder tools).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any, Literal

from robustcall.core import GoldenAnswer, ToolCall, ToolSpec
from robustcall.sources import bfcl_module

Language = Literal["python", "java", "javascript"]
_CONVERTED_NESTED = frozenset({"Array", "ArrayList", "array"})
"""Upstream's ``NESTED_CONVERSION_TYPE_LIST``: Java / JavaScript types converted with their item type."""
_CONVERTERS = "bfcl_eval.eval_checker.ast_eval.type_convertor"


def language_of(category: str) -> Language:
    """Upstream's ``is_java`` / ``is_js`` on the category name."""
    if "javascript" in category:
        return "javascript"
    return "java" if "java" in category else "python"


@cache
def language_rules(language: Language) -> tuple[dict[str, type], Callable[..., Any]]:
    """BFCL's own type table and converter for Java or JavaScript, imported from the pinned wheel
    (pure Python: ``re`` and the table), so the conversion is upstream's, not a copy of it."""
    tables = bfcl_module("bfcl_eval.constants.type_mappings")
    if language == "java":
        module = bfcl_module(f"{_CONVERTERS}.java_type_converter")
        return tables.JAVA_TYPE_CONVERSION, module.java_type_converter
    module = bfcl_module(f"{_CONVERTERS}.js_type_converter")
    return tables.JS_TYPE_CONVERSION, module.js_type_converter


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


_STRIP_BYTES = b" ,./-_*^"


def standardize(s: str) -> str:
    """Upstream's ``standardize_string``: drop spaces and ``,./-_*^``, lowercase, ``'`` -> ``"``.

    ASCII text (nearly all) is stripped as bytes, where deleting characters is a C loop, about
    three times faster than ``str.translate`` with a table; the result is the same."""
    if s.isascii():
        return s.encode().translate(None, _STRIP_BYTES).decode().lower().replace("'", '"')
    return s.translate(_STRIP).lower().replace("'", '"')


Call = tuple[str, dict[str, Any]]
"""A call as the checker sees it: ``(name, arguments)``."""


def check_bfcl(category: str, tools: list[ToolSpec], calls: list[ToolCall], golden: list[GoldenAnswer]) -> str | None:
    """``None`` when the calls pass, else upstream's ``error_type`` (e.g. ``value_error:string``)."""
    return BfclChecker(category, tools, golden).check([(c.name, c.arguments) for c in calls])


class BfclChecker:
    """:func:`check_bfcl` for one sample, with the per-sample work (tool lookup, possible answers,
    schema types, standardised acceptable strings) done once and reused by every :meth:`check`.

    Parameter rules are prepared lazily, on the first call that reaches them, so that a sample
    checked once costs no more than the plain rules; a schema upstream would crash on (a missing or
    unknown ``type``) gives ``checker_error:<exception>`` at the same point as before.
    """

    __slots__ = ("_golds", "_mode", "_n")

    def __init__(self, category: str, tools: list[ToolSpec], golden: list[GoldenAnswer]) -> None:
        first: dict[str, ToolSpec] = {}
        for t in tools:
            first.setdefault(t.name, t)
        self._n = len(golden)
        self._mode = 0 if not golden else 1 if "parallel" in category else 2 if "multiple" in category else 3
        if category == "live_relevance":  # BFCL's relevance runner: right when any call is made
            self._mode = 4
        lang = language_of(category)
        golds = [_Gold(first.get(g.name), g, lang) for g in golden]
        if self._mode == 3 and golds[0].tool is None and len(tools) == 1:
            golds[0] = _Gold(tools[0], golden[0], lang)
        self._golds = golds

    def check(self, calls: list[Call]) -> str | None:
        """``None`` when ``calls`` pass, else upstream's ``error_type``."""
        mode = self._mode
        if mode == 0:
            return None if not calls else "irrelevance:called"
        if mode == 4:
            return None if calls else "relevance_error:decoder_failed"
        try:
            if mode == 1:
                return self._parallel(calls)
            if mode == 2:
                if len(calls) != self._n:
                    return "multiple_function_checker:wrong_count"
                return self._golds[0].check(calls[0])
            if len(calls) != 1:
                return "simple_function_checker:wrong_count"
            return self._golds[0].check(calls[0])
        except (TypeError, KeyError, AttributeError, IndexError, ValueError, NotImplementedError) as exc:
            return f"checker_error:{type(exc).__name__}"  # upstream would raise here

    def _parallel(self, calls: list[Call]) -> str | None:
        if len(calls) != self._n:
            return "parallel_function_checker_no_order:wrong_count"
        matched: set[int] = set()
        for gold in self._golds:
            for idx, call in enumerate(calls):
                if idx not in matched and gold.check(call) is None:
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


class _Param:
    """One parameter's rule: schema type, nested item type and its possible answers, prepared."""

    __slots__ = (
        "accepted",
        "answer_type",
        "convert",
        "expected",
        "is_float",
        "nested",
        "nested_ok",
        "std_lists",
        "std_strings",
        "variable",
    )

    def __init__(self, detail: Any, accepted: Any, language: Language = "python") -> None:
        type_name = detail["type"]
        self.convert: Callable[[str], Any] | None = None
        nested: type | None = None
        if language == "python":
            self.expected: type = _TYPES[type_name]
            self.is_float = type_name == "float"
            if type_name in _NESTED:
                items = detail.get("items")
                if isinstance(items, dict) and "type" in items:
                    nested = _TYPES[items["type"]]
        else:  # upstream: the value (source text) converted by BFCL's converter for the language
            table, converter = language_rules(language)
            self.expected = table[type_name]
            self.is_float = False
            if type_name in _CONVERTED_NESTED:
                item_type = detail["items"]["type"]
                nested = table[item_type]
                self.convert = lambda v: converter(v, type_name, item_type)
            else:
                self.convert = lambda v: converter(v, type_name)
        self.nested = nested
        self.accepted = accepted
        self.answer_type = _answer_type(accepted)
        # a value of the schema's type is a "variable" (compared exactly) when the answers are of another
        self.variable = self.answer_type is not None and self.answer_type is not self.expected
        # per acceptable value: the item types a list passes with (None: not a list, anything passes)
        self.nested_ok: list[frozenset[type] | None] | None = None
        if nested is not None:
            self.nested_ok = [
                frozenset(t for t in (nested, _answer_type(a)) if t is not None) if type(a) is list else None
                for a in accepted
            ]
        self.std_strings: frozenset[str] | None = None
        self.std_lists: list[list[Any]] | None = None

    def type_check(self, value: Any) -> tuple[bool, bool]:
        """Upstream's ``type_checker``: (valid, is_variable)."""
        answer_type = self.answer_type
        if type(value) is self.expected:
            is_variable = self.variable
            if self.nested_ok is None:
                return True, is_variable
            elements: Any = value
            for ok in self.nested_ok:
                if ok is None or all(type(v) in ok for v in elements):
                    return True, is_variable
            return False, False
        if answer_type is not None and type(value) is answer_type:
            return True, True
        return False, False

    def string_check(self, value: str) -> str | None:
        if self.std_strings is None:
            self.std_strings = frozenset(standardize(a) for a in self.accepted if type(a) is str)
        return None if standardize(value) in self.std_strings else "value_error:string"

    def list_check(self, value: list[Any]) -> str | None:
        mine = [_std(v) for v in value]
        if self.std_lists is None:
            self.std_lists = [_std_list(a) for a in self.accepted]
        return None if mine in self.std_lists else "value_error:list/tuple"


class _Gold:
    """One gold call against its tool: upstream's ``simple_function_checker``."""

    __slots__ = ("answer", "broken", "details", "language", "mandatory", "name", "params", "required", "tool")

    def __init__(self, tool: ToolSpec | None, gold: GoldenAnswer, language: Language = "python") -> None:
        self.tool = tool
        self.language = language
        self.name = tool.name if tool is not None else ""
        self.answer = acceptable_of(gold)
        self.mandatory: list[str] | None = None  # built when a call gets that far (few do)
        self.params: dict[str, _Param] = {}
        self.broken: dict[str, type[Exception]] = {}
        schema = tool.parameters if tool is not None else {}
        self.details: Any = schema.get("properties") or {}
        self.required: Any = schema.get("required") or []

    def _param(self, name: str) -> _Param:
        """The prepared rule of a parameter (first use); re-raises what preparing it raised."""
        broken = self.broken.get(name)
        if broken is not None:
            raise broken
        try:
            got = self.params[name] = _Param(self.details[name], self.answer[name], self.language)
        except (TypeError, KeyError, AttributeError, IndexError) as exc:
            self.broken[name] = type(exc)
            raise
        return got

    def check(self, call: Call) -> str | None:
        tool = self.tool
        if tool is None:
            return "simple_function_checker:gold_function_not_in_tools"
        name, args = call
        if name != self.name:
            return "simple_function_checker:wrong_func_name"
        for param in self.required:
            if param not in args:
                return "simple_function_checker:missing_required"
        details = self.details
        answer = self.answer
        params = self.params
        for param, value in args.items():
            if param not in details or param not in answer:
                return "simple_function_checker:unexpected_param"
            rule = params.get(param) or self._param(param)
            if rule.convert is not None:  # Java / JavaScript: the source text, converted by BFCL's rules
                if type(value) is not str:
                    return "type_error:java" if self.language == "java" else "type_error:js"
                value = rule.convert(value)
            if type(value) is tuple:
                value = list(value)
            if rule.is_float and type(value) is int:
                value = float(value)
            expected = rule.expected
            if type(value) is expected and rule.nested_ok is None:  # type_check's common case
                is_variable = rule.variable
            else:
                ok, is_variable = rule.type_check(value)
                if not ok:
                    nested_error = rule.nested is not None and type(value) is expected
                    return "type_error:nested" if nested_error else "type_error:simple"
            if is_variable:
                if value not in rule.accepted:
                    return "value_error:others"
                continue
            err: str | None
            if expected is str:
                err = rule.string_check(value)
            elif expected is dict:
                err = _dict_check(value, rule.accepted)
            elif expected is list and rule.nested is dict:
                err = _list_dict_check(value, rule.accepted)
            elif expected is list:
                err = rule.list_check(value)
            else:
                err = None if value in rule.accepted else "value_error:others"
            if err is not None:
                return err
        mandatory = self.mandatory
        if mandatory is None:
            mandatory = self.mandatory = [p for p, acc in answer.items() if "" not in acc]
        for param in mandatory:
            if param not in args:
                return "simple_function_checker:missing_optional"
        return None


def _answer_type(accepted: Any) -> type | None:
    for a in accepted:
        if a != "":
            return type(a)
    return None


def _std(x: Any) -> Any:
    return standardize(x) if type(x) is str else x


def _std_list(xs: Any) -> list[Any]:
    return [_std(xs[i]) for i in range(len(xs))]


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
