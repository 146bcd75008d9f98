"""JSONL lines end at ``\\n`` only, in every reader (issue 30, item 8): JSON text may hold U+2028,
U+2029, U+0085 (``str.splitlines`` breaks at them) and a bare ``\\r`` between tokens (Python's
universal newlines and ``bytes.splitlines`` break there)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from robustcall.core import iter_json_lines, jsonl_lines
from robustcall.interop._bfcl_files import _result_lines
from robustcall.run._fault_replay import _latest_lines

ODD = ["\u2028", "\u2029", "\u0085", "\x1c", "\x1d", "\x1e", "\x0b", "\x0c"]


def test_jsonl_lines_splits_at_newline_only() -> None:
    text = "".join(json.dumps({"s": f"a{ch}b"}, ensure_ascii=False) + "\n" for ch in ODD)
    lines = [line for line in jsonl_lines(text) if line]
    assert [json.loads(line)["s"] for line in lines] == [f"a{ch}b" for ch in ODD]


def test_iter_json_lines_keeps_a_bare_carriage_return_inside_a_line(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl"
    path.write_bytes(b'{"a": 1,\r"b": "x\xe2\x80\xa8y"}\r\n{"a": 2}\n')  # CR between tokens, U+2028, CRLF
    assert [obj for _, obj in iter_json_lines(path)] == [{"a": 1, "b": "x\u2028y"}, {"a": 2}]


@pytest.mark.parametrize("sep", ["\u2028", "\u0085"])
def test_bfcl_result_files_with_line_separators_in_answers(tmp_path: Path, sep: str) -> None:
    """`bfcl generate` writes model text unescaped (``ensure_ascii=False``)."""
    folder = tmp_path / "result"
    folder.mkdir()
    entries = [{"id": "simple_0", "result": f"text{sep}more"}, {"id": "simple_1", "result": "[f(a=1)]"}]
    path = folder / "BFCL_v4_simple_python_result.json"
    path.write_text("".join(json.dumps(e, ensure_ascii=False) + "\n" for e in entries), encoding="utf-8")
    got = [(n, entry["result"]) for n, entry in _result_lines(path)]
    assert got == [(1, f"text{sep}more"), (2, "[f(a=1)]")]


def test_fault_replay_reads_trajectories_split_at_newline_only(tmp_path: Path) -> None:
    path = tmp_path / "trajectories.jsonl"
    path.write_bytes(b'{"id": "e1",\r"termination": "done"}\n{"id": "e2", "note": "a\xc2\x85b"}\n')
    assert [json.loads(line)["id"] for line in _latest_lines(path)] == ["e1", "e2"]
