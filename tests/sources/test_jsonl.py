"""The generic JSONL loader: round trip of the release record shape, errors with file and line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from robustcall.core import JsonlError, write_jsonl
from robustcall.sources import LoadResult, MissingDataError, load_jsonl_samples, select_clean


def test_round_trip_of_loaded_samples(tmp_path: Path, apibank: LoadResult, rotbench: LoadResult) -> None:
    samples = select_clean(apibank, 5, seed=0) + select_clean(rotbench, 5, seed=0)
    path = tmp_path / "mine.jsonl"
    write_jsonl(path, samples)
    back = load_jsonl_samples(path)
    assert back.samples == samples
    assert back.skipped == {}
    assert list(back.versions) == ["mine.jsonl"] and len(back.versions["mine.jsonl"]) == 64
    write_jsonl(tmp_path / "again.jsonl", back.samples)
    assert (tmp_path / "again.jsonl").read_bytes() == path.read_bytes()


def test_release_record_with_perturbation_block_reads(tmp_path: Path) -> None:
    record = {
        "id": "bfcl_v3__BFCL_v3_multiple__multiple_110",
        "benchmark": "bfcl_v3",
        "category": "multiple",
        "source": {"original_id": "multiple_110", "benchmark": "bfcl_v3", "file": "BFCL_v3_multiple.json", "extra": {}},
        "perturbation": {"type": "realistic_typos", "mdp_category": "observation", "variant": None, "metadata": {}},
        "conversation": [{"role": "user", "content": "Find teh type of gene mutaiton"}],
        "tools": [{"name": "mutation_type.find", "description": "d", "parameters": {"type": "dict", "properties": {}}}],
        "golden_answers": [{"name": "mutation_type.find", "parameters": {"snp_id": "rs6034464"}}],
        "eval_config": {"method": "bfcl_ast"},
    }
    path = tmp_path / "release.jsonl"
    path.write_text(json.dumps(record) + "\n\n")
    (s,) = load_jsonl_samples(path).samples
    assert s.perturbation.type == "realistic_typos"
    assert s.golden_answers[0].parameters == {"snp_id": "rs6034464"}


def test_malformed_line_names_file_and_line(tmp_path: Path, apibank: LoadResult) -> None:
    path = tmp_path / "bad.jsonl"
    write_jsonl(path, apibank.samples[:2])
    with open(path, "a") as fh:
        fh.write('{"id": "x", "benchmark": \n')
    with pytest.raises(JsonlError) as err:
        load_jsonl_samples(path)
    assert err.value.line == 3
    assert f"{path}:3:" in str(err.value)


def test_invalid_record_names_file_line_and_field(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps({"id": "x", "benchmark": "b", "category": "c"}) + "\n")
    with pytest.raises(JsonlError, match=r"bad\.jsonl:1: field source"):
        load_jsonl_samples(path)


def test_duplicate_id_is_an_error(tmp_path: Path, apibank: LoadResult) -> None:
    path = tmp_path / "dup.jsonl"
    write_jsonl(path, [apibank.samples[0], apibank.samples[1], apibank.samples[0]])
    with pytest.raises(JsonlError, match=r"dup\.jsonl:3: duplicate id 'apibank__level1_0' \(first on line 1\)"):
        load_jsonl_samples(path)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(MissingDataError, match="no such JSONL file"):
        load_jsonl_samples(tmp_path / "nope.jsonl")
