"""The adversarial generator's shapes (issue 34: an open quote before deep nestings of every bracket
kind, with colons, hashes, escapes, digits, keyword arguments, strings, fences and tags) parse in
linear work in every output format, at 1 KB, 10 KB and 99 KB. Work is counted (the parse's work
account, :data:`robustcall.formats._bounds.READERS` weights), so the check does not depend on the
machine; the time bound is generous (the goals, 50 ms compiled and 150 ms interpreted per 99 KB
answer, are benchmarks/fuzz_parser.py's)."""

from __future__ import annotations

import time

import pytest
from fuzz_inputs import ADVERSARIAL, ADVERSARIAL_SIZES

import robustcall.formats._bounds as bounds
from robustcall.formats import OUTPUT_FORMATS, parse_tool_calls

_PASSES = 12
"""Weighted characters read per character of text, at most (plus the ``ast`` budget, a constant);
the work bound refuses a text at 16."""


def _work() -> float:
    return sum(chars * bounds.READERS[reader] for reader, chars in bounds.last_spent().items())


@pytest.mark.filterwarnings("ignore::SyntaxWarning", "ignore::DeprecationWarning")
@pytest.mark.parametrize("shape", sorted(ADVERSARIAL))
def test_each_adversarial_shape_is_read_in_linear_work(shape: str) -> None:
    for size in ADVERSARIAL_SIZES:
        text = ADVERSARIAL[shape](size)
        for fmt in OUTPUT_FORMATS:
            t0 = time.process_time()
            got = parse_tool_calls(text, fmt)
            took = time.process_time() - t0
            assert took < 2.0, (shape, size, fmt, took)  # a stall, not the goal: 0.01-0.5 s here
            assert not (got.refused and got.calls)
            assert "more parsing than" not in (got.refused or ""), (shape, size, fmt)  # never the work bound
            if got.refused is not None and ("nested" in got.refused or "brackets;" in got.refused):
                continue  # refused before reading: the depth or the bracket bound saw the brackets
            work = _work()
            assert work <= _PASSES * len(text) + bounds.AST_BUDGET, (shape, size, fmt, work / len(text))


def test_the_issue_34_shapes_read_no_value_deeper_than_the_bound() -> None:
    """The reported shapes: what they hold, read as the depth bound says (a value nests at most
    100 levels; the 100 innermost braces of ``'{{{...}}}`` are a set of sets in Python)."""
    got = parse_tool_calls("'" + "{" * 4_999 + "}" * 4_999, "bfcl")
    assert got.refused is None and got.calls == []
    # the issue's 99,999 characters hold 99,998 brackets: refused before any reader runs
    big = parse_tool_calls("'" + "{" * 49_999 + "}" * 49_999, "bfcl")
    assert big.refused == "unreadable: the answer has 99,998 brackets; the parser reads at most 10,000"
    inside = "'" + "[" * 3_000 + '{"name": "f", "arguments": {"a": 1}}' + "]" * 3_000  # 6,004 brackets
    assert [(c.name, c.arguments) for c in parse_tool_calls(inside, "json").calls] == [("f", {"a": 1})]
