"""Fixtures for the source loaders: the BFCL wheel (pip download, cached) and loads shared per session."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from robustcall.core import Sample
from robustcall.sources import LoadResult, fetch_bfcl, load_source


@pytest.fixture(scope="session")
def bfcl_wheel() -> Path:
    """The cached bfcl-eval wheel, downloaded with ``pip download --no-deps`` on first use."""
    return fetch_bfcl(quiet=True)


@pytest.fixture(scope="session")
def bfcl(bfcl_wheel: Path) -> LoadResult:
    return load_source("bfcl")


@pytest.fixture(scope="session")
def apibank(shared_data: Path) -> LoadResult:
    return load_source("apibank", shared_data)


@pytest.fixture(scope="session")
def rotbench(shared_data: Path) -> LoadResult:
    return load_source("rotbench", shared_data)


@pytest.fixture(scope="session")
def toolalpaca(shared_data: Path) -> LoadResult:
    return load_source("toolalpaca", shared_data)


@pytest.fixture(scope="session")
def tooleyes(shared_data: Path) -> LoadResult:
    return load_source("tooleyes", shared_data)


def _by_id(result: LoadResult, sample_id: str) -> Sample:
    found = [s for s in result.samples if s.id == sample_id]
    assert len(found) == 1, f"{sample_id}: {len(found)} samples"
    return found[0]


@pytest.fixture(scope="session")
def by_id() -> Callable[[LoadResult, str], Sample]:
    """``by_id(result, id)``: the one sample with this id (fails the test when absent)."""
    return _by_id
