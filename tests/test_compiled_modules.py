"""The mypyc-compiled modules (``robustcall._native.COMPILED_MODULES``, built by setup.py) are in use
wherever a C compiler exists, and are never older than their sources (in an editable install a stale
extension would silently shadow an edited module).

An explicit ``ROBUSTCALL_PURE_PYTHON=1`` (an install that built no extensions on purpose, or a source
tree on ``PYTHONPATH``) skips the in-use check; anywhere else, a tree whose extensions did not build
fails here, so CI cannot run the pure path while README promises the compiled one.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import importlib.util
import json
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
    env = _copy_of_the_running_package(tmp_path)
    for built in (tmp_path / "robustcall" / "score").glob("_batch.*"):
        if built.suffix != ".py":
            built.unlink()

    version = subprocess.run(
        [sys.executable, "-m", "robustcall.cli.main", "--version"], env=env, capture_output=True, text=True, timeout=120
    )
    assert version.returncode == 0, version.stderr
    assert re.fullmatch(
        r"robustcall \S+ \(scoring path: (compiled (?:[0-9]|10)/11 \(.*|pure Python \(.*)\)\n", version.stdout
    )
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


def _copy_of_the_running_package(tmp_path: Path) -> dict[str, str]:
    """The running package (extensions and build record included) copied under ``tmp_path``, and the
    environment that imports robustcall from there."""
    package = Path(str(importlib.import_module("robustcall").__file__)).parent
    shutil.copytree(package, tmp_path / "robustcall", ignore=shutil.ignore_patterns("__pycache__"))
    native = importlib.util.find_spec("robustcall_native__mypyc")
    if native is not None and native.origin:  # the shared library of the compiled group
        shutil.copy(native.origin, tmp_path)
    env = {k: v for k, v in os.environ.items() if k != _native.PURE_PYTHON_ENV}
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), env.get("PYTHONPATH", "")])
    return env


def test_an_extension_older_than_its_source_is_not_run(tmp_path: Path) -> None:
    """An edited source beside its old extension (an editable install after an edit or a pull):
    every compiled module runs from its source, with one line on stderr saying how to rebuild."""
    if _native.not_compiled():
        pytest.skip("running as plain Python: no extension to go stale")
    env = _copy_of_the_running_package(tmp_path)
    version = [sys.executable, "-m", "robustcall.cli.main", "--version"]
    fresh = subprocess.run(version, env=env, capture_output=True, text=True, timeout=120)
    assert (fresh.returncode, fresh.stderr) == (0, "")
    assert "compiled 11/11" in fresh.stdout
    edited = _native.source_path("robustcall.formats._canonical", tmp_path / "robustcall")
    edited.write_text(edited.read_text() + "\nEDITED = True\n")
    stale = subprocess.run(version, env=env, capture_output=True, text=True, timeout=120)
    assert stale.returncode == 0, stale.stderr
    assert stale.stderr == f"robustcall: {_native.STALE}; running them as plain Python meanwhile\n"
    assert f"pure Python ({_native.STALE})" in stale.stdout
    probe = "import robustcall.formats._canonical as c, robustcall.score._batch as b; print(c.EDITED, b.__file__)"
    ran = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=120)
    assert ran.stdout.split()[0] == "True" and ran.stdout.split()[1].endswith("_batch.py"), ran.stderr


def test_stale_extensions_compares_the_recorded_digests(tmp_path: Path) -> None:
    package = tmp_path / "robustcall"
    for name in _native.COMPILED_MODULES:
        path = _native.source_path(name, package)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"# {name}\n")
    assert _native.stale_extensions(package) == []  # no extension at all: nothing to go stale
    built = _native.source_path("robustcall.score._batch", package).with_suffix(
        importlib.machinery.EXTENSION_SUFFIXES[0]
    )
    built.write_bytes(b"")
    assert _native.stale_extensions(package) == ["robustcall.score._batch"]  # no record
    (package / _native.SOURCES_FILE).write_text(json.dumps(_native.source_digests(package)))
    assert _native.stale_extensions(package) == []
    _native.source_path("robustcall.score._batch", package).write_text("# edited\n")
    assert _native.stale_extensions(package) == ["robustcall.score._batch"]


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
