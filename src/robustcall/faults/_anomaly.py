"""Semantic anomalies: corrupt a real tool result (JSON or text), deterministically from a seeded stream.

Each transform returns ``None`` when it does not apply to the result (no number to make
implausible, nothing to truncate); the caller then falls back to ``empty_result``, which always
applies, and logs both the requested and the applied type.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable
from typing import Any

_NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?!\w|\.\d)")

Path = tuple[Any, ...]


def _parse(text: str) -> tuple[bool, Any]:
    try:
        return True, json.loads(text)
    except (json.JSONDecodeError, ValueError):
        return False, None


def _dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _leaves(value: Any, path: Path = ()) -> list[tuple[Path, Any]]:
    """Scalar leaves of a JSON value with their paths, in document order."""
    if isinstance(value, dict):
        return [leaf for k, v in value.items() for leaf in _leaves(v, (*path, k))]
    if isinstance(value, list):
        return [leaf for i, v in enumerate(value) for leaf in _leaves(v, (*path, i))]
    return [(path, value)]


def _replace(value: Any, path: Path, new: Any) -> Any:
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        return {k: (_replace(v, rest, new) if k == head else v) for k, v in value.items()}
    return [(_replace(v, rest, new) if i == head else v) for i, v in enumerate(value)]


def _is_number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def _implausible(v: float) -> float:
    """A positive number turns negative (a negative price); zero or below turns absurdly large."""
    return -v if v > 0 else 10**9


def _plausible_shift(v: float, rng: random.Random) -> float:
    """A nearby, wrong value of the same kind: ints move by at least 1, floats by 5-30 %."""
    if isinstance(v, int):
        step = rng.randint(1, max(1, abs(v) // 4))
        return v + step if rng.random() < 0.5 or v - step < 0 <= v else v - step
    factor = 1 + rng.choice((-1, 1)) * rng.uniform(0.05, 0.3)
    shifted = round(v * factor, 2) if v != 0 else round(rng.uniform(0.5, 5.0), 2)
    return shifted if shifted != v else v + 1.0


def empty_result(text: str, rng: random.Random) -> str | None:
    ok, value = _parse(text)
    if ok and isinstance(value, dict):
        return "{}"
    if ok and isinstance(value, list):
        return "[]"
    return ""


def malformed_body(text: str, rng: random.Random) -> str | None:
    """The body cut off between a third and two thirds of its length; JSON stays unparseable."""
    if len(text) < 4:
        return None
    was_json, _ = _parse(text)
    for _ in range(8):
        cut = rng.randint(len(text) // 3, max(len(text) // 3, 2 * len(text) // 3))
        body = text[:cut]
        if body and body != text and not (was_json and _parse(body)[0]):
            return body
    return None


def _numbers_in_text(text: str) -> list[re.Match[str]]:
    return list(_NUMBER.finditer(text))


def _text_number(text: str, rng: random.Random, change: Callable[[float], float]) -> str | None:
    found = _numbers_in_text(text)
    if not found:
        return None
    m = found[rng.randrange(len(found))]
    raw = m.group(0)
    value: float = float(raw) if "." in raw else int(raw)
    new = change(value)
    return text[: m.start()] + (str(int(new)) if isinstance(value, int) else str(new)) + text[m.end() :]


def _json_number(value: Any, rng: random.Random, change: Callable[[float], float]) -> str | None:
    numbers = [(p, v) for p, v in _leaves(value) if _is_number(v)]
    if not numbers:
        return None
    path, v = numbers[rng.randrange(len(numbers))]
    new = change(v)
    return _dump(_replace(value, path, int(new) if isinstance(v, int) else new))


def implausible_value(text: str, rng: random.Random) -> str | None:
    ok, value = _parse(text)
    if ok:
        return _json_number(value, rng, _implausible)
    return _text_number(text, rng, _implausible)


def plausible_wrong(text: str, rng: random.Random) -> str | None:
    """A valid-looking wrong value: a shifted number, or one string leaf swapped for another."""
    ok, value = _parse(text)
    if not ok:
        return _text_number(text, rng, lambda v: _plausible_shift(v, rng))
    out = _json_number(value, rng, lambda v: _plausible_shift(v, rng))
    if out is not None:
        return out
    strings = [(p, v) for p, v in _leaves(value) if isinstance(v, str)]
    distinct = sorted({v for _, v in strings})
    if len(distinct) < 2:
        return None
    path, v = strings[rng.randrange(len(strings))]
    other = rng.choice([s for s in distinct if s != v])
    return _dump(_replace(value, path, other))


def wrong_type(text: str, rng: random.Random) -> str | None:
    """One field of the wrong type: numbers and booleans become strings, strings become null."""
    ok, value = _parse(text)
    if not ok:
        found = _numbers_in_text(text)
        if not found:
            return None
        m = found[rng.randrange(len(found))]
        return text[: m.start()] + "null" + text[m.end() :]
    leaves = [(p, v) for p, v in _leaves(value) if v is not None]
    if not leaves:
        return None
    path, v = leaves[rng.randrange(len(leaves))]
    new: Any = None if isinstance(v, str) else (json.dumps(v) if isinstance(v, bool) else str(v))
    return _dump(_replace(value, path, new))


TRANSFORMS: dict[str, Callable[[str, random.Random], str | None]] = {
    "empty_result": empty_result,
    "malformed_body": malformed_body,
    "implausible_value": implausible_value,
    "wrong_type": wrong_type,
    "plausible_wrong": plausible_wrong,
}
