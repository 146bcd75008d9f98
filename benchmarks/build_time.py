"""Time the full five-source offline build (goal: under 10 s on 2 cores).

usage: python benchmarks/build_time.py [DATA_DIR]   (default ../shared/data)
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from robustcall.perturb import build_benchmark
from robustcall.sources import SOURCE_NAMES


def main() -> None:
    data = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[2] / "shared" / "data"
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        manifest = build_benchmark(list(SOURCE_NAMES), data, 0, Path(tmp) / "bench")
        dt = time.perf_counter() - t0
    total = sum(manifest["counts"].values())
    print(f"full five-source offline build: {total} samples in {dt:.2f} s")
    print(f"goal 10 s; goal/measured = {10 / dt:.1f}")


if __name__ == "__main__":
    main()
