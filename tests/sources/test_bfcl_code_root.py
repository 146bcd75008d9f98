"""BFCL's own code is imported from the wheel's Python files unpacked once beside it (byte-compiled,
unmodified); an unpacking without its marker is done again; a cache that cannot be written falls
back to importing from the wheel file."""

from __future__ import annotations

import shutil
import tempfile
import zipfile
from pathlib import Path

import pytest

from robustcall.sources import fetch_bfcl
from robustcall.sources._bfcl import bfcl_code_root


def _wheel_copy(tmp_path: Path) -> Path:
    wheel = fetch_bfcl(quiet=True)
    return Path(shutil.copy(wheel, tmp_path / wheel.name))


def test_the_wheels_python_files_are_unpacked_unmodified_and_compiled(tmp_path: Path) -> None:
    wheel = _wheel_copy(tmp_path)
    root = bfcl_code_root(wheel)
    assert root == tmp_path / (wheel.name + ".code")
    member = "bfcl_eval/eval_checker/multi_turn_eval/func_source_code/gorilla_file_system.py"
    with zipfile.ZipFile(wheel) as zf:
        assert (root / member).read_bytes() == zf.read(member)
        assert sum(1 for m in zf.namelist() if m.startswith("bfcl_eval/") and m.endswith(".py")) == sum(
            1 for _ in (root / "bfcl_eval").rglob("*.py")
        )
    assert list((root / member).parent.glob("__pycache__/gorilla_file_system.*.pyc"))
    assert bfcl_code_root(wheel) == root  # kept: no second unpacking
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".code-")]


def test_an_unpacking_without_its_marker_is_done_again(tmp_path: Path) -> None:
    wheel = _wheel_copy(tmp_path)
    root = bfcl_code_root(wheel)
    (root / "UNPACKED").unlink()
    (root / "bfcl_eval" / "__init__.py").write_text("broken = True\n")
    assert bfcl_code_root(wheel) == root
    assert "broken" not in (root / "bfcl_eval" / "__init__.py").read_text()
    assert (root / "UNPACKED").is_file()


def test_a_cache_that_cannot_be_written_imports_from_the_wheel_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    wheel = _wheel_copy(tmp_path)

    def read_only(*_args: object, **_kwargs: object) -> str:
        raise PermissionError(13, "Permission denied", str(tmp_path))

    monkeypatch.setattr(tempfile, "mkdtemp", read_only)
    assert bfcl_code_root(wheel) == wheel
