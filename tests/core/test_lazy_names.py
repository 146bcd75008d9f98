"""``core.lazy_names``: packages whose names load their module on first use."""

from __future__ import annotations

import subprocess
import sys

import pytest

import robustcall.envs
import robustcall.interop


def test_every_exported_name_is_mapped_and_the_envs_ones_load() -> None:
    for package in (robustcall.envs, robustcall.interop):
        assert sorted(package.__all__) == sorted(package._LAZY)  # type: ignore[attr-defined]
    for name in robustcall.envs.__all__:
        assert getattr(robustcall.envs, name) is not None
    assert "wordle" in robustcall.envs.ENVS  # the built-in environments register as before


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match=r"module 'robustcall\.envs' has no attribute 'nope'"):
        robustcall.envs.nope  # noqa: B018
    with pytest.raises(ImportError):
        from robustcall.envs import nope  # type: ignore[attr-defined] # noqa: F401


def test_scoring_bfcl_loads_no_other_environment() -> None:
    code = (
        "import sys\n"
        "from robustcall.envs import BfclInstances, MULTI_TURN_CATEGORIES\n"
        "print(sorted(m for m in sys.modules\n"
        "             if m.startswith('robustcall.envs.') or m in ('sqlite3', 'urllib.request')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == str(
        ["robustcall.envs._bfcl_dispatch", "robustcall.envs._bfcl_exec", "robustcall.envs._bfcl_wheel"]
    )
