"""BFCL's multi-turn checker on finished result entries: every verdict and ``error_type`` equals
upstream's. The entries are made from the wheel's ground truth by ``benchmarks/bfcl_mt_corpus.py``
(right ones and systematic mutations, function-calling and prompting shapes); upstream's verdicts on
them (``benchmarks/bfcl_mt_oracle.py`` in the oracle venv) are committed beside this file."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from robustcall.score._bfcl_decode import NotCalls, decode_fc, decode_prompting
from robustcall.score._bfcl_multi_turn import check_multi_turn, task_of

ORACLE = Path(__file__).parent / "data" / "bfcl_mt_oracle_verdicts.jsonl"


def test_every_verdict_and_error_type_equals_upstreams_on_ground_truth_and_mutations(
    bfcl_mt_corpus: Callable[[int], list[dict[str, Any]]],
) -> None:
    rows = bfcl_mt_corpus(25)
    oracle = [json.loads(x) for x in ORACLE.read_text().splitlines()]
    assert [(r["id"], r["variant"], r["shape"]) for r in rows] == [(o["id"], o["variant"], o["shape"]) for o in oracle]
    differ = [
        (row["id"], row["variant"], row["shape"], got, want["error_type"])
        for row, want in zip(rows, oracle, strict=True)
        if (got := check_multi_turn(task_of(row["id"]), row["result"], row["shape"] == "fc")) != want["error_type"]
    ]
    assert differ == []
    kinds = {o["error_type"] for o in oracle}
    assert kinds == {None, "multi_turn:force_terminated", "multi_turn:empty_turn_model_response",
                     "multi_turn:instance_state_mismatch", "multi_turn:execution_response_mismatch"}  # fmt: skip
    assert {o["id"].rsplit("_", 1)[0] for o in oracle} == {
        "multi_turn_base", "multi_turn_miss_func", "multi_turn_miss_param", "multi_turn_long_context"}  # fmt: skip


def test_a_result_that_is_not_a_list_of_turns_is_an_inference_error() -> None:
    assert check_multi_turn(task_of("multi_turn_base_0"), "Error during inference: timeout", True) == (
        "multi_turn:inference_error"
    )


def test_prompting_decoder_keeps_keywords_only_and_renders_as_bfcl() -> None:
    assert decode_prompting("[cd(folder='x'), ls(a=True)]") == ["cd(folder='x')", "ls(a=True)"]
    assert decode_prompting("sort('a.pdf')") == ["sort()"]  # upstream drops positional arguments
    assert decode_prompting("[f(x=y, n=-2, s=d['k'], t=g(u=1), v=2*3)]") == [
        "f(x='y', n=-2, s=\"d['k']\", t=g(u=1), v=6)"
    ]
    for text in ("I moved the file.", "[1, 2]", "[f(x={})]", "[f(x=lambda: 1)]", "[f(x=+'a')]"):
        with pytest.raises(NotCalls):
            decode_prompting(text)


def test_fc_decoder_reads_json_arguments_and_refuses_text() -> None:
    assert decode_fc([{"cd": '{"folder": "x"}'}, {"pwd": {}}]) == ["cd(folder='x')", "pwd()"]
    for item in ("Done.", [{"cd": "not json"}], [{"cd": "[1]"}]):
        with pytest.raises(NotCalls):
            decode_fc(item)
