"""Whether a tool call only reads state: shared by the runtime axes (``faults.AxisEnv``) and the
silent no-op verdict (``score``), which both need to tell a read from a write.

A call is a read when its name starts with a read verb (``get``, ``list``, ``ls``, ``cat``,
``inventory``..., the name split at ``_``, ``.``, ``-`` or a camelCase hump: ``get_x``, ``GetX``,
``queryBalance``) or it runs a read-only SQL statement; everything else is a write.

A read *reads back* what earlier calls touched (:func:`reads_back`, the silent no-op's verification)
when it is a complete call (every required parameter of its listed spec given) that names the same
resource: it passes one of their argument values (``GetUserToken(username="u1", ...)`` after
``RegisterUser(username="u1", ...)``), or its name shares a word other than the verb with one of
theirs (``get_state`` after ``set_state``, ``get_news_blogs`` after ``get_news_articles``).
``GetUserToken {}`` after ``RegisterUser(username="u1")`` reads nothing of it.
"""

from __future__ import annotations

import re
from typing import Any

from robustcall.core._model import ToolCall, ToolSpec

READ_VERBS = frozenset(
    [
        "get",
        "list",
        "search",
        "find",
        "read",
        "show",
        "view",
        "query",
        "describe",
        "fetch",
        "check",
        "ls",
        "cat",
        "pwd",
        "grep",
        "du",
        "wc",
        "tail",
        "head",
        "diff",
        "inventory",
        "look",
        "status",
        "stats",
        "count",
    ]
)
_READ_SQL = re.compile(r"^\s*(select|show|describe|desc|explain|pragma)\b", re.IGNORECASE)


_BOUNDARY = re.compile(r"[_.\-\s]+|(?<=[a-z0-9])(?=[A-Z])")


def name_words(name: str) -> list[str]:
    """``name``'s words, lower case (``get_x``, ``getX``, ``GetX`` -> ``get``, ``x``)."""
    return [w.lower() for w in _BOUNDARY.split(name) if w]


def is_read(call: ToolCall) -> bool:
    """Whether ``call`` only reads state (see the module docstring)."""
    verb = next(iter(name_words(call.name)), "")
    if verb in READ_VERBS:
        return True
    sql = next((v for v in call.arguments.values() if isinstance(v, str) and _READ_SQL.match(v)), None)
    return sql is not None


def _scalars(value: Any) -> set[str]:
    if isinstance(value, dict):
        return set().union(*(_scalars(v) for v in value.values()))
    if isinstance(value, list | tuple):
        return set().union(*(_scalars(v) for v in value))
    if value is None or value == "":
        return set()
    return {str(value).strip().casefold()}


def _nouns(name: str) -> set[str]:
    return set(name_words(name)[1:])


def reads_back(read: ToolCall, spec: ToolSpec | None, touched: list[ToolCall]) -> bool:
    """``read`` (a read call) reads back the resource ``touched`` changed (see the module docstring)."""
    if spec is None or any(p not in read.arguments for p in spec.required()):
        return False
    values = _scalars(read.arguments)
    return any(values & _scalars(c.arguments) or _nouns(read.name) & _nouns(c.name) for c in touched)
