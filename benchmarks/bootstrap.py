"""Vectorised paired bootstrap (``robustcall.metrics.robustness``) against a naive Python loop.

Shape of the paper's benchmark: 199 source samples × (clean + 22 types), B = 10,000 (every type on every
source here: 4,577 cells; the release has 3,721 because not every type applies to every source).
The naive loop resamples the 199 sources B times in Python and recomputes every statistic from
per-type lists; it is timed at B = 200 and extrapolated linearly to B = 10,000 (it is linear in B).
A second, 19× larger shape (3,721 source rows × 23 columns) shows how the vectorised path scales.

usage: python benchmarks/bootstrap.py
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable

from robustcall.core import TAXONOMY, Verdict
from robustcall.metrics import robustness

CODES = ["clean", *(t.code for t in TAXONOMY)]
COMPONENT = {"clean": "clean"} | {t.code: t.component for t in TAXONOMY}


def verdicts(sources: int, seed: int = 0) -> list[Verdict]:
    rng = random.Random(seed)
    out = []
    for i in range(sources):
        for code in CODES:
            ok = rng.random() < 0.6
            vid = f"s{i}" if code == "clean" else f"s{i}__{code}"
            out.append(
                Verdict(id=vid, benchmark="b", type=code, component=COMPONENT[code], correct=ok, score=float(ok))
            )  # type: ignore[arg-type]
    return out


def naive(vs: list[Verdict], resamples: int, seed: int) -> None:
    """Percentile bootstrap the straightforward way: Python lists, one replicate at a time."""
    by_source: dict[str, dict[str, float]] = {}
    for v in vs:
        src = v.id.split("__")[0]
        by_source.setdefault(src, {})[v.type] = v.score
    sources = sorted(by_source)
    rng = random.Random(seed)
    reps: dict[str, list[float]] = {}
    for _ in range(resamples):
        drawn = [by_source[rng.choice(sources)] for _ in sources]
        acc = {c: statistics.fmean(d[c] for d in drawn if c in d) for c in CODES}
        for c in CODES[1:]:
            reps.setdefault(f"drop:{c}", []).append(acc["clean"] - acc[c])
        for comp in ("observation", "action", "reward", "transition"):
            mean = statistics.fmean(acc[t.code] for t in TAXONOMY if t.component == comp)
            reps.setdefault(f"delta:{comp}", []).append(acc["clean"] - mean)
    for values in reps.values():
        values.sort()


def timed(fn: Callable[[], object]) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def main() -> None:
    b = 10_000
    for sources in (199, 3721):
        vs = verdicts(sources)
        fast = min(timed(lambda vs=vs: robustness(vs, resamples=b)) for _ in range(3))
        naive_b = 200 if sources == 199 else 20
        slow = timed(lambda vs=vs, nb=naive_b: naive(vs, nb, 0)) * b / naive_b
        print(
            f"{sources} sources x {len(CODES)} columns ({len(vs):,} samples), B = {b:,}: "
            f"vectorised {fast:.2f} s, naive loop {slow:.1f} s (timed at B = {naive_b}, extrapolated) "
            f"-> {slow / fast:.0f}x"
        )


if __name__ == "__main__":
    main()
