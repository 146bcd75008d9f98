"""The ground truth's multi-turn replay kept in the cache (``score._bfcl_truth``) changes no verdict:
the same error types with and without it on the ground truth and its mutations (the corpus of
``benchmarks/bfcl_mt_corpus.py``); the model's instances copied from the cached load equal BFCL's
fresh load; a damaged cache file is replayed and written again; a hand-made task is replayed."""

from __future__ import annotations

import dataclasses
import json
import pickle
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from robustcall.envs import BfclInstances, load_tasks
from robustcall.score import _bfcl_truth as truth
from robustcall.score import check_multi_turn, task_of


@pytest.fixture
def own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setattr(truth, "_folder", lambda: tmp_path / "bfcl-truth" / "key")
    truth._category_truth.cache_clear()
    yield tmp_path
    truth._category_truth.cache_clear()


def _verdicts(rows: list[dict[str, Any]]) -> list[str | None]:
    return [check_multi_turn(task_of(str(r["id"])), r["result"], r["shape"] == "fc") for r in rows]


def test_the_cache_changes_no_verdict(
    own_cache: Path, monkeypatch: pytest.MonkeyPatch, bfcl_mt_corpus: Callable[[int], list[dict[str, Any]]]
) -> None:
    rows = bfcl_mt_corpus(6)
    cached = _verdicts(rows)  # builds the four categories' files, then reads them
    assert len(list(own_cache.glob("bfcl-truth/*/multi_turn_*.pickle"))) == 4
    truth._category_truth.cache_clear()
    read_back = _verdicts(rows)
    monkeypatch.setenv(truth.CACHE_ENV, "0")
    replayed = _verdicts(rows)
    assert cached == read_back == replayed
    assert {v for v in replayed} >= {
        None,
        "multi_turn:instance_state_mismatch",
        "multi_turn:execution_response_mismatch",
    }


def test_the_models_instances_copied_from_the_cached_load_equal_bfcls_load(own_cache: Path) -> None:
    for category in ("multi_turn_base", "multi_turn_long_context"):
        for task in load_tasks(category)[:20]:
            fresh = BfclInstances(task.classes, task.initial_config, task.long_context)
            copied = truth.truth_replay(task).fresh_instances(task)
            assert list(copied.instances) == list(fresh.instances) == task.classes
            for cls, inst in fresh.instances.items():
                assert type(copied.instances[cls]) is type(inst)
                assert vars(copied.instances[cls]).keys() == vars(inst).keys()
                assert truth._public(copied.instances[cls]) == truth._public(inst), (task.id, cls)
            assert copied._methods == fresh._methods


def test_a_damaged_cache_file_is_replayed_and_written_again(own_cache: Path) -> None:
    task = load_tasks("multi_turn_miss_param")[3]
    first = truth.truth_replay(task)
    path = next(own_cache.glob("bfcl-truth/*/multi_turn_miss_param.pickle"))
    path.write_bytes(b"not a pickle")
    truth._category_truth.cache_clear()
    again = truth.truth_replay(task)
    assert [t[0] for t in again.turns] == [t[0] for t in first.turns]
    assert pickle.loads(path.read_bytes())[task.id].turns[0][0] == first.turns[0][0]


def test_a_hand_made_task_is_replayed_not_read_from_the_cache(own_cache: Path) -> None:
    task = load_tasks("multi_turn_base")[0]
    changed = dataclasses.replace(task, ground_truth=[[] for _ in task.ground_truth])
    replay = truth.truth_replay(changed)
    assert all(turn[0] == [] for turn in replay.turns)
    assert not list(own_cache.glob("bfcl-truth/*/*.pickle"))  # nothing built for it


def test_a_fresh_process_reads_the_cache_before_importing_any_api_class(
    bfcl_mt_corpus: Callable[[int], list[dict[str, Any]]],
) -> None:
    """The pickles name BFCL's classes: a process that reads them first (nothing replayed yet) must
    import them from the wheel's code, or unpickling fails."""
    code = (
        "import json, sys\n"
        "from robustcall.score import check_multi_turn, task_of\n"
        "rows = json.loads(sys.stdin.read())\n"
        "print(json.dumps([check_multi_turn(task_of(r['id']), r['result'], r['shape'] == 'fc') for r in rows]))"
    )
    rows = [r for r in bfcl_mt_corpus(2) if str(r["id"]).startswith("multi_turn_miss_func")]
    want = [check_multi_turn(task_of(str(r["id"])), r["result"], r["shape"] == "fc") for r in rows]  # builds it
    for _ in range(2):
        got = subprocess.run([sys.executable, "-c", code], input=json.dumps(rows), capture_output=True, text=True)
        assert got.returncode == 0, got.stderr[-2000:]
        assert json.loads(got.stdout) == want
