"""The large parser fuzz run (issues 22 and 30): ``--n`` generated hostile answers (default
1,000,000) from ``--seed``, each parsed in its output format and scored against a BFCL sample, as the
CI fuzz test (tests/formats/test_fuzz.py: 20,000 inputs, seed 22) does. Counts exceptions, inputs over
``--limit-ms`` of CPU time (50 ms) and any sign of execution (a canary import, or the canary file an
``os.system`` / ``popen`` / pickle payload would create), and prints the slowest inputs.

First, the shapes table: every pathological shape (``fuzz_inputs.PATHOLOGICAL``: the ones that
stalled or slowed a reader, the adversarial ones of issue 34 among them) at 99 KB, parsed and scored
in every output format, then the adversarial shapes (``fuzz_inputs.ADVERSARIAL``: an open quote
before deep nestings of every bracket kind, with colons, hashes, escapes, digits, keyword
arguments, fences and tags) at 1 KB, 10 KB and 99 KB, the worst format's time; each cell is the
least CPU time of ``--repeat`` parses, each as a new answer's (the readers' tables of earlier texts
dropped first, ``fuzz_inputs.check``: a text parsed again finds its scans; load from other work only
slows a try down), and a shape over the limit in any format is listed. Then every shape with every
fragment of another format before it and after it, in every format, once each (``--no-fragments``
skips it). One in a hundred fuzz inputs is such a shape too (300 B to 99 KB,
sometimes between fragments of another format).

The inputs are generated in ``--processes`` worker processes, each taking every k-th chunk of the
seeded stream, so the set of inputs is the same for any process count. Exit status 1 when anything
raised, ran, or took longer than the limit.

usage: nice python benchmarks/fuzz_parser.py [--n 1000000] [--seed 2022] [--processes N] [--chunk 10000]
                                             [--limit-ms 50] [--repeat 3] [--shapes-only]
"""

from __future__ import annotations

import argparse
import functools
import gc
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

from fuzz_inputs import (
    ADVERSARIAL,
    ADVERSARIAL_SIZES,
    CANARY_FILE,
    FRAGMENTS,
    PATHOLOGICAL,
    Canary,
    check,
    fuzz_sample,
    one_input,
)

from robustcall.score import SampleScorer

FORMATS = ("bfcl", "tool_call", "react", "json")
SHAPE_SIZE = 99_000


def run_chunk(args: tuple[int, int, int, float]) -> dict[str, Any]:
    """Inputs ``[start, start + size)`` of the stream seeded with ``seed`` (its own sub-seed)."""
    seed, start, size, limit_s = args
    warnings.simplefilter("ignore")
    canary = Canary()
    sys.meta_path.insert(0, canary)
    scorers = {fmt: SampleScorer(fuzz_sample(fmt)) for fmt in FORMATS}
    # what the worker imported and built stays alive: out of the collector's way, so that a full
    # collection (10-50 ms over the imported modules) does not land on one short answer's time
    gc.collect()
    gc.freeze()
    rng = random.Random(f"{seed}:{start}")
    errors: list[str] = []
    slow: list[tuple[float, str, int, str]] = []
    worst = (0.0, "", 0, "")
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
        if took > limit_s:  # timed again: other work on the machine only ever slows a try down
            took = min(took, check(text, fmt, scorers))
        total_s += took
        if took > worst[0]:
            worst = (took, fmt, len(text), text[:100])
        if took > limit_s:
            slow.append((took, fmt, len(text), text[:100]))
    return {
        "n": size, "errors": errors, "slow": slow, "worst": worst, "seconds": total_s, "chars": chars,
        "canary": canary.hits,
    }  # fmt: skip


def shapes_table(repeat: int, limit_s: float) -> list[str]:
    """Print each pathological shape's CPU ms per format at 99 KB; returns the shapes over the limit."""
    warnings.simplefilter("ignore")
    scorers = {fmt: SampleScorer(fuzz_sample(fmt)) for fmt in FORMATS}
    print(f"{'shape (99 KB)':24s}" + "".join(f"{fmt:>11s}" for fmt in FORMATS) + "   CPU ms, least of", repeat)
    over: list[str] = []
    for name in sorted(PATHOLOGICAL):
        text = PATHOLOGICAL[name](SHAPE_SIZE)[:SHAPE_SIZE]
        cells = []
        for fmt in FORMATS:
            cells.append(min(check(text, fmt, scorers) for _ in range(repeat)))
        flag = "   over" if max(cells) > limit_s else ""
        if flag:
            over.append(name)
        print(f"{name:24s}" + "".join(f"{1e3 * c:11.1f}" for c in cells) + flag, flush=True)
    return over


def adversarial_table(repeat: int, limit_s: float) -> list[str]:
    """Print each adversarial shape's worst CPU ms over the output formats at 1 KB, 10 KB and 99 KB;
    returns the shapes over the limit at some size."""
    warnings.simplefilter("ignore")
    scorers = {fmt: SampleScorer(fuzz_sample(fmt)) for fmt in FORMATS}
    sizes = "".join(f"{size // 1000:>8d} KB" for size in ADVERSARIAL_SIZES)
    print(f"{'adversarial shape':24s}{sizes}   CPU ms, worst format, least of {repeat}")
    over: list[str] = []
    for name in sorted(ADVERSARIAL):
        cells = []
        for size in ADVERSARIAL_SIZES:
            text = ADVERSARIAL[name](size)
            cells.append(max(min(check(text, fmt, scorers) for _ in range(repeat)) for fmt in FORMATS))
        flag = "   over" if max(cells) > limit_s else ""
        if flag:
            over.append(name)
        print(f"{name:24s}" + "".join(f"{1e3 * c:11.1f}" for c in cells) + flag, flush=True)
    return over


