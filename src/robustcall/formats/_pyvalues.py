"""Python-literal values and calls read by walking ``ast`` nodes; nothing is ever evaluated.

Accepted: constants, lists / tuples / sets (as lists), dicts, names (as their identifier string, as
upstream BFCL's decoder does; bare ``true`` / ``false`` / ``null`` as :class:`BareName`, read by the
parameter's schema in :func:`resolve_bare`), attribute chains and calls without keywords (as their
source text, e.g. ``__import__('os').system('x')`` stays that string), calls with keywords (as
``{name: {kw: value}}``, as upstream), and constant expressions over literals, folded here under
explicit size limits (upstream BFCL ``eval``s them): unary ``-`` / ``+`` on numbers, ``+ - * / //
% **`` on numbers, ``+`` on two strings or two lists, ``*`` of a string or list by an int.

Anything else (f-strings, lambdas, ``not``, ``~``, subscripts, comprehensions, bytes and complex
literals, bit operations, arithmetic on booleans, a result past the limits) raises
:class:`Unsupported`; :func:`call_of` then gives the argument the :func:`unreadable` marker, so that
the call fails its check with the reason, instead of the argument silently disappearing.
"""

from __future__ import annotations

import ast
import math
from typing import Any

from robustcall.core import ToolSpec
from robustcall.formats._bounds import ast_allowed, ast_failed, charge, recall
from robustcall.formats._types import Ctx, RawCall

_MAX_ABS = 1e300
"""Largest magnitude of a folded number."""
MAX_FOLD_CHARS = 10_000
"""Longest string a folded ``+`` / ``*`` may build."""
MAX_FOLD_ITEMS = 10_000
"""Longest list a folded ``+`` / ``*`` may build."""
MAX_POW_BITS = 1_000
"""Largest integer power folded, in bits (``2**1000``); larger ones are refused before computing."""

UNREADABLE = "__unreadable__"
"""The key of the marker an unreadable argument value becomes (see :func:`unreadable`)."""

BARE = frozenset({"true", "false", "null"})
"""JSON's literals, written bare inside a Python-syntax call."""


class Unsupported(ValueError):
    """An expression this reader refuses to interpret."""


class BareName(str):
    """A bare ``true`` / ``false`` / ``null`` name; :func:`resolve_bare` decides its value."""

    __slots__ = ()


def unreadable(why: str, source: str) -> dict[str, str]:
    """The value an argument gets when its text cannot be read: ``{"__unreadable__": "<why>: <text>"}``.
    It survives a JSON round trip, and a call carrying it fails every scorer (``unreadable_value``)."""
    return {UNREADABLE: f"{why}: {source[:80]}"}


def unreadable_reason(value: Any) -> str | None:
    """The reason stored in an :func:`unreadable` marker, ``None`` for any other value."""
    if type(value) is dict and len(value) == 1 and UNREADABLE in value:
        return str(value[UNREADABLE])
    return None


def value_of(node: ast.expr) -> Any:
    """The Python value a literal-ish expression denotes (see the module docstring)."""
    if isinstance(node, ast.Constant):
        v = node.value
        if v is Ellipsis:
            return "..."
        if isinstance(v, bytes | complex):
            raise Unsupported(f"{type(v).__name__} literal")
        return v
    if isinstance(node, ast.UnaryOp):
        if not isinstance(node.op, ast.USub | ast.UAdd):
            raise Unsupported(f"operator {type(node.op).__name__}")
        num = value_of(node.operand)
        if isinstance(num, bool) or not isinstance(num, int | float):
            raise Unsupported("sign on a non-number")
        return -num if isinstance(node.op, ast.USub) else num
    if isinstance(node, ast.List | ast.Tuple | ast.Set):
        return [value_of(e) for e in node.elts]
    if isinstance(node, ast.Dict):
        out: dict[Any, Any] = {}
        for k, val in zip(node.keys, node.values, strict=True):
            if k is None:
                raise Unsupported("** in a dict")
            key = value_of(k)
            if isinstance(key, list | dict):
                raise Unsupported("unhashable dict key")
            out[key] = value_of(val)
        return out
    if isinstance(node, ast.Name):
        return BareName(node.id) if node.id in BARE else node.id
    if isinstance(node, ast.Attribute):
        return ast.unparse(node)
    if isinstance(node, ast.Call):
        if node.keywords and all(k.arg is not None for k in node.keywords):
            return {dotted_name(node.func): {k.arg: value_of(k.value) for k in node.keywords if k.arg}}
        return ast.unparse(node)
    if isinstance(node, ast.BinOp):
        return fold(node.op, value_of(node.left), value_of(node.right))
    if isinstance(node, ast.JoinedStr):
        raise Unsupported("f-string")
    raise Unsupported(type(node).__name__)


