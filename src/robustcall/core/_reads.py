"""Whether a tool call only reads state: shared by the runtime axes (``faults.AxisEnv``) and the
silent no-op verdict (``score``), which both need to tell a read from a write.

A call is a read when its name starts with a read verb (``get``, ``list``, ``ls``, ``cat``,
``inventory``..., the name split at ``_``, ``.``, ``-`` or a camelCase hump: ``get_x``, ``GetX``,
``queryBalance``) or it runs a read-only SQL statement; everything else is a write.

A read *reads back* what earlier calls touched (:func:`reads_back`, the silent no-op's verification)
when it is a complete call (every required parameter of its listed spec given) that *addresses the
resource* one of them touched. Its *key arguments* are the arguments that say which resource: every
argument with a value, less credentials (a name with the word ``token``, ``key``, ``password``,
``secret``, ``auth``, ``session``, ...) and paging (``page``, ``limit``, ``offset``, ...). It addresses
the resource of a touched call when it passes key arguments, none of them contradicts that call's
(the same name with another value), and either

- one of them is the touched call's own: the same name and value
  (``GetUserToken(username="foo", password="bar")`` after ``RegisterUser(username="foo", ...)``), or
- the read tool's description names the touched call's resource: every word of the touched tool's
  name after its verb, singular or plural (``QueryRegistration(patient_id=...)``, "queries the
  registration of a patient", after ``AppointmentRegistration``).

Never by an empty call (API-Bank's specs list no required parameters, so ``GetUserToken {}`` is
"complete"), by a word shared by the two tool names, or by a shared credential
(``QueryBalance(token=T, ...)`` after ``AddAgenda(token=T, ...)``).
"""

from __future__ import annotations

import json
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


_CREDENTIAL_WORDS = frozenset(
    ["token", "key", "apikey", "password", "passwd", "secret", "auth", "authorization", "credential",
     "credentials", "session", "cookie"]
)  # fmt: skip
_PAGING = frozenset(["page", "limit", "offset", "start", "cursor", "sync", "per_page", "page_size", "max_results"])


def _is_key(param: str) -> bool:
    """A parameter that says which resource (not a credential, not paging)."""
    return param.lower() not in _PAGING and not set(name_words(param)) & _CREDENTIAL_WORDS


def _canon(value: Any) -> str | None:
    """A value as compared (JSON-like, case-folded strings); ``None`` for an empty one."""
    if value is None or value == "" or value == [] or value == {}:
        return None
    if isinstance(value, str):
        return value.strip().casefold()
    return json.dumps(value, sort_keys=True, ensure_ascii=False).casefold()


def key_arguments(call: ToolCall) -> dict[str, str]:
    """``call``'s key arguments (see the module docstring), values canonicalised."""
    out = {p: _canon(v) for p, v in call.arguments.items() if _is_key(p)}
    return {p: v for p, v in out.items() if v is not None}


def _singular(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def resource_words(name: str) -> set[str]:
    """The words of a tool's name after its verb (``AddAgenda`` -> ``agenda``), singular; version tags
    (``v2``) and numbers left out."""
    words = name_words(name)[1:]
    return {_singular(w) for w in words if not re.fullmatch(r"v?\d+", w)}


def names_resource(description: str, touched: str) -> bool:
    """``description`` names the resource of the tool ``touched``: every word of it (singular or plural)."""
    wanted = resource_words(touched)
    said = {_singular(w) for w in name_words(description)}
    return bool(wanted) and wanted <= said


def reads_back(read: ToolCall, spec: ToolSpec | None, touched: list[ToolCall]) -> bool:
    """``read`` (a read call) addresses the resource one of ``touched`` changed (see the module docstring)."""
    if spec is None or any(p not in read.arguments for p in spec.required()):
        return False
    keys = key_arguments(read)
    if not keys:
        return False  # an empty call (or credentials and paging only) addresses nothing
    for call in touched:
        theirs = key_arguments(call)
        if any(theirs.get(p, v) != v for p, v in keys.items()):
            continue  # another resource: a key argument of the same name with another value
        if any(theirs.get(p) == v for p, v in keys.items()) or names_resource(spec.description, call.name):
            return True
    return False
