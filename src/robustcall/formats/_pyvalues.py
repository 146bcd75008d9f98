"""Python-literal values and calls read by walking ``ast`` nodes; nothing is ever evaluated.

Accepted: constants, ``-``/``+`` on numbers, lists / tuples / sets (as lists), dicts, names (as their
identifier string, as upstream BFCL's decoder does), attribute chains and calls without keywords
(as their source text, e.g. ``__import__('os').system('x')`` stays that string), calls with keywords
(as ``{name: {kw: value}}``, as upstream), and ``+ - * / // %`` on numeric literals (computed
exactly; upstream BFCL ``eval``s these). Anything else raises :class:`Unsupported`.
"""

from __future__ import annotations

import ast
from typing import Any

from robustcall.formats._types import MISSING, Ctx, RawCall

_MAX_ABS = 1e300


class Unsupported(ValueError):
    """An expression this reader refuses to interpret."""


def value_of(node: ast.expr) -> Any:
    """The Python value a literal-ish expression denotes (see the module docstring)."""
    if isinstance(node, ast.Constant):
        v = node.value
        if v is Ellipsis:
            return "..."
        if isinstance(v, bytes | complex):
            raise Unsupported(f"{type(v).__name__} literal")
        return v
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
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
        return node.id
    if isinstance(node, ast.Attribute):
        return ast.unparse(node)
    if isinstance(node, ast.Call):
        if node.keywords and all(k.arg is not None for k in node.keywords):
            return {dotted_name(node.func): {k.arg: value_of(k.value) for k in node.keywords if k.arg}}
        return ast.unparse(node)
    if isinstance(node, ast.BinOp):
        return _arith(node)
    raise Unsupported(type(node).__name__)


def _arith(node: ast.BinOp) -> Any:
    left, right = value_of(node.left), value_of(node.right)
    nums = all(isinstance(x, int | float) and not isinstance(x, bool) for x in (left, right))
    if not nums:
        raise Unsupported("arithmetic on non-numbers")
    op = node.op
    try:
        if isinstance(op, ast.Add):
            res = left + right
        elif isinstance(op, ast.Sub):
            res = left - right
        elif isinstance(op, ast.Mult):
            res = left * right
        elif isinstance(op, ast.Div):
            res = left / right
        elif isinstance(op, ast.FloorDiv):
            res = left // right
        elif isinstance(op, ast.Mod):
            res = left % right
        else:  # ** and bit operations: unbounded cost, refused
            raise Unsupported(f"operator {type(op).__name__}")
    except ZeroDivisionError:
        raise Unsupported("division by zero") from None
    if abs(res) > _MAX_ABS:
        raise Unsupported("number out of range")
    return res


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
    """One call node as a :class:`RawCall`; arguments that cannot be read are dropped and reported."""
    name = dotted_name(node.func)
    args: dict[str, Any] = {}
    positional: list[Any] = []
    for i, a in enumerate(node.args):
        try:
            positional.append(value_of(a))
        except Unsupported as exc:
            ctx.drop(f"{name}: positional argument {i} ({exc}: {ast.unparse(a)[:80]})")
            positional.append(MISSING)
    for kw in node.keywords:
        if kw.arg is None:
            ctx.drop(f"{name}: **{ast.unparse(kw.value)[:80]} (unpacking is not read)")
            continue
        try:
            args[kw.arg] = value_of(kw.value)
        except Unsupported as exc:
            ctx.drop(f"{name}: argument {kw.arg} ({exc}: {ast.unparse(kw.value)[:80]})")
    return RawCall(name, args, positional)


def parse_expr(text: str) -> ast.expr | None:
    """``text`` as one Python expression, ``None`` when it is not one."""
    try:
        return ast.parse(text, mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
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
