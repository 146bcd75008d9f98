"""The mypyc-compiled modules (setup.py) are never older than their sources: in an editable install
a stale extension would silently shadow an edited module."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

SETUP = Path(__file__).resolve().parents[1] / "setup.py"
COMPILED = re.findall(r'"src/(robustcall/[\w/]+)\.py"', SETUP.read_text())


def test_setup_lists_the_compiled_modules() -> None:
    assert "robustcall/score/_batch" in COMPILED and len(COMPILED) == 7


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
