"""``core.kept_or_built``: the one way robustcall's caches of derived data are read and written."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from robustcall.core import EvalConfig, Message, Sample, SourceInfo, ToolSpec, kept_or_built

SAMPLE = Sample(
    id="s1",
    benchmark="bfcl_v3",
    category="simple",
    source=SourceInfo(original_id="s1", benchmark="bfcl_v3", file="f.json"),
    conversation=[Message(role="user", content="hi")],
    tools=[ToolSpec.model_validate({"name": "f", "parameters": {"type": "dict"}, "x_extra": 1})],
    golden_answers=[],
    eval_config=EvalConfig(method="bfcl_ast", output_format="bfcl"),
)


def test_built_once_then_read_back_equal(tmp_path: Path) -> None:
    calls: list[int] = []

    def build() -> list[Sample]:
        calls.append(1)
        return [SAMPLE, SAMPLE]

    path = tmp_path / "c" / "x.pickle"
    for trusted in (True, False):
        path.unlink(missing_ok=True)
        first = kept_or_built(path, build, list, trusted=trusted)
        again = kept_or_built(path, build, list, trusted=trusted)
        assert again == first == [SAMPLE, SAMPLE]
        assert again[0].tools[0].model_extra == {"x_extra": 1}  # a model's extra fields read back too
        assert again[0] is again[1]  # what was one object is one object
    assert len(calls) == 2


@pytest.mark.parametrize("kept", [b"not a pickle", b"", pickle.dumps({"a": 1}), pickle.dumps(3)[:-1]])
def test_a_damaged_or_other_entry_is_built_anew_and_replaced(tmp_path: Path, kept: bytes) -> None:
    path = tmp_path / "x.pickle"
    path.write_bytes(kept)
    assert kept_or_built(path, lambda: [1, 2], list) == [1, 2]
    assert pickle.loads(path.read_bytes()) == [1, 2]


def test_a_cache_that_cannot_be_written_still_gives_the_data(tmp_path: Path) -> None:
    (tmp_path / "a file").write_text("")
    assert kept_or_built(tmp_path / "a file" / "x.pickle", lambda: [1], list) == [1]


def test_what_does_not_pickle_is_given_not_kept(tmp_path: Path) -> None:
    path = tmp_path / "x.pickle"
    assert kept_or_built(path, lambda: [lambda: 1], list)[0]() == 1
    assert not path.exists()
