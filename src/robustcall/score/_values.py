"""Value normalisation shared by the non-BFCL scorers (API-Bank, RoTBench, ToolAlpaca)."""

from __future__ import annotations

import math
from typing import Any


def norm(value: Any) -> Any:
    """A comparable form: strings stripped and case-folded, numbers (and numeric strings) as floats
    (``"5" == 5 == 5.0``), booleans as ``"true"`` / ``"false"`` (so ``True == "True"``), containers
    normalised element-wise (dict keys kept as given)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        s = value.strip()
        num = _number(s)
        return num if num is not None else s.casefold()
    if isinstance(value, list | tuple):
        return tuple(norm(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted(((str(k), norm(v)) for k, v in value.items()), key=lambda kv: kv[0]))
    if value is None:
        return None
    return repr(value)


def _number(s: str) -> float | None:
    if not s or not (s[0].isdigit() or s[0] in "+-."):
        return None
    try:
        f = float(s)
    except ValueError:
        return None
    return f if math.isfinite(f) else None


def same(a: Any, b: Any) -> bool:
    """Whether two argument values are equal after :func:`norm`."""
    return bool(norm(a) == norm(b))