def _is_num(x: Any) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool)


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def fold(op: ast.operator, left: Any, right: Any) -> Any:
    """``left <op> right`` over literal values, computed here with size limits (never ``eval``)."""
    if _is_num(left) and _is_num(right):
        return _number(_arith(op, left, right))
    if isinstance(op, ast.Add):
        if type(left) is str and type(right) is str:
            if len(left) + len(right) > MAX_FOLD_CHARS:
                raise Unsupported("string too long")
            return left + right
        if type(left) is list and type(right) is list:
            if len(left) + len(right) > MAX_FOLD_ITEMS:
                raise Unsupported("list too long")
            return left + right
    if isinstance(op, ast.Mult):
        seq, times = (left, right) if _is_int(right) else (right, left)
        if _is_int(times) and type(seq) in (str, list):
            n = max(0, times) * len(seq)
            if n > (MAX_FOLD_CHARS if type(seq) is str else MAX_FOLD_ITEMS):
                raise Unsupported("repetition too long")
            return seq * max(0, times)
    raise Unsupported(f"operator {type(op).__name__} on {type(left).__name__} and {type(right).__name__}")


def _arith(op: ast.operator, left: Any, right: Any) -> Any:
    try:
        if isinstance(op, ast.Add):
            return left + right
        if isinstance(op, ast.Sub):
            return left - right
        if isinstance(op, ast.Mult):
            return left * right
        if isinstance(op, ast.Div):
            return left / right
        if isinstance(op, ast.FloorDiv):
            return left // right
        if isinstance(op, ast.Mod):
            return left % right
        if isinstance(op, ast.Pow):
            return _power(left, right)
    except ZeroDivisionError:
        raise Unsupported("division by zero") from None
    # an OverflowError (``10**400 / 1``) propagates: the parser's entry refuses the whole answer
    raise Unsupported(f"operator {type(op).__name__}")  # bit operations, @: not literal arithmetic


def _power(base: Any, exp: Any) -> Any:
    if _is_int(base) and _is_int(exp) and exp >= 0:
        if abs(base) > 1 and max(1, abs(base).bit_length() - 1) * exp > MAX_POW_BITS:
            raise Unsupported("power too large")
        return base**exp
    if base == 0 and exp < 0:
        raise Unsupported("division by zero")
    if base < 0 and not float(exp).is_integer():
        raise Unsupported("complex power")
    return math.pow(float(base), float(exp))


def _number(res: Any) -> Any:
    if isinstance(res, float) and not math.isfinite(res):
        raise Unsupported("number out of range")
    if abs(res) > _MAX_ABS:
        raise Unsupported("number out of range")
    return res


def resolve_bare(value: Any, schema: Any) -> Any:
    """``value`` with every :class:`BareName` decided, in one place (docs/scoring.md): a bare
    ``true`` / ``false`` / ``null`` is JSON's boolean / null where its schema type is anything but a
    string, and stays the identifier string (upstream BFCL's reading) where the schema says string,
    ``any``, or nothing. The schema follows the value down: a list item's is ``items``, an object
    property's is ``properties[key]`` (else a schema-valued ``additionalProperties``), so
    ``details={'includeReforms': true}`` is read like a top-level ``flag=true``."""
    if type(value) is BareName:
        kind = schema.get("type") if isinstance(schema, dict) else None
        if not isinstance(kind, str) or kind.lower() in ("string", "str", "any", "char"):
            return str(value)
        return None if value == "null" else value == "true"
    if type(value) is list:
        items = schema.get("items") if isinstance(schema, dict) else None
        return [resolve_bare(v, items) for v in value]
    if type(value) is dict:
        return {k: resolve_bare(v, _property_schema(schema, k)) for k, v in value.items()}
    return value


