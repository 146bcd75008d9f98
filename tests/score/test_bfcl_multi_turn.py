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


def test_turns_that_follow_the_ground_truth_get_the_verdicts_of_running_them(
    bfcl_mt_corpus: Callable[[int], list[dict[str, Any]]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Turns that make the ground truth's calls are not run (their results and state are the truth's):
    the verdicts equal those of running every call, and the corpus has such turns before other ones."""
    from robustcall.score import _bfcl_multi_turn

    rows = bfcl_mt_corpus(25)
    fast = [check_multi_turn(task_of(r["id"]), r["result"], r["shape"] == "fc") for r in rows]
    followed = []
    real = _bfcl_multi_turn.truth_calls_alike

    def counting(*args: Any) -> bool:
        followed.append(real(*args))
        return followed[-1]

    monkeypatch.setattr(_bfcl_multi_turn, "truth_calls_alike", counting)
    assert [check_multi_turn(task_of(r["id"]), r["result"], r["shape"] == "fc") for r in rows] == fast
    assert followed.count(True) > 100 and followed.count(False) > 100
    monkeypatch.setattr(_bfcl_multi_turn, "truth_calls_alike", lambda *args: False)
    assert [check_multi_turn(task_of(r["id"]), r["result"], r["shape"] == "fc") for r in rows] == fast


def test_a_ground_truth_call_spelled_as_a_function_calling_answer_runs_alike() -> None:
    from robustcall.score._bfcl_truth import fc_spelling

    assert fc_spelling("mv(source='a.pdf', destination='temp')") == "mv(source='a.pdf',destination='temp')"
    assert fc_spelling('echo(content="it\'s", n=-2, xs=[1, 2.5], d={"k": None})') == (
        "echo(content=\"it's\",n=-2,xs=[1, 2.5],d={'k': None})"
    )
    for call in ("mv('a.pdf', 'temp')", "a.b(x=1)", "f(**k)", "f(x=y)", "f(x=", "f(x=1)()"):
        assert fc_spelling(call) is None, call
    task = task_of("multi_turn_base_0")
    from robustcall.envs import BfclInstances

    inst = BfclInstances(task.classes, task.initial_config, task.long_context)
    assert inst.runs_alike("cd(folder='document')", 'cd(folder = "document")')
    assert not inst.runs_alike("cd(folder='document')", "cd(folder='documents')")
    assert not inst.runs_alike("ls(a=1)", "ls(a=True)")
    assert not inst.runs_alike("ls(a=1)", "ls(a=1")
