"""The mypyc-compiled modules (``robustcall._native.COMPILED_MODULES``, built by setup.py) are in use
wherever a C compiler exists, and are never older than their sources (in an editable install a stale
extension would silently shadow an edited module).

An explicit ``ROBUSTCALL_PURE_PYTHON=1`` (an install that built no extensions on purpose, or a source
tree on ``PYTHONPATH``) skips the in-use check; anywhere else, a tree whose extensions did not build
fails here, so CI cannot run the pure path while README promises the compiled one.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from robustcall import _native

REPO = Path(__file__).resolve().parents[1]
COMPILED = [name.replace(".", "/") for name in _native.COMPILED_MODULES]


def test_setup_compiles_the_listed_modules() -> None:
    assert "robustcall/score/_batch" in COMPILED and len(COMPILED) == 11
    assert all((REPO / "src" / f"{path}.py").is_file() for path in COMPILED)
    assert "_native.py" in (REPO / "setup.py").read_text()  # setup.py reads the list, not a copy


def test_the_compiled_modules_are_in_use_where_a_c_compiler_exists() -> None:
    if _native.pure_python_requested():
        pytest.skip(f"{_native.PURE_PYTHON_ENV} is set: the modules run as plain Python on purpose")
    if _native.c_compiler() is None:
        pytest.skip("no C compiler: the modules run as plain Python")
    missing = _native.not_compiled()
    assert not missing, (
        f"a C compiler exists but these modules run as plain Python: {', '.join(missing)} "
        f"({_native.compiled_status()}); set {_native.PURE_PYTHON_ENV}=1 to run pure on purpose"
    )


def test_the_check_fires_on_a_tree_with_one_extension_missing(tmp_path: Path) -> None:
    """A copy of the running package with ``_batch``'s extension deleted (as when its compile
    failed): ``--version`` names it and the in-use check above fails."""
    if _native.c_compiler() is None:
        pytest.skip("no C compiler: the in-use check does not apply")
    package = Path(str(importlib.import_module("robustcall").__file__)).parent
    shutil.copytree(package, tmp_path / "robustcall", ignore=shutil.ignore_patterns("__pycache__"))
    native = importlib.util.find_spec("robustcall_native__mypyc")
    if native is not None and native.origin:  # the shared library of the compiled group
        shutil.copy(native.origin, tmp_path)
    for built in (tmp_path / "robustcall" / "score").glob("_batch.*"):
        if built.suffix != ".py":
            built.unlink()
    env = {k: v for k, v in os.environ.items() if k != _native.PURE_PYTHON_ENV}
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), env.get("PYTHONPATH", "")])

    version = subprocess.run(
        [sys.executable, "-m", "robustcall.cli.main", "--version"], env=env, capture_output=True, text=True, timeout=120
    )
    assert version.returncode == 0, version.stderr
    assert re.fullmatch(r"robustcall \S+ \(scoring path: (compiled [0-7]/8 \(.*|pure Python \(.*)\)\n", version.stdout)
    assert "score._batch" in version.stdout or "pure Python" in version.stdout

    check = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"{__file__}::{IN_USE}"],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    assert check.returncode == 1, check.stdout + check.stderr
    assert "robustcall.score._batch" in check.stdout and "1 failed" in check.stdout


IN_USE = test_the_compiled_modules_are_in_use_where_a_c_compiler_exists.__name__


@pytest.mark.parametrize("path", COMPILED)
def test_a_compiled_module_is_not_older_than_its_source(path: str) -> None:
    module = importlib.import_module(path.replace("/", "."))
    loaded = Path(str(module.__file__))
    if loaded.suffix == ".py":
        pytest.skip("running as plain Python (no compiled extension was built)")
    source = loaded.parent / (path.rsplit("/", 1)[1] + ".py")
    assert loaded.stat().st_mtime >= source.stat().st_mtime, (
        f"{loaded} is older than {source}: run `pip install -e .` again to recompile it"
    )
