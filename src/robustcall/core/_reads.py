"""Whether a tool call only reads state: shared by the runtime axes (``faults.AxisEnv``) and the
silent no-op verdict (``score``), which both need to tell a read from a write.

A call is a read when its name starts with a read verb (``get``, ``list``, ``ls``, ``cat``,
``inventory``..., the name split at ``_``, ``.``, ``-`` or a camelCase hump: ``get_x``, ``GetX``,
``queryBalance``) or it runs a read-only SQL statement; everything else is a write.
"""

from __future__ import annotations

import re

from robustcall.core._model import ToolCall

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


def is_read(call: ToolCall) -> bool:
    """Whether ``call`` only reads state (see the module docstring)."""
    verb = re.split(r"[_.\-]|(?<=[a-z0-9])(?=[A-Z])", call.name, maxsplit=1)[0].lower()  # get_x, getX, GetX
    if verb in READ_VERBS:
        return True
    sql = next((v for v in call.arguments.values() if isinstance(v, str) and _READ_SQL.match(v)), None)
    return sql is not None
