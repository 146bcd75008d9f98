"""The large parser fuzz run (issue 22): ``--n`` generated hostile answers (default 1,000,000) from
``--seed``, each parsed in its output format and scored against a BFCL sample, as the CI fuzz test
(tests/formats/test_fuzz.py: 20,000 inputs, seed 22) does. Counts exceptions, inputs over 1 s of CPU time and
any sign of execution (a canary import or file), and prints the slowest inputs.

The inputs are generated in ``--processes`` worker processes, each taking every k-th chunk of the
seeded stream, so the set of inputs is the same for any process count.

usage: nice python benchmarks/fuzz_parser.py [--n 1000000] [--seed 2022] [--processes N] [--chunk 10000]
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import random
import sys
import time
import traceback
import warnings
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "formats"))

from fuzz_inputs import CANARY_FILE, one_input
from test_fuzz import _Canary, _sample, check

from robustcall.score import SampleScorer

FORMATS = ("bfcl", "tool_call", "react", "json")


def run_chunk(args: tuple[int, int, int]) -> dict[str, Any]:
    """Inputs ``[start, start + size)`` of the stream seeded with ``seed`` (its own sub-seed)."""
    seed, start, size = args
    warnings.simplefilter("ignore")
    canary = _Canary()
    sys.meta_path.insert(0, canary)
    scorers = {fmt: SampleScorer(_sample(fmt)) for fmt in FORMATS}
    rng = random.Random(f"{seed}:{start}")
    errors: list[str] = []
    slow: list[tuple[float, str, str]] = []
    worst = (0.0, "", "")
    total_s = 0.0
    chars = 0
    for _ in range(size):
        text, fmt = one_input(rng), rng.choice(FORMATS)
        chars += len(text)
        try:
            took = check(text, fmt, scorers)
        except Exception as exc:  # the finding this run is for
            errors.append(f"{type(exc).__name__}: {exc!s:.200} | {fmt} | {text[:200]!r}\n{traceback.format_exc()}")
            continue
        total_s += took
        if took > worst[0]:
            worst = (took, fmt, text[:120])
        if took > 1.0:
            slow.append((took, fmt, text[:120]))
    return {
        "n": size, "errors": errors, "slow": slow, "worst": worst, "seconds": total_s, "chars": chars,
        "canary": canary.hits,
    }  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--seed", type=int, default=2022)
    ap.add_argument("--processes", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--chunk", type=int, default=10_000)
    a = ap.parse_args()
    CANARY_FILE.unlink(missing_ok=True)
    jobs = [(a.seed, start, min(a.chunk, a.n - start)) for start in range(0, a.n, a.chunk)]
    t0 = time.perf_counter()
    done = 0
    errors: list[str] = []
    slow: list[tuple[float, str, str]] = []
    canary: list[str] = []
    worst = (0.0, "", "")
    seconds = 0.0
    chars = 0
    with multiprocessing.get_context("spawn").Pool(a.processes) as pool:
        for got in pool.imap_unordered(run_chunk, jobs):
            done += got["n"]
            errors += got["errors"]
            slow += got["slow"]
            canary += got["canary"]
            seconds += got["seconds"]
            chars += got["chars"]
            worst = max(worst, got["worst"])
            print(
                f"{done:,}/{a.n:,} inputs, {len(errors)} exceptions, {len(slow)} over 1 s, "
                f"worst {worst[0]:.3f} s, {time.perf_counter() - t0:.0f} s wall",
                flush=True,
            )
    print(f"inputs: {done:,} (seed {a.seed}), {chars / 2**20:.1f} MiB of text")
    print(f"exceptions: {len(errors)}")
    for e in errors[:5]:
        print("  " + e)
    print(f"inputs over 1 s: {len(slow)}")
    for s in sorted(slow, reverse=True)[:5]:
        print(f"  {s[0]:.3f} s {s[1]} {s[2]!r}")
    print(f"slowest input: {worst[0]:.3f} s ({worst[1]}) {worst[2]!r}")
    print(f"mean per input: {1e3 * seconds / max(1, done):.3f} ms")
    trace = "present" if CANARY_FILE.exists() else "absent"
    print(f"executed payloads: canary imports {len(canary)}, canary file {trace}")
    sys.exit(1 if errors or slow or canary or CANARY_FILE.exists() else 0)


if __name__ == "__main__":
    main()
