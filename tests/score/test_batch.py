"""The batch path (``score_texts`` / ``SampleScorer``) gives the per-record path's verdicts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from robustcall.core import GoldenAnswer, Prediction, Sample, ToolSpec
from robustcall.formats import parse_tool_calls, read_tool_calls
from robustcall.score import PARALLEL_MIN, BfclChecker, score_prediction, score_texts, to_verdict

FIXTURE = Path(__file__).parent / "data" / "bfcl_oracle_verdicts.jsonl"
CORPUS = Path("/tmp/bfcl_corpus/corpus.jsonl")


def _rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _per_record(sample: Sample, text: str) -> Any:
    calls = parse_tool_calls(text, "bfcl", sample.tools).calls
    return score_prediction(sample, Prediction(raw_output=text, tool_calls=calls))


def _pairs(bfcl_by_id: dict[str, Sample], rows: list[dict[str, Any]]) -> list[tuple[Sample, str]]:
    return [(bfcl_by_id[r["id"]], r["output"]) for r in rows]


def test_batch_equals_per_record_on_fixture(bfcl_by_id: dict[str, Sample]) -> None:
    rows = _rows(FIXTURE)
    pairs = _pairs(bfcl_by_id, rows)
    scored = score_texts(pairs, "bfcl")
    assert [to_verdict(s, x) for (s, _), x in zip(pairs, scored, strict=True)] == [_per_record(s, t) for s, t in pairs]
    assert [x.correct for x in scored] == [r["upstream_valid"] for r in rows]


@pytest.mark.skipif(not CORPUS.is_file(), reason="full oracle corpus not built")
def test_batch_equals_per_record_on_corpus_single_and_parallel(bfcl_by_id: dict[str, Sample]) -> None:
    pairs = _pairs(bfcl_by_id, _rows(CORPUS))
    assert len(pairs) >= PARALLEL_MIN
    single = score_texts(pairs, "bfcl")
    assert score_texts(pairs, "bfcl", processes=2) == single
    wrong = [(s.id, t) for (s, t), x in zip(pairs, single, strict=True) if to_verdict(s, x) != _per_record(s, t)]
    assert wrong == [], wrong[:5]


def test_read_tool_calls_equals_parse_tool_calls() -> None:
    tools = [ToolSpec(name="f", parameters={"type": "dict", "properties": {"a": {"type": "integer"}}})]
    texts = [
        "[f(a=1)]",
        "[]",
        " [f(1)] ",
        "```python\n[f(a=2)]\n```",
        "<think>[f(a=3)]</think>[f(a=4)]",
        "f(a=5)",
        "[f(a=1+1)]",
        "[func_name='f', params={'a': 6}]",
        "[f(a:7)]",
        "[" * 5000 + "]" * 5000,
        "",
        "'''",
    ]
    for text in texts:
        want = [(c.name, c.arguments) for c in parse_tool_calls(text, "bfcl", tools).calls]
        assert read_tool_calls(text, "bfcl", tools) == want, text[:40]


def test_read_tool_calls_shared_says_when_tools_do_not_matter() -> None:
    from robustcall.formats._parse import read_tool_calls_shared

    tools = [ToolSpec(name="f", parameters={"type": "dict", "properties": {"a": {"type": "integer"}}})]
    texts = ["[f(a=1)]", "[]", "I cannot help with that.", "f(1)", "[f(1)]", '{"f": {"a": 1}}', "call f(a=2) now"]
    for text in texts:
        with_tools, shared = read_tool_calls_shared(text, "bfcl", tools)
        assert with_tools == read_tool_calls(text, "bfcl", tools)
        if shared:
            assert read_tool_calls_shared(text, "bfcl", None)[0] == with_tools, text
            assert read_tool_calls_shared(text, "bfcl", [])[0] == with_tools, text
    # these read differently under another tool list, so a batch must not share them
    assert not read_tool_calls_shared("[f(1)]", "bfcl", tools)[1]
    assert not read_tool_calls_shared('{"f": {"a": 1}}', "bfcl", tools)[1]


def test_batch_reuses_a_text_only_where_the_tools_do_not_matter(bfcl_by_id: dict[str, Sample]) -> None:
    base = next(s for s in bfcl_by_id.values() if s.category == "simple")

    def sample(sid: str, param: str) -> Sample:
        props = {param: {"type": "integer"}}
        tool = ToolSpec(name="f", parameters={"type": "dict", "properties": props, "required": [param]})
        gold = GoldenAnswer(name="f", acceptable={param: [1]})
        return base.model_copy(update={"id": sid, "tools": [tool], "golden_answers": [gold]})

    a, b = sample("a", "a"), sample("b", "b")
    pairs = [(a, "[f(1)]"), (b, "[f(1)]"), (a, "[f(a=1)]"), (b, "[f(a=1)]"), (a, "no"), (b, "no")]
    want = [_per_record(s, t) for s, t in pairs]
    assert [to_verdict(s, x) for (s, _), x in zip(pairs, score_texts(pairs, "bfcl"), strict=True)] == want
    assert [v.correct for v in want] == [True, True, True, False, False, False]


def test_checker_reused_across_calls_keeps_verdicts() -> None:
    tool = ToolSpec(
        name="f",
        parameters={
            "type": "dict",
            "properties": {"a": {"type": "string"}, "b": {"type": "array", "items": {"type": "integer"}}},
            "required": ["a"],
        },
    )
    gold = GoldenAnswer(name="f", acceptable={"a": ["New York", "NYC"], "b": [[1, 2], ""]})
    checker = BfclChecker("simple_python", [tool], [gold])
    cases: list[tuple[list[tuple[str, dict[str, Any]]], str | None]] = [
        ([("f", {"a": "new york"})], None),
        ([("f", {"a": "nyc", "b": [1, 2]})], None),
        ([("f", {"a": "LA"})], "value_error:string"),
        # upstream: an acceptable value that is no list ("": may be omitted) lets any item type through
        ([("f", {"a": "NYC", "b": [1, "2"]})], "value_error:list/tuple"),
        ([("f", {"a": "NYC", "b": [2, 1]})], "value_error:list/tuple"),
        ([("f", {"b": [1, 2]})], "simple_function_checker:missing_required"),
        ([("g", {"a": "NYC"})], "simple_function_checker:wrong_func_name"),
        ([], "simple_function_checker:wrong_count"),
    ]
    for _ in range(2):  # the second pass runs on the prepared (cached) parameter rules
        assert [checker.check(calls) for calls, _ in cases] == [want for _, want in cases]


def test_schema_upstream_crashes_on_is_a_checker_error_every_time() -> None:
    tool = ToolSpec(name="f", parameters={"type": "dict", "properties": {"a": {"description": "no type"}}})
    checker = BfclChecker("simple_python", [tool], [GoldenAnswer(name="f", acceptable={"a": [1]})])
    assert checker.check([("f", {"a": 1})]) == "checker_error:KeyError"
    assert checker.check([("f", {"a": 1})]) == "checker_error:KeyError"


def test_a_failing_worker_is_reported(bfcl_by_id: dict[str, Sample]) -> None:
    # the second half (the forked worker's slice) holds a text that is not text, so only it fails;
    # bad data rather than a monkeypatch, which the mypyc-compiled module would not see
    sample = next(iter(bfcl_by_id.values()))
    half = PARALLEL_MIN // 2
    pairs: list[Any] = [(sample, "[]")] * half + [(sample, None)] * half
    with pytest.raises(RuntimeError, match="score_texts worker failed: TypeError"):
        score_texts(pairs, "bfcl", processes=2)