def _property_schema(schema: Any, key: Any) -> Any:
    """The schema of an object's property ``key``: ``properties[key]``, else ``additionalProperties``
    when that is a schema; ``None`` (read as upstream does) when the schema says nothing."""
    if not isinstance(schema, dict):
        return None
    props = schema.get("properties")
    if isinstance(props, dict) and key in props:
        return props[key]
    extra = schema.get("additionalProperties")
    return extra if isinstance(extra, dict) else None


def resolve_args(args: dict[str, Any], tool: ToolSpec | None) -> dict[str, Any]:
    """:func:`resolve_bare` over a call's arguments, each by its parameter's schema."""
    props = tool.properties() if tool is not None else {}
    return {k: resolve_bare(v, props.get(k)) for k, v in args.items()}


def has_bare(value: Any) -> bool:
    """Whether a :class:`BareName` is anywhere in ``value``."""
    if type(value) is BareName:
        return True
    if type(value) is list:
        return any(has_bare(v) for v in value)
    if type(value) is dict:
        return any(has_bare(v) for v in value.values())
    return False


def dotted_name(node: ast.expr) -> str:
    """``a.b.c`` of a ``Name`` / ``Attribute`` chain."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        raise Unsupported(f"call target {ast.unparse(node)!r} is not a (dotted) name")
    parts.append(node.id)
    return ".".join(reversed(parts))


def call_of(node: ast.Call, ctx: Ctx) -> RawCall:
    """One call node as a :class:`RawCall`. An argument whose value cannot be read keeps its place
    with the :func:`unreadable` marker (and is reported), so that the call fails its check rather
    than losing the argument; so does a ``**mapping`` unpacking (upstream cannot read it either)."""
    name = dotted_name(node.func)
    args: dict[str, Any] = {}
    positional: list[Any] = []
    for i, a in enumerate(node.args):
        try:
            positional.append(value_of(a))
        except Unsupported as exc:
            ctx.drop(f"{name}: positional argument {i} unreadable ({exc}: {ast.unparse(a)[:80]})")
            positional.append(unreadable(str(exc), ast.unparse(a)))
    for kw in node.keywords:
        if kw.arg is None:
            ctx.drop(f"{name}: **{ast.unparse(kw.value)[:80]} (unpacking is not read)")
            args["**"] = unreadable("** unpacking", ast.unparse(kw.value))
            continue
        try:
            args[kw.arg] = value_of(kw.value)
        except Unsupported as exc:
            ctx.drop(f"{name}: argument {kw.arg} unreadable ({exc}: {ast.unparse(kw.value)[:80]})")
            args[kw.arg] = unreadable(str(exc), ast.unparse(kw.value))
    return RawCall(name, args, positional)


def parse_expr(text: str) -> ast.expr | None:
    """``text`` as one Python expression, ``None`` when it is not one, or when it is long and the
    parse's ``ast`` budget is spent (:data:`robustcall.formats._bounds.AST_BUDGET`). Within one parse
    a text handed again lately is not parsed again (:func:`~robustcall.formats._bounds.recall`)."""
    return recall("ast", text, _parse_expr)


def _parse_expr(text: str) -> ast.expr | None:
    if not ast_allowed(len(text)):
        return None
    charge(len(text), "ast")  # the parse's work bound (formats/_bounds.py)
    try:
        return ast.parse(text, mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        ast_failed(len(text))
        return None


def literal(text: str) -> tuple[bool, Any]:
    """``(True, value)`` when ``text`` is one Python literal expression, else ``(False, None)``."""
    node = parse_expr(text)
    if node is None:
        return False, None
    try:
        return True, value_of(node)
    except (Unsupported, RecursionError):
        return False, None
