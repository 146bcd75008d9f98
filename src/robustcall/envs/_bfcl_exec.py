"""BFCL's multi-turn executor (``multi_turn_utils.execute_multi_turn_func_call``) without ``eval``.

BFCL's checker turns each decoded call into a string (``cd(folder='x')``), prefixes every
``name(`` that is a public method of an involved API instance with that instance's variable (the
same regular expression, applied to the whole string, as upstream), refuses a few names (``kill``,
``exit``, ...) and then ``eval``s the string. Here the prefixed string is parsed with :mod:`ast` and
walked by a small interpreter that knows literals, arithmetic, names of the API instances and calls
of their public methods, nothing else: the same calls reach the same methods with the same
arguments, and results and errors read as BFCL's (``str`` as is, ``dict`` as ``json.dumps``,
anything else ``str``; ``Error during execution: <exception>``).

What ``eval`` would also reach and this does not: Python's builtins and the checker module's
globals (``print(...)``, ``len(...)``); such a call reads ``Error during execution: name 'print' is
not defined`` here. Its text only matters when a ground-truth result is that same text, which no
BFCL ground truth produces.
"""

from __future__ import annotations

import ast
import copy
import inspect
import operator
import re
from collections.abc import Callable
from functools import lru_cache
from typing import Any

import orjson

from robustcall.envs._bfcl_dispatch import result_text
from robustcall.envs._bfcl_wheel import STATELESS, api_class

DENIED = frozenset({"kill", "exit", "quit", "remove", "unlink", "popen", "Popen", "run"})
"""Function names BFCL's executor refuses before evaluating."""

_CALLED_NAME = re.compile(r"\b([a-zA-Z_]\w*)\s*(?=\()")
"""Upstream's ``_process_method_calls`` pattern: a name followed by ``(``, anywhere in the string."""

_PREFIX = "__bfcl_instance_"

_BINARY: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
_UNARY: dict[type[ast.unaryop], Callable[[Any], Any]] = {
    ast.USub: operator.neg,
    ast.UAdd: operator.pos,
    ast.Not: operator.not_,
    ast.Invert: operator.invert,
}
_MAX_SIZE = 10_000_000
"""Refuse arithmetic that would build a value larger than this (``'a' * 10**12``, ``9**9**9``)."""


class UnsupportedExpression(ValueError):
    """An expression outside what BFCL's decoded calls hold (comprehensions, lambdas, ...)."""


class BfclInstances:
    """The API instances of one BFCL entry, loaded as BFCL's executor loads them, kept across turns."""

    def __init__(self, classes: list[str], initial_config: dict[str, Any], long_context: bool) -> None:
        loaded: dict[str, Any] = {}
        for cls in classes:
            inst = api_class(cls)()
            if cls not in STATELESS:
                inst._load_scenario(_fresh_copy(initial_config.get(cls, {})), long_context=long_context)
            loaded[cls] = inst
        self._adopt(loaded)

    @classmethod
    def adopting(cls, instances: dict[str, Any]) -> BfclInstances:
        """A set of instances already loaded as ``__init__`` loads them (a copy of such a set), in
        the order of the task's classes."""
        self = cls.__new__(cls)
        self._adopt(instances)
        return self

    def _adopt(self, instances: dict[str, Any]) -> None:
        self.instances = instances
        self._methods: dict[str, str] = {}  # public method name -> the variable of its (last) owner
        self._names: dict[str, Any] = {}  # variable -> instance
        for cls, inst in instances.items():
            var = _PREFIX + cls
            self._names[var] = inst
            for name in _public_methods(type(inst), inst):
                self._methods[name] = var

    def execute(self, calls: list[str]) -> list[str]:
        """Each call string's result text, as BFCL's executor writes it."""
        return [self._execute_one(call) for call in calls]

    def runs_alike(self, call: str, other: str) -> bool:
        """Whether the two call strings run alike on these instances: the same name checked against
        ``DENIED`` and the same parsed expression (``cd(folder='x')`` and ``cd(folder="x")``), so the
        same methods with the same arguments; a string that does not parse runs like none."""
        if call == other:
            return True
        processed, processed_other = self._processed(call), self._processed(other)
        if _head(processed) != _head(processed_other):
            return False
        try:
            return ast.dump(_parsed(processed)) == ast.dump(_parsed(processed_other))
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return False

    def _processed(self, call: str) -> str:
        methods = self._methods
        return _CALLED_NAME.sub(lambda m: f"{methods[m[1]]}.{m[1]}" if m[1] in methods else m[1], call)

    def _execute_one(self, call: str) -> str:
        processed = self._processed(call)
        try:
            head = _head(processed)
            if head in DENIED:
                raise PermissionError(f"Function call {head} is not allowed.")
            value = self._eval(_parsed(processed))
        except Exception as exc:  # BFCL records any failure of the call as its result
            return f"Error during execution: {exc}"
        return result_text(value)

    def _eval(self, node: ast.expr) -> Any:
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Call):
            func = self._eval(node.func)
            if not _is_api_method(func):
                raise UnsupportedExpression(f"{ast.unparse(node.func)} is not a method of this task's APIs")
            args = [self._eval(a) for a in node.args]
            if any(k.arg is None for k in node.keywords):
                raise UnsupportedExpression("** arguments are not supported")
            kwargs = {str(k.arg): self._eval(k.value) for k in node.keywords}
            return func(*args, **kwargs)
        if isinstance(node, ast.Name):
            if node.id in self._names:
                return self._names[node.id]
            raise NameError(f"name '{node.id}' is not defined")
        if isinstance(node, ast.Attribute):
            owner = self._eval(node.value)
            if not any(owner is inst for inst in self._names.values()) or node.attr.startswith("_"):
                raise UnsupportedExpression(f"attribute {node.attr!r} is not a method of this task's APIs")
            return getattr(owner, node.attr)
        if isinstance(node, ast.List):
            return [self._eval(e) for e in node.elts]
        if isinstance(node, ast.Tuple):
            return tuple(self._eval(e) for e in node.elts)
        if isinstance(node, ast.Set):
            return {self._eval(e) for e in node.elts}
        if isinstance(node, ast.Dict):
            if any(k is None for k in node.keys):
                raise UnsupportedExpression("** in a dict is not supported")
            return {self._eval(k): self._eval(v) for k, v in zip(node.keys, node.values, strict=True) if k is not None}
        if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
            return _UNARY[type(node.op)](self._eval(node.operand))
        if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
            return _binary(node.op, self._eval(node.left), self._eval(node.right))
        raise UnsupportedExpression(f"unsupported expression {type(node).__name__}")


