"""Parsing is a bounded step (issue 30, item 1): every pathological shape of the fuzz generator parses
quickly in every output format, and a text that would make the readers re-read it too often is
refused by a count of the work, not a clock, so the same text always gets the same verdict.
The per-shape 50 ms goal is checked by benchmarks/fuzz_parser.py; the bounds here are generous."""

from __future__ import annotations

import json
import time
from collections.abc import Callable

import pytest
from fuzz_inputs import PATHOLOGICAL

import robustcall.formats._bounds as bounds
from robustcall.formats import OUTPUT_FORMATS, parse_tool_calls, read_tool_calls
from robustcall.formats._bfcl import _colons_to_equals


@pytest.mark.filterwarnings("ignore::SyntaxWarning")
@pytest.mark.parametrize("shape", sorted(PATHOLOGICAL))
def test_each_pathological_shape_at_100_kb_parses_in_every_format(shape: str) -> None:
    text = PATHOLOGICAL[shape](99_000)
    for fmt in OUTPUT_FORMATS:
        t0 = time.process_time()
        got = parse_tool_calls(text, fmt)
        took = time.process_time() - t0
        assert took < 3.0, (shape, fmt, took)  # 1 ms to 0.4 s on the shared 2-core machine
        assert not (got.refused and got.calls)


def test_work_used_by_the_stalling_shapes_is_a_few_passes(monkeypatch: pytest.MonkeyPatch) -> None:
    """Operation counts rather than time: what the readers are handed stays within a few passes."""
    used: list[float] = []
    real = bounds.charge

    def count(chars: float, reader: str) -> None:
        used.append(chars * bounds.READERS[reader])
        real(chars, reader)

    for module in ("_pyvalues", "_scan", "_bfcl"):
        monkeypatch.setattr(f"robustcall.formats.{module}.charge", count)
    for shape in ("hash_rule", "hash_rule_spaced", "comma_comments", "colon_args_open", "quote_brackets"):
        text = PATHOLOGICAL[shape](99_000)
        for fmt in OUTPUT_FORMATS:
            used.clear()
            parse_tool_calls(text, fmt)
            assert sum(used) <= 10 * len(text), (shape, fmt, sum(used) / len(text))  # the bound is 16


def test_too_much_rereading_is_refused_the_same_way_every_time() -> None:
    # every level of a nested call list is one more re-read of the text by the BFCL reader
    deep = "x " + "[g(" * 40 + "y z " + "p" * 90_000 + ")]" * 40
    first = parse_tool_calls(deep, "bfcl")
    assert first.calls == [] and first.refused is not None
    assert first.refused.startswith("unreadable: the answer needs more parsing than 16 passes")
    assert all(parse_tool_calls(deep, "bfcl").refused == first.refused for _ in range(3))
    shallow = "x " + "[g(" * 2 + "y z " + "p" * 90_000 + ")]" * 2  # about 9 passes: read
    assert parse_tool_calls(shallow, "bfcl").refused is None
    assert parse_tool_calls("[g(a=1)] " + "p" * 90_000, "json").calls[0].name == "g"


def test_the_bound_applies_to_a_parse_only() -> None:
    """Readers called outside ``parse_tool_calls`` are not bounded, and a parse leaves no account open."""
    parse_tool_calls("[f(a: 1)]", "bfcl")
    assert getattr(bounds._work, "left", None) is None
    assert _colons_to_equals("[f(a: 1)]" + " " * 10**6) is not None


def test_colon_rewrite_reads_python_tokens() -> None:
    assert _colons_to_equals("[f(a: 1, b : {'k': 2}, c: 'x:y')]") == "[f(a= 1, b = {'k': 2}, c= 'x:y')]"
    assert _colons_to_equals("[f(a # c: d\n : 1)]") == "[f(a # c: d\n = 1)]"  # a comment between
    assert _colons_to_equals("[f(x, b'x': 1, y:=2, t[1:2])]") is None  # no name before, walrus, slice
    assert _colons_to_equals("[f(a: '''x\n:''')]") == "[f(a= '''x\n:''')]"
    assert _colons_to_equals("[f(a: 'open)]") is None  # a string left open: no expression either way
    assert _colons_to_equals("[f(" + "#" * 40 + ")]") is None


@pytest.mark.parametrize(
    "render",
    [
        lambda n: "[" + ", ".join(["f(a=1)"] * n) + "]",  # the flat fast reader
        lambda n: "[" + ", ".join(["f(a=[1, {'b': 2}])"] * n) + "]",  # the token reader
        lambda n: "f(a=1) " * n,  # bare calls
        lambda n: "\n".join(['<tool_call>\n{"name": "f", "arguments": {"a": 1}}\n</tool_call>'] * n),  # canonical tags
        lambda n: json.dumps([{"name": "f", "arguments": {"a": 1}}] * n),  # a JSON list
    ],
)
def test_more_calls_than_the_bound_are_refused_in_every_reader(render: Callable[[int], str]) -> None:
    at, past = render(bounds.MAX_CALLS), render(bounds.MAX_CALLS + 1)
    for fmt in OUTPUT_FORMATS:
        got = parse_tool_calls(at, fmt)
        assert len(got.calls) == bounds.MAX_CALLS and got.refused is None, fmt
        assert read_tool_calls(at, fmt) == [(c.name, c.arguments) for c in got.calls]
        refused = parse_tool_calls(past, fmt)
        assert refused.calls == [] and refused.refused == (
            "unreadable: the answer has more than 1,000 calls; the parser reads at most 1,000"
        ), fmt
        assert read_tool_calls(past, fmt) == []


def test_a_long_parse_pauses_the_cyclic_gc_and_restores_it() -> None:
    import gc

    long_text = PATHOLOGICAL["call_list"](bounds.GC_PAUSE_CHARS)
    seen: list[bool] = []
    real = bounds.check_call_count

    def spy(n: int) -> None:
        seen.append(gc.isenabled())
        real(n)

    assert gc.isenabled()
    try:
        bounds_check = "robustcall.formats._jsonblob.check_call_count"  # a module never compiled
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(bounds_check, spy)
            parse_tool_calls(long_text, "json")
        assert seen and not any(seen)  # paused while the calls were counted
        assert gc.isenabled()  # and back on after
        gc.disable()  # a caller that paused it (the batch scorer) keeps it paused
        parse_tool_calls(long_text, "json")
        assert not gc.isenabled()
    finally:
        gc.enable()
