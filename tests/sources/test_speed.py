"""Loading all five sources and picking the clean baseline stays fast."""

from __future__ import annotations

import time
from pathlib import Path

from robustcall.sources import DEFAULT_COMPOSITION, SOURCE_NAMES, load_source, select_clean


def test_full_load_and_selection_is_fast(shared_data: Path, bfcl_wheel: Path) -> None:
    start = time.perf_counter()
    picked = [
        s for name in SOURCE_NAMES for s in select_clean(load_source(name, shared_data), DEFAULT_COMPOSITION[name], 0)
    ]
    elapsed = time.perf_counter() - start
    assert len(picked) == 199
    assert elapsed < 10.0, f"five-source load + selection took {elapsed:.2f}s"  # ~1.5 s here
