"""Rule-based mutators, one per Table 1 type: turn a correct call sequence into an incorrect one of
that type. They top up types the generator pool under-produces; every mutant is re-checked by the
classifier and the BFCL scorer before it is kept (:func:`mutate`), and is marked ``synthetic:<type>``.
"""

from __future__ import annotations

import json
import random
import string
from collections.abc import Callable
from typing import Any

from robustcall.core import GoldenAnswer, ToolCall, ToolSpec
from robustcall.rewards._errors import classify_error
from robustcall.rewards._output import calls_text
from robustcall.rewards._types import ErrorType

Mutator = Callable[[list[ToolCall], list[GoldenAnswer], list[ToolSpec], random.Random], "list[ToolCall] | str | None"]


def _copy(calls: list[ToolCall]) -> list[ToolCall]:
    return [ToolCall(name=c.name, arguments=json.loads(json.dumps(c.arguments))) for c in calls]


def _schema(tools: list[ToolSpec], name: str) -> ToolSpec | None:
    return next((t for t in tools if t.name == name), None)


def _other_value(value: Any, rng: random.Random) -> Any:
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + rng.choice([1, 2, 3, 10]) * rng.choice([1, -1])
    if isinstance(value, float):
        return round(value * rng.choice([0.5, 2.0, 1.5]) + 1.0, 4)
    if isinstance(value, str):
        words = value.split()
        if len(words) > 1:
            return " ".join(words[: len(words) - 1])
        return value + rng.choice(["s", "_old", " city", "2"]) if value else "none"
    if isinstance(value, list):
        return value[:-1] if value else ["unknown"]
    if isinstance(value, dict):
        return {k: _other_value(v, rng) for k, v in value.items()}
    return "unknown"


def _wrong_type(value: Any) -> Any:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return json.dumps(value)
    return str(value)


def _pick(calls: list[ToolCall], rng: random.Random, want: Callable[[ToolCall], list[str]]) -> tuple[int, str] | None:
    options = [(i, k) for i, c in enumerate(calls) for k in want(c)]
    return rng.choice(options) if options else None


def _value(
    calls: list[ToolCall], golden: list[GoldenAnswer], tools: list[ToolSpec], rng: random.Random
) -> list[ToolCall] | None:
    out = _copy(calls)
    hit = _pick(out, rng, lambda c: list(c.arguments))
    if hit is None:
        return None
    i, key = hit
    out[i].arguments[key] = _other_value(out[i].arguments[key], rng)
    return out


def _name(
    calls: list[ToolCall], golden: list[GoldenAnswer], tools: list[ToolSpec], rng: random.Random
) -> list[ToolCall] | None:
    if not calls:
        return None
    out = _copy(calls)
    i = rng.randrange(len(out))
    others = [t.name for t in tools if t.name not in {c.name for c in calls}]
    name = out[i].name
    out[i] = ToolCall(
        name=rng.choice(others) if others else name + "_" + rng.choice(["v2", "all", "info"]),
        arguments=out[i].arguments,
    )
    return out


def _count(
    calls: list[ToolCall], golden: list[GoldenAnswer], tools: list[ToolSpec], rng: random.Random
) -> list[ToolCall] | None:
    out = _copy(calls)
    if len(out) > 1 and rng.random() < 0.7:
        del out[rng.randrange(len(out))]
    elif out:
        i = rng.randrange(len(out))
        out.insert(i + 1, _copy([out[i]])[0])
    else:
        return None
    return out


def _missing(required: bool) -> Mutator:
    def mutate(
        calls: list[ToolCall], golden: list[GoldenAnswer], tools: list[ToolSpec], rng: random.Random
    ) -> list[ToolCall] | None:
        out = _copy(calls)

        def keys(c: ToolCall) -> list[str]:
            spec = _schema(tools, c.name)
            req = set(spec.required()) if spec is not None else set()
            return [k for k in c.arguments if (k in req) == required]

        hit = _pick(out, rng, keys)
        if hit is None:
            return None
        del out[hit[0]].arguments[hit[1]]
        return out

    return mutate


def _type(
    calls: list[ToolCall], golden: list[GoldenAnswer], tools: list[ToolSpec], rng: random.Random
) -> list[ToolCall] | None:
    out = _copy(calls)
    hit = _pick(out, rng, lambda c: list(c.arguments))
    if hit is None:
        return None
    i, key = hit
    out[i].arguments[key] = _wrong_type(out[i].arguments[key])
    return out


def _unexpected(
    calls: list[ToolCall], golden: list[GoldenAnswer], tools: list[ToolSpec], rng: random.Random
) -> list[ToolCall] | None:
    if not calls:
        return None
    out = _copy(calls)
    i = rng.randrange(len(out))
    spec = _schema(tools, out[i].name)
    known = set(spec.properties()) if spec is not None else set()
    key = rng.choice(["verbose", "format", "limit", "language", "include_details", "mode"])
    if key in known or key in out[i].arguments:
        key = key + "_" + "".join(rng.choice(string.ascii_lowercase) for _ in range(3))
    out[i].arguments[key] = rng.choice([True, 10, "all", "en"])
    return out


def _format(calls: list[ToolCall], golden: list[GoldenAnswer], tools: list[ToolSpec], rng: random.Random) -> str | None:
    """Truncated JSON (cut inside the arguments), the way a length-limited or derailed generation ends;
    our reader is tolerant of most other surface slips, so a cut is what stays unreadable."""
    if not calls:
        return None
    text = calls_text(calls)
    cut = rng.randint(max(2, int(len(text) * 0.4)), len(text) - 1)
    return text[:cut]


MUTATORS: dict[ErrorType, Mutator] = {
    "Incorrect Parameter Value": _value,
    "Incorrect Function Name": _name,
    "Incorrect number of functions": _count,
    "Missing Optional Parameter": _missing(required=False),
    "Missing Required Parameter": _missing(required=True),
    "Incorrect Parameter Type": _type,
    "Unexpected Parameter": _unexpected,
    "Incorrect output format": _format,
}
"""One mutator per Table 1 type."""


def mutate(
    kind: ErrorType,
    calls: list[ToolCall],
    golden: list[GoldenAnswer],
    tools: list[ToolSpec],
    rng: random.Random,
    is_incorrect: Callable[[str], bool],
    tries: int = 4,
) -> str | None:
    """An output text of type ``kind`` that ``is_incorrect`` rejects and the classifier files under
    ``kind``, or ``None`` after ``tries`` attempts (the sample has nothing to mutate that way)."""
    for _ in range(tries):
        got = MUTATORS[kind](calls, golden, tools, rng)
        if got is None:
            return None
        text = got if isinstance(got, str) else calls_text(got)
        if is_incorrect(text) and classify_error(text, golden, tools) == kind:
            return text
    return None
