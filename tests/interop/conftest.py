"""Fixtures of the interop tests: a small benchmark built once through the CLI; the mock servers'
folder goes on sys.path."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from robustcall.cli.main import app

sys.path.insert(0, str(Path(__file__).parent))


@pytest.fixture(scope="session")
def tiny_bench(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """BFCL (from the bfcl-eval wheel), 4 clean samples and their perturbations, seed 0."""
    out = tmp_path_factory.mktemp("bench") / "bench"
    res = CliRunner().invoke(app, ["build", "--sources", "bfcl", "--per-source", "bfcl=4", "--out", str(out)])
    assert res.exit_code == 0, res.output
    return out


@pytest.fixture(autouse=True)
def _no_proxy_from_the_host(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests reach 127.0.0.1 directly unless they set a proxy themselves."""
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY", "OPENAI_BASE_URL", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)
