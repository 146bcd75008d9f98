"""PIPE's interface rewrite for an MCP server's tools: an ``InterfaceMap`` built from the tool names.

The paper's mapping tables cover its environments' actions only; an MCP server's tools get synonyms
word by word from ``WORD_SYNONYMS`` (``git_status`` -> ``repo_state``, ``read_query`` ->
``load_sql``), and a name none of whose words is in the table gets ``_op`` appended to its first
word's synonym-free form (still a fresh, readable name). Symbols are ``z1, z2, …`` in the listed
order, as ``interface.InterfaceMap`` numbers them. Tool names only: parameter names are not renamed.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from robustcall.interface import InterfaceMap, check_map

WORD_SYNONYMS: dict[str, str] = {
    "get": "fetch",
    "list": "enumerate",
    "read": "load",
    "write": "store",
    "create": "make",
    "delete": "remove",
    "set": "assign",
    "add": "stage",
    "commit": "record",
    "status": "state",
    "log": "history",
    "diff": "changes",
    "show": "display",
    "reset": "unstage",
    "branch": "line",
    "checkout": "switch",
    "init": "setup",
    "git": "repo",
    "query": "sql",
    "table": "relation",
    "tables": "relations",
    "describe": "inspect",
    "current": "present",
    "time": "clock",
    "convert": "translate",
    "note": "memo",
    "notes": "memos",
    "append": "extend",
    "count": "tally",
    "staged": "indexed",
    "unstaged": "pending",
    "insight": "finding",
    "search": "find",
    "file": "document",
    "files": "documents",
}
"""Word -> synonym for the words of common MCP tool names (lower-case, ``_``/``-``-separated)."""


def synonym(name: str) -> str:
    """``name`` with each known word replaced (``git_diff_staged`` -> ``repo_changes_indexed``)."""
    parts = re.split(r"([_\-.])", name)
    out = [WORD_SYNONYMS.get(p.lower(), p) if i % 2 == 0 else p for i, p in enumerate(parts)]
    renamed = "".join(out)
    return renamed if renamed != name else f"{name}_op"


def mcp_interface_map(server: str, names: Sequence[str]) -> InterfaceMap:
    """The interface map of a server's tools (a ``ValueError`` if two names would collide)."""
    taken = set(names)
    pairs: list[tuple[str, str]] = []
    used: set[str] = set()
    for name in names:
        alias = synonym(name)
        while alias in taken or alias in used:
            alias += "_alt"
        used.add(alias)
        pairs.append((name, alias))
    imap = InterfaceMap(server, tuple(pairs), "ours: word synonyms of the MCP tool names (robustcall.mcp)")
    check_map(imap)
    return imap
