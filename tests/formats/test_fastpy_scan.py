"""The hand scanner of flat BFCL lists (``_flatreader._scan_flat``) reads what the regex reader reads.

``read_flat`` reads an ASCII text with the scanner and any other text with the regexes
(``read_flat_re``); both must give the same calls (the same values, of the same types), the same
``None``, or the same exception (an integer past Python's digit limit), on every text.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from robustcall.formats._canonical import _EMBEDDED_LIST, embedded_list
from robustcall.formats._flatreader import _scan_flat, read_flat, read_flat_re

_WS = ["", "", "", " ", "  ", "\n", "\t", "\x0b", "\x0c", "\r", "\x1c", "\x1f"]
_NAMES = ["f", "get_weather", "math.hcf", "a.b.c", "_x1", "A9", "units", "True", "None", "False", "truex", "nullz"]
_SCALARS = [
    "'x'", '"New York, NY"', "''", '""', "'it\"s'", "\"it's\"", "'a,b)'", "'[f(a=1)]'", "0", "-0", "7", "-12", "3.5",
    "-0.25", "1e5", "2E-3", "1.5e+10", "0.0", "10", "123456789012345678901234567890", "name", "True", "False",
    "None", "_n", "'\t'",
]  # fmt: skip
_NOT_FLAT = ["true", "false", "null", "'a\\'b'", "'a\nb'", "01", "1.", ".5", "1e", "-", "1e+", "'open", "1" * 5000]
_NOISE = [*"[](){}=,.:'\"\\-+eE0159 \n\tax_", "true", "\x1c", "é", "\u2003", "\xa0"]


def _ws(rng: random.Random) -> str:
    return rng.choice(_WS)


def _scalar(rng: random.Random) -> str:
    return rng.choice(_NOT_FLAT if rng.random() < 0.02 else _SCALARS)


def _value(rng: random.Random) -> str:
    if rng.random() < 0.25:
        items = [_scalar(rng) + _ws(rng) for _ in range(rng.randrange(4))]
        sep = "," + _ws(rng)
        tail = rng.choice(["", ","]) + _ws(rng) if items else ""
        return "[" + _ws(rng) + sep.join(items) + tail + "]"
    return _scalar(rng)


def _call(rng: random.Random) -> str:
    args = [
        rng.choice(_NAMES[:7]).split(".")[0] + _ws(rng) + "=" + _ws(rng) + _value(rng) + _ws(rng)
        for _ in range(rng.randrange(11))
    ]
    tail = rng.choice(["", ","]) + _ws(rng) if args else ""
    return rng.choice(_NAMES) + _ws(rng) + "(" + _ws(rng) + ("," + _ws(rng)).join(args) + tail + ")" + _ws(rng)


def _text(rng: random.Random) -> str:
    calls = [_call(rng) for _ in range(rng.randrange(1, 5))]
    text = "[" + _ws(rng) + ("," + _ws(rng)).join(calls) + rng.choice(["", ","]) + _ws(rng) + "]"
    for _ in range(rng.choice([0, 0, 0, 0, 1, 1, 2, 3])):  # mutate: insert, delete or replace a character
        pos = rng.randrange(len(text) + 1)
        k = rng.randrange(3)
        if k == 0:
            text = text[:pos] + rng.choice(_NOISE) + text[pos:]
        elif k == 1:
            text = text[:pos] + text[pos + 1 :]
        else:
            text = text[:pos] + rng.choice(_NOISE) + text[pos + 1 :]
    return text


def _outcome(fn: object, text: str) -> str:
    try:
        return repr(fn(text))  # type: ignore[operator]  # repr: 1, 1.0 and True differ
    except ValueError as exc:
        return f"{type(exc).__name__}: {exc}"


def test_the_scanner_reads_what_the_regexes_read_on_random_texts() -> None:
    rng = random.Random(20)
    read = declined = raised = 0
    for _ in range(30_000):
        text = _text(rng)
        want = _outcome(read_flat_re, text)
        assert _outcome(read_flat, text) == want, text
        if text.isascii():
            assert _outcome(_scan_flat, text) == want, text
        if want == "None":
            declined += 1
        elif want.startswith("ValueError"):
            raised += 1
        else:
            read += 1
    # every outcome well covered (a call of True, None or False, a quarter of the calls, is declined)
    assert read > 7_000 and declined > 10_000 and raised > 100


def test_the_scanner_reads_what_the_regexes_read_on_the_examples() -> None:
    cases = {
        "[f(a=1)]": [("f", {"a": 1})],
        "[ m.f ( a = 'x' , b=[1, 2.0, True,] , ) , g() , ]": [("m.f", {"a": "x", "b": [1, 2.0, True]}), ("g", {})],
        "[f(a=-0.5e3, b=None, c=units, d=[])]": [("f", {"a": -500.0, "b": None, "c": "units", "d": []})],
        "[f(a=true)]": None,  # decided by the schema, on the ast path
        "[f(a=01)]": None,
        "[f(a='x\\'y')]": None,
        "[]": None,
        "[f(a=1)] ": None,
        "[f(a=1)": None,
        "[f(a=1) g(b=2)]": None,
        "[f(a=1),,]": None,
    }
    for text, want in cases.items():
        assert read_flat(text) == want, text
        assert read_flat_re(text) == want, text


def test_the_scanner_reads_what_the_regexes_read_on_the_oracle_corpus() -> None:
    corpus = Path("/tmp/bfcl_corpus/corpus.jsonl")
    if not corpus.is_file():
        pytest.skip("no oracle corpus (benchmarks/parse_score.py says how to build it)")
    texts = {json.loads(line)["output"] for line in corpus.read_text().splitlines() if line.strip()}
    for text in texts:
        for t in (text, text.strip()):
            assert _outcome(read_flat, t) == _outcome(read_flat_re, t), t


def test_the_embedded_list_scan_finds_what_the_regex_finds() -> None:
    rng = random.Random(21)
    alphabet = [*"[[[(=.__aZ9 \n\t\x1c", "[f(", "[ a.b =", "é", "\u2003", "[x", "]"]
    found = 0
    for _ in range(40_000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(12)))
        start = rng.randrange(len(text) + 1)
        end = rng.randrange(start, len(text) + 1)
        want = _EMBEDDED_LIST.search(text, start, end) is not None
        assert embedded_list(text, start, end) is want, (text, start, end)
        found += want
    assert 1_000 < found < 39_000  # both outcomes well covered


@pytest.mark.parametrize(
    ("text", "calls"),
    [
        ("[f(a=if)]", []),  # a keyword is no value: Python's parser refuses the answer, as upstream's does
        ("[f(if=1)]", []),
        ("[if(a=1)]", []),
        ("[f(a=[1, else])]", []),
        ("[f(a=ｘ)]", [("f", {"a": "x"})]),  # ast folds a non-ASCII name to NFKC: so do we
        ("[f(ｘ=1)]", [("f", {"x": 1})]),
        ("[f(a=1, a=2)]", [("f", {"a": 2})]),  # the parser keeps both; the last wins, as upstream
        ("[f(a=True, b=None, c=x, d=iff)]", [("f", {"a": True, "b": None, "c": "x", "d": "iff"})]),
    ],
)
def test_the_fast_readers_read_names_as_pythons_parser_does(text: str, calls: list[object]) -> None:
    from robustcall.formats import parse_tool_calls, read_tool_calls

    assert read_tool_calls(text, "bfcl") == calls
    assert [(c.name, c.arguments) for c in parse_tool_calls(text, "bfcl").calls] == calls
