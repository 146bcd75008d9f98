"""Clear errors: unknown source, no data dir, missing files."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from robustcall.sources import NEEDS_DATA_DIR, MissingDataError, UnknownSourceError, load_source


def test_unknown_source() -> None:
    with pytest.raises(UnknownSourceError, match="unknown source 'bfcl_v4'; known: bfcl, apibank"):
        load_source("bfcl_v4")


@pytest.mark.parametrize("name", sorted(NEEDS_DATA_DIR))
def test_data_dir_sources_need_a_data_dir(name: str) -> None:
    with pytest.raises(MissingDataError, match=rf"source '{name}' reads local files: pass data_dir \(CLI: --data-dir"):
        load_source(name)


@pytest.mark.parametrize("name", sorted(NEEDS_DATA_DIR))
def test_missing_files_are_named(name: str, tmp_path: Path) -> None:
    with pytest.raises(MissingDataError, match=rf"source '{name}': missing under {tmp_path}: "):
        load_source(name, tmp_path)


def test_missing_data_dir(tmp_path: Path) -> None:
    with pytest.raises(MissingDataError, match="does not exist"):
        load_source("rotbench", tmp_path / "nope")


def test_missing_tooleyes_library_is_named(tmp_path: Path, shared_data: Path) -> None:
    (tmp_path / "tooleyes" / "Test_Data").mkdir(parents=True)
    shutil.copy(shared_data / "tooleyes/Test_Data/scenario_data_raw.json", tmp_path / "tooleyes/Test_Data/")
    with pytest.raises(MissingDataError, match=r"item 0: its tool library tooleyes/Tool_Library/Random/Random/config"):
        load_source("tooleyes", tmp_path)
