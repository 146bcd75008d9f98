"""The run-directory schema: versions stamped on write, newer formats refused with one line, files
written before formats were numbered read leniently."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from robustcall import __version__
from robustcall.core import (
    FORMAT_VERSION,
    SCORER_VERSION,
    BenchManifest,
    MissingInputError,
    NewerFormatError,
    RunFileError,
    RunMeta,
    TrajectoryRunMeta,
    UserError,
    read_bench_manifest,
    read_run_meta,
    read_trajectory_run_meta,
    type_file,
)


def test_written_with_versions_and_only_the_fields_given(tmp_path: Path) -> None:
    meta = RunMeta(model="scripted:oracle", mode="fc", limit=None, shard=None)
    path = meta.write(tmp_path)
    assert path == tmp_path / "run.json"
    assert json.loads(path.read_text()) == {
        "format_version": FORMAT_VERSION,
        "robustcall_version": __version__,
        "scorer_version": SCORER_VERSION,
        "limit": None,
        "mode": "fc",
        "model": "scripted:oracle",
        "shard": None,
    }
    assert path.read_text().startswith(f'{{\n  "format_version": {FORMAT_VERSION},\n')  # sorted keys, two-space indent
    back = read_run_meta(tmp_path)
    assert (back.format_version, back.model, back.mode, back.bench) == (FORMAT_VERSION, "scripted:oracle", "fc", None)
    assert back.given("limit") and not back.given("bench")
    assert back.dump_json() == path.read_text()  # reads and writes back unchanged


def test_trajectory_meta_always_says_its_kind(tmp_path: Path) -> None:
    TrajectoryRunMeta(env="maze", model="scripted:expert", max_steps=5).write(tmp_path)
    data = json.loads((tmp_path / "run.json").read_text())
    assert data["kind"] == "faults" and data["max_steps"] == 5
    pipe = TrajectoryRunMeta(kind="pipe", env="maze", model="m", max_steps=3, level="synonym", order=1)
    pipe.write(tmp_path)
    assert read_trajectory_run_meta(tmp_path / "run.json").level == "synonym"


@pytest.mark.parametrize(
    ("reader", "data"),
    [
        (read_run_meta, {"model": "local"}),
        (read_bench_manifest, {"seed": 0}),
        (read_trajectory_run_meta, {"env": "maze", "model": "m", "max_steps": 3}),
    ],
)
def test_a_newer_format_is_refused_in_one_line(tmp_path: Path, reader: object, data: dict[str, object]) -> None:
    path = tmp_path / "meta.json"
    path.write_text(json.dumps({**data, "format_version": FORMAT_VERSION + 1, "robustcall_version": "9.9.0"}))
    with pytest.raises(NewerFormatError) as info:
        reader(path)  # type: ignore[operator]
    assert str(info.value) == (
        f"{path}: written by robustcall 9.9.0 with run format {FORMAT_VERSION + 1}; "
        f"this robustcall ({__version__}) reads up to {FORMAT_VERSION}: upgrade"
    )
    assert isinstance(info.value, UserError) and "\n" not in str(info.value)


def test_a_file_without_format_version_is_format_0_read_leniently(tmp_path: Path) -> None:
    # run.json as robustcall wrote it before the schema (mode null, no settings, no versions)
    old = {
        "answer_settings": None,
        "base_url": None,
        "bench": "/x/bench",
        "bench_digest": "ab" * 32,
        "endpoint": None,
        "limit": 4,
        "mode": None,
        "model": "scripted:oracle",
        "model_name": "scripted:oracle",
        "settings_digest": None,
        "shard": None,
        "types": "all",
        "max_tokens": "weird-but-kept",
        "endpoint_history": "not a list",  # does not fit: dropped, not refused
        "something_else": [1, 2],  # unknown: kept
    }
    (tmp_path / "run.json").write_text(json.dumps(old))
    meta = read_run_meta(tmp_path)
    assert (meta.format_version, meta.robustcall_version, meta.scorer_version) == (0, None, None)
    assert (meta.limit, meta.types, meta.mode, meta.max_tokens) == (4, "all", None, "weird-but-kept")
    assert meta.endpoint_history is None and not meta.given("endpoint_history")
    assert meta.given("something_else") and meta.model_extra == {"something_else": [1, 2]}
    # the same misfit in a numbered format is refused, naming the field
    (tmp_path / "run.json").write_text(json.dumps({**old, "format_version": 1}))
    with pytest.raises(RunFileError, match=r"run.json: field endpoint_history: Input should be a valid list"):
        read_run_meta(tmp_path)


def test_old_fault_run_meta_and_manifest_read(tmp_path: Path) -> None:
    fault = {"env": "maze", "data": None, "model": "scripted:expert", "mode": "fc", "format": "tool_call",
             "max_steps": 8, "deltas": [0.0, 0.5], "seeds": [0], "tasks": ["t1"],
             "profile": {"name": "p"}, "prompt": "default"}  # fmt: skip
    (tmp_path / "run.json").write_text(json.dumps(fault))
    meta = read_trajectory_run_meta(tmp_path)
    assert (meta.kind, meta.format_version, meta.deltas, meta.prompt) == ("faults", 0, [0.0, 0.5], "default")
    (tmp_path / "manifest.json").write_text(json.dumps({"seed": 3, "types": ["clean", "CD"], "counts": {"clean": 2}}))
    manifest = read_bench_manifest(tmp_path)
    assert (manifest.seed, manifest.types, manifest.counts, manifest.format_version) == (
        3,
        ["clean", "CD"],
        {"clean": 2},
        0,
    )
    assert isinstance(manifest, BenchManifest)


def test_unreadable_and_missing_files(tmp_path: Path) -> None:
    with pytest.raises(MissingInputError, match=r"run\.json not found"):
        read_run_meta(tmp_path)
    (tmp_path / "run.json").write_text('{"model": ')
    with pytest.raises(RunFileError, match=r"run\.json: not JSON"):
        read_run_meta(tmp_path)
    (tmp_path / "run.json").write_text("[1]")
    with pytest.raises(RunFileError, match="expected a JSON object, got list"):
        read_run_meta(tmp_path)
    (tmp_path / "run.json").write_text('{"format_version": "1"}')
    with pytest.raises(RunFileError, match="format_version must be a whole number"):
        read_run_meta(tmp_path)
    (tmp_path / "run.json").write_text('{"model": "m"}')
    with pytest.raises(RunFileError, match="field env: Field required"):
        read_trajectory_run_meta(tmp_path)


def test_type_files() -> None:
    assert (type_file("clean"), type_file("CD_AB")) == ("clean.jsonl", "CD_AB.jsonl")