def _head(processed: str) -> str:
    """The name BFCL's executor checks against ``DENIED``: before the first ``(``, after the first ``.``."""
    head = processed.split("(")[0] if "(" in processed else processed
    return head.split(".")[1] if "." in head else head


@lru_cache(maxsize=65536)
def _parsed(processed: str) -> ast.expr:
    """The parsed call (the model's and the ground truth's calls repeat: parsed once). Trees are
    only read by ``_eval``, never changed, so sharing them is safe; a syntax error is raised anew."""
    return ast.parse(processed, filename="<string>", mode="eval").body


def _fresh_copy(config: Any) -> Any:
    """A deep copy of a scenario (JSON data read from the wheel): an ``orjson`` round trip, several
    times faster than ``copy.deepcopy``; anything that is not JSON data is deep-copied."""
    try:
        return orjson.loads(orjson.dumps(config))
    except TypeError:
        return copy.deepcopy(config)


_METHODS: dict[type[Any], tuple[str, ...]] = {}


def _public_methods(cls: type[Any], inst: Any) -> tuple[str, ...]:
    """The public method names of ``cls`` (``inspect.getmembers``' order), read once per class:
    BFCL's API classes define their methods on the class, never per instance."""
    names = _METHODS.get(cls)
    if names is None:
        members = inspect.getmembers(inst, predicate=inspect.ismethod)
        names = _METHODS[cls] = tuple(name for name, _ in members if not name.startswith("_"))
    return names


def _is_api_method(func: Any) -> bool:
    return inspect.ismethod(func) and not func.__name__.startswith("_")


def literal_value(node: ast.expr) -> Any:
    """The value of a literal or arithmetic expression (BFCL decodes a ``BinOp`` argument by ``eval``);
    a name or a call raises as ``eval`` would with nothing defined."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.List):
        return [literal_value(e) for e in node.elts]
    if isinstance(node, ast.Tuple):
        return tuple(literal_value(e) for e in node.elts)
    if isinstance(node, ast.Set):
        return {literal_value(e) for e in node.elts}
    if isinstance(node, ast.Dict) and all(k is not None for k in node.keys):
        return {
            literal_value(k): literal_value(v) for k, v in zip(node.keys, node.values, strict=True) if k is not None
        }
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return _UNARY[type(node.op)](literal_value(node.operand))
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        return _binary(node.op, literal_value(node.left), literal_value(node.right))
    if isinstance(node, ast.Name):
        raise NameError(f"name '{node.id}' is not defined")
    raise UnsupportedExpression(f"unsupported expression {type(node).__name__}")


def _binary(op: ast.operator, left: Any, right: Any) -> Any:
    if isinstance(op, ast.Pow) and isinstance(right, int) and abs(right) > 10_000:
        raise UnsupportedExpression("exponent too large")
    if isinstance(op, ast.Mult):
        for seq, n in ((left, right), (right, left)):
            if isinstance(seq, (str, bytes, list, tuple)) and isinstance(n, int) and len(seq) * n > _MAX_SIZE:
                raise UnsupportedExpression("value too large")
    return _BINARY[type(op)](left, right)
