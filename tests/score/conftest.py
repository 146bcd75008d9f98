"""BFCL samples for the scorer tests, read from the ``bfcl-eval`` wheel (skipped when absent)."""

from __future__ import annotations

from pathlib import Path

import pytest

from robustcall.core import Sample, cache_dir

_WHEEL = "bfcl_eval-2026.3.23-py3-none-any.whl"
_CANDIDATES = [cache_dir("wheels") / _WHEEL, Path("/tmp/dl/bfcl") / _WHEEL]


def _load() -> list[Sample] | None:
    try:  # the public loader, once the sources package exports it
        from robustcall.sources import load_source  # type: ignore[attr-defined]

        return list(load_source("bfcl").samples)
    except Exception:
        pass
    from robustcall.sources._bfcl import load_bfcl

    for wheel in _CANDIDATES:
        if wheel.is_file():
            return load_bfcl(wheel).samples
    return None


@pytest.fixture(scope="session")
def bfcl_by_id() -> dict[str, Sample]:
    """BFCL single-turn samples keyed by their original BFCL id (e.g. ``simple_python_0``)."""
    samples = _load()
    if samples is None:
        pytest.skip(f"bfcl-eval wheel not found (looked in {', '.join(str(p) for p in _CANDIDATES)})")
    return {s.source.original_id: s for s in samples}
