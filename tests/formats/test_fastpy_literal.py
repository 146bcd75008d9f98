"""The fast literal reader (``_literalreader.read_literal``) reads what ``_pyvalues.literal`` reads.

``read_literal`` spares the JSON reader's Python-literal fallback an ``ast.parse`` of the whole span
(about 100 ms at 100 KB). Wherever it gives a value, ``literal`` must give the same value, of the
same types (a ``BareName`` stays one); anything it is unsure of it hands back (``None``).
"""

from __future__ import annotations

import random
import warnings

import pytest

from robustcall.formats._literalreader import read_literal
from robustcall.formats._pyvalues import literal

_WS = ["", "", "", " ", "\n", "\t", "\x0b", "\x0c", "\r", "\x85", "\u2028", "\xa0"]
_NAMES = ["f", "g.h", "a.b.c", "_x", "true", "null", "false", "True", "None", "if", "x.True", "é", "ｘ", "print"]
_SCALARS = [
    "'x'", '"y"', "''", "'a\\nb'", "'\\q'", "'\\N{EM DASH}'", "'a\\'b'", "0", "-0", "7", "-12", "3.5", "1e5", "1e999",
    "5.", ".5", "00", "007", "1_0", "0x1f", "5j", "-x", "...", "b'x'", "'a' 'b'", "'a\x00b'", "'\ud800'", "1" * 5000,
]  # fmt: skip
_NOISE = [*"[](){}=,.:'\"\\-+ \n\tax_#", "\r", "(1)", "**"]


def _ws(rng: random.Random) -> str:
    return rng.choice(_WS) if rng.random() < 0.3 else ""


def _value(rng: random.Random, depth: int) -> str:
    r = rng.random()
    if depth > 3 or r < 0.45:
        return rng.choice(_SCALARS if rng.random() < 0.6 else _NAMES)
    items = [_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    tail = rng.choice(["", ","]) if items else ""
    if r < 0.65:
        return "[" + _ws(rng) + ("," + _ws(rng)).join(items) + tail + _ws(rng) + "]"
    if r < 0.85:
        pairs = [rng.choice(_SCALARS[:3] + _NAMES[:3] + ["[1]"]) + ":" + _ws(rng) + v for v in items]
        return "{" + ("," + _ws(rng)).join(pairs) + tail + "}"
    keys = [rng.choice(["a", "b", "c", "if", "é"]) for _ in items]
    args = [k + _ws(rng) + "=" + v if rng.random() < 0.9 else v for k, v in zip(keys, items, strict=True)]
    return rng.choice(_NAMES) + "(" + ("," + _ws(rng)).join(args) + tail + ")"


def _text(rng: random.Random) -> str:
    text = rng.choice("[{") + _value(rng, 0)
    text = "[" + text[1:] + "]" if text[0] == "[" else "{" + "'k': " + text[1:] + "}"
    for _ in range(rng.choice([0, 0, 0, 1, 2])):  # mutate: insert, delete or replace a character
        pos = rng.randrange(len(text) + 1)
        op = rng.randrange(3)
        if op == 0:
            text = text[:pos] + rng.choice(_NOISE) + text[pos:]
        elif pos < len(text):
            text = text[:pos] + (rng.choice(_NOISE) if op == 1 else "") + text[pos + 1 :]
    return text


@pytest.mark.filterwarnings("ignore::SyntaxWarning", "ignore::DeprecationWarning")
def test_the_fast_literal_reader_agrees_with_ast_wherever_it_reads() -> None:
    rng = random.Random(30)
    read = 0
    for _ in range(20_000):
        text = _text(rng)
        fast = read_literal(text)
        if fast is None:
            continue
        read += 1
        ok, value = literal(text)
        assert ok, text
        assert repr(fast[0]) == repr(value) and _types(fast[0]) == _types(value), text
    assert read > 5_000  # it reads most well-formed texts, not only the trivial ones


def _types(value: object) -> object:
    if isinstance(value, list):
        return [_types(v) for v in value]
    if isinstance(value, dict):
        return {repr(k): (type(k).__name__, _types(v)) for k, v in value.items()}
    return type(value).__name__


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("[x.y, a.b.c]", ["x.y", "a.b.c"]),  # ast.unparse of an attribute chain
        ("[f(a=1), g.h(b=[1, {'c': d}])]", [{"f": {"a": 1}}, {"g.h": {"b": [1, {"c": "d"}]}}]),
        ("[f()]", ["f()"]),
        ("{1: 'a', True: 'b'}", {1: "b"}),
        ("[1,\n 2,]", [1, 2]),
    ],
)
def test_worked_values(text: str, value: object) -> None:
    assert read_literal(text) == (value,)
    assert literal(text) == (True, value)


@pytest.mark.parametrize(
    "text",
    ["[if]", "[f(if=1)]", "[f(a=1, a=2)]", "[ｘ]", "[1,\x0b2]", "['a\rb']", "[x.True]", " [1]", "[1]\n ", "[f(1)]"],
)
def test_what_ast_refuses_or_reads_otherwise_is_handed_back(text: str) -> None:
    assert read_literal(text) is None


def test_nesting_past_cpythons_bracket_limit_is_handed_back() -> None:
    with warnings.catch_warnings():
        assert read_literal("[" * 200 + "]" * 200) is not None
        assert read_literal("[" * 201 + "]" * 201) is None
        assert literal("[" * 201 + "]" * 201) == (False, None)
