"""Parser fuzz test (issues 22, 30): 20,000 generated hostile answers with a fixed seed (one in a
hundred a pathological shape of up to 100 KB), each parsed in its output format and scored against a
BFCL sample: no exception, no input over 1 s, nothing executed. The million-input run, and the 50 ms
goal per input, is benchmarks/fuzz_parser.py (same generator)."""

from __future__ import annotations

import importlib.abc
import sys
import time
from collections.abc import Iterator, Sequence
from types import ModuleType
from typing import Any

import pytest
from fuzz_inputs import CANARY_FILE, CANARY_MODULE, inputs

from robustcall.core import EvalConfig, GoldenAnswer, Message, Sample, SourceInfo, ToolSpec
from robustcall.formats import parse_tool_calls, read_tool_calls
from robustcall.score import SampleScorer

SEED = 22
N = 20_000
LIMIT_S = 2.0
"""A stall, not a speed goal (the slowest input, a dense 99 KB call list, takes about 0.3 s; on a
shared machine under load up to twice that): the 50 ms goal is benchmarks/fuzz_parser.py's."""


class _Canary(importlib.abc.MetaPathFinder):
    """Records any attempt to import the canary module (only executed model text would)."""

    def __init__(self) -> None:
        self.hits: list[str] = []

    def find_spec(self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None) -> Any:
        if fullname.split(".")[0] == CANARY_MODULE:
            self.hits.append(fullname)
        return None


@pytest.fixture()
def canary() -> Iterator[_Canary]:
    CANARY_FILE.unlink(missing_ok=True)
    finder = _Canary()
    sys.meta_path.insert(0, finder)
    try:
        yield finder
    finally:
        sys.meta_path.remove(finder)


def _sample(fmt: str) -> Sample:
    tool = ToolSpec(
        name="f",
        description="f.",
        parameters={"type": "dict", "properties": {"a": {"type": "integer", "description": "a"}}, "required": ["a"]},
    )
    return Sample(
        id=f"fuzz_{fmt}",
        benchmark="bfcl_v3",
        category="simple",
        source=SourceInfo(original_id="fuzz", benchmark="bfcl_v3"),
        conversation=[Message(role="user", content="call f")],
        tools=[tool],
        golden_answers=[GoldenAnswer(name="f", parameters={"a": 1}, acceptable={"a": [1]})],
        eval_config=EvalConfig(method="bfcl_ast", output_format=fmt),  # type: ignore[arg-type]
    )


def check(text: str, fmt: Any, scorers: dict[str, SampleScorer]) -> float:
    """Parse and score one input; returns the CPU seconds it took (this process's CPU time, so that
    other work on a shared machine does not count; raises whatever the parser raises).
    BFCL text goes through the batch scorer's reader (its fast paths first), the rest through
    ``parse_tool_calls``."""
    t0 = time.process_time()
    scorer = scorers[fmt]
    if fmt == "bfcl":
        calls = read_tool_calls(text, fmt, scorer.sample.tools)
    else:
        got = parse_tool_calls(text, fmt, scorer.sample.tools)
        assert not (got.refused and got.calls)
        calls = [(c.name, c.arguments) for c in got.calls]
    scorer.judge(text, calls)
    return time.process_time() - t0


@pytest.mark.filterwarnings("ignore::SyntaxWarning", "ignore::DeprecationWarning")  # ast.parse on junk
def test_fuzzed_answers_never_raise_stall_or_execute(canary: _Canary) -> None:
    scorers = {fmt: SampleScorer(_sample(fmt)) for fmt in ("bfcl", "tool_call", "react", "json")}
    slow: list[tuple[float, str]] = []
    for text, fmt in inputs(SEED, N):
        took = check(text, fmt, scorers)
        if took > LIMIT_S:  # timed again: other work on the machine only ever slows a try down
            took = min(took, check(text, fmt, scorers))
        if took > LIMIT_S:
            slow.append((took, text[:80]))
    assert slow == []
    assert canary.hits == []
    assert not CANARY_FILE.exists()