def _fragment_cells(name: str, limit_s: float = 0.05) -> list[tuple[float, str, str, str]]:
    """The shape ``name`` at 99 KB with each fragment before it and after it, in every format: the
    three slowest (ms, where, fragment, format); a parse over the limit is timed again, as the fuzz
    does (other work on the machine only ever slows a try down)."""
    warnings.simplefilter("ignore")
    scorers = {fmt: SampleScorer(fuzz_sample(fmt)) for fmt in FORMATS}
    base = PATHOLOGICAL[name](SHAPE_SIZE)
    cells = []
    for where in ("before", "after"):
        for frag in FRAGMENTS:
            text = (frag + base if where == "before" else base + frag)[:99_900]
            for fmt in FORMATS:
                took = check(text, fmt, scorers)
                if took > limit_s:
                    took = min(took, check(text, fmt, scorers))
                cells.append((1e3 * took, where, frag, fmt))
    return sorted(cells, reverse=True)[:3]


def fragments_table(processes: int, limit_s: float) -> list[str]:
    """Every shape at 99 KB with every fragment of another format before it and after it (how the
    fuzz stream wraps three in ten of them), in every format, one cold parse each: the slowest per
    shape; returns the shapes over the limit."""
    print(f"{'shape + fragment (99 KB)':26s} slowest of {2 * len(FRAGMENTS) * len(FORMATS)} parses, CPU ms")
    names = sorted(PATHOLOGICAL)
    with multiprocessing.get_context("spawn").Pool(processes) as pool:
        results = pool.map(functools.partial(_fragment_cells, limit_s=limit_s), names)
    over: list[str] = []
    for name, cells in zip(names, results, strict=True):
        ms, where, frag, fmt = cells[0]
        flag = "   over" if ms > 1e3 * limit_s else ""
        if flag:
            over.append(name)
        print(f"{name:26s}{ms:8.1f}  ({fmt}, {frag!r:.30} {where}){flag}", flush=True)
    return over


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--seed", type=int, default=2022)
    ap.add_argument("--processes", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--chunk", type=int, default=10_000)
    ap.add_argument("--limit-ms", type=float, default=50.0)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--shapes-only", action="store_true", help="print the shapes tables only")
    ap.add_argument("--no-fragments", action="store_true", help="skip the shapes-with-fragments table")
    a = ap.parse_args()
    limit_s = a.limit_ms / 1e3
    CANARY_FILE.unlink(missing_ok=True)
    over = shapes_table(a.repeat, limit_s)
    print(f"shapes over {a.limit_ms:g} ms in some format: {len(over)} of {len(PATHOLOGICAL)} {over}")
    adv_over = adversarial_table(a.repeat, limit_s)
    print(f"adversarial shapes over {a.limit_ms:g} ms at some size: {len(adv_over)} of {len(ADVERSARIAL)} {adv_over}")
    over += adv_over
    if not a.no_fragments:
        frag_over = fragments_table(a.processes, limit_s)
        print(f"shapes with a fragment over {a.limit_ms:g} ms: {len(frag_over)} of {len(PATHOLOGICAL)} {frag_over}")
        over += frag_over
    if a.shapes_only:
        sys.exit(1 if over else 0)
    jobs = [(a.seed, start, min(a.chunk, a.n - start), limit_s) for start in range(0, a.n, a.chunk)]
    t0 = time.perf_counter()
    done = 0
    errors: list[str] = []
    slow: list[tuple[float, str, int, str]] = []
    canary: list[str] = []
    worst = (0.0, "", 0, "")
    seconds = 0.0
    chars = 0
    with multiprocessing.get_context("spawn").Pool(a.processes) as pool:
        for got in pool.imap_unordered(run_chunk, jobs):
            done += got["n"]
            errors += got["errors"]
            slow += [tuple(s) for s in got["slow"]]
            canary += got["canary"]
            seconds += got["seconds"]
            chars += got["chars"]
            worst = max(worst, tuple(got["worst"]))
            print(
                f"{done:,}/{a.n:,} inputs, {len(errors)} exceptions, {len(slow)} over {a.limit_ms:g} ms, "
                f"worst {worst[0]:.3f} s, {time.perf_counter() - t0:.0f} s wall",
                flush=True,
            )
    print(f"inputs: {done:,} (seed {a.seed}), {chars / 2**20:.1f} MiB of text")
    print(f"exceptions: {len(errors)}")
    for e in errors[:5]:
        print("  " + e)
    print(f"inputs over {a.limit_ms:g} ms: {len(slow)}")
    for s in sorted(slow, reverse=True)[:8]:
        print(f"  {1e3 * s[0]:.1f} ms {s[1]} {s[2]:,} chars {s[3]!r}")
    print(f"slowest input: {1e3 * worst[0]:.1f} ms ({worst[1]}, {worst[2]:,} chars) {worst[3]!r}")
    print(f"mean per input: {1e3 * seconds / max(1, done):.3f} ms")
    trace = "present" if CANARY_FILE.exists() else "absent"
    print(f"executed payloads: canary imports {len(canary)}, canary file {trace}")
    sys.exit(1 if errors or slow or over or canary or CANARY_FILE.exists() else 0)


if __name__ == "__main__":
    main()
