"""Shared fixtures: the benchmark data in ../shared/data, read in place (never copied)."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = (REPO.parent / "shared" / "data").resolve()


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """``../shared/data`` beside the checkout; tests that need it skip when it is absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"shared data not found at {SHARED_DATA}")
    return SHARED_DATA


@pytest.fixture(scope="session")
def bfcl_mt_corpus() -> Callable[[int], list[dict[str, Any]]]:
    """``benchmarks/bfcl_mt_corpus.py``'s ``entries``: BFCL multi-turn result entries made from the
    ground truth and its mutations, the first N tasks per category."""
    from robustcall.sources import fetch_bfcl

    spec = importlib.util.spec_from_file_location("bfcl_mt_corpus", REPO / "benchmarks" / "bfcl_mt_corpus.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    wheel = str(fetch_bfcl(quiet=True))

    def rows(per_category: int) -> list[dict[str, Any]]:
        got: list[dict[str, Any]] = module.entries(wheel, per_category)
        return got

    return rows
