"""The bootstrap behind every interval (``robustcall.metrics.robustness``) against plainer ways of computing it.

Per-sample (the paper's intervals, the default): every group (Clean, 22 types, 4 components, all
perturbed records) is resampled on its own. Ours draws each replicate as multinomial counts of the
distinct score values (B × 2 numbers for binary correctness); the plain vectorised way draws B × n
record indices per group (``rng.integers`` then a mean, what ``summarize`` did before); the naive
way is a Python loop. Shape: the paper's release, 3,721 records (Clean 199, per-type counts of
Tables 7-14), and a 10× larger one; B = 10,000.

Clustered (``--resampling clustered``): source rows resampled, one weight matrix per block of
replicates; against a Python loop over sources.

Slow baselines are timed at a smaller B and extrapolated linearly (they are linear in B).

usage: python benchmarks/bootstrap.py
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable

import numpy as np

from robustcall.core import TAXONOMY, Verdict
from robustcall.metrics import robustness

CODES = ["clean", *(t.code for t in TAXONOMY)]
COMPONENT = {"clean": "clean"} | {t.code: t.component for t in TAXONOMY}
# records per type in the paper's release (Tables 7-14; Table 3's total 3,721)
PAPER_N = {"clean": 199} | {t.code: 199 for t in TAXONOMY}
PAPER_N |= dict(same_name_A=133, same_name_B=127, same_name_C=126, same_name_D=125, same_name_E=126)
PAPER_N |= dict(CD=102, TD=102, CD_NT=102, TD_NT=102, CD_AB=144, TD_AB=144)
B = 10_000


def verdicts(scale: int = 1, every_type_every_source: bool = False, seed: int = 0) -> list[Verdict]:
    rng = random.Random(seed)
    out = []
    for code in CODES:
        n = 199 * scale if every_type_every_source else PAPER_N[code] * scale
        for i in range(n):
            ok = rng.random() < 0.6
            vid = f"s{i}" if code == "clean" else f"s{i}__{code}"
            out.append(
                Verdict(id=vid, benchmark="b", type=code, component=COMPONENT[code], correct=ok, score=float(ok))
            )  # type: ignore[arg-type]
    return out


def groups(vs: list[Verdict]) -> list[np.ndarray]:
    by: dict[str, list[float]] = {}
    for v in vs:
        by.setdefault(v.type, []).append(v.score)
        if v.type != "clean":
            by.setdefault(v.component, []).append(v.score)
            by.setdefault("pert", []).append(v.score)
    return [np.array(x) for x in by.values()]


def index_draws(vs: list[Verdict], resamples: int) -> None:
    """Plain vectorised per-sample bootstrap: B × n indices per group, then the means (in blocks of 1,000)."""
    rng = np.random.default_rng(0)
    for scores in groups(vs):
        means = []
        for lo in range(0, resamples, 1000):
            idx = rng.integers(0, scores.size, size=(min(1000, resamples - lo), scores.size))
            means.append(scores[idx].mean(axis=1))
        np.percentile(np.concatenate(means), [2.5, 97.5])


def python_per_sample(vs: list[Verdict], resamples: int) -> None:
    rng = random.Random(0)
    for scores in groups(vs):
        s = scores.tolist()
        means = sorted(statistics.fmean(rng.choices(s, k=len(s))) for _ in range(resamples))
        _ = means[int(0.025 * resamples)], means[int(0.975 * resamples)]


def python_clustered(vs: list[Verdict], resamples: int) -> None:
    by_source: dict[str, dict[str, float]] = {}
    for v in vs:
        by_source.setdefault(v.id.split("__")[0], {})[v.type] = v.score
    sources = sorted(by_source)
    rng = random.Random(0)
    reps: dict[str, list[float]] = {}
    for _ in range(resamples):
        drawn = [by_source[rng.choice(sources)] for _ in sources]
        acc = {c: statistics.fmean(d[c] for d in drawn if c in d) for c in CODES}
        for c in CODES[1:]:
            reps.setdefault(f"drop:{c}", []).append(acc["clean"] - acc[c])
    for values in reps.values():
        values.sort()


def timed(fn: Callable[[], object], repeat: int = 1) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def main() -> None:
    print(f"per-sample bootstrap (the paper's), B = {B:,}")
    for scale in (1, 10):
        vs = verdicts(scale)
        ours = timed(lambda vs=vs: robustness(vs, resamples=B), repeat=3)
        plain = timed(lambda vs=vs: index_draws(vs, B))
        nb = 100 if scale == 1 else 10
        loop = timed(lambda vs=vs, nb=nb: python_per_sample(vs, nb)) * B / nb
        print(
            f"  {len(vs):,} records: multinomial counts {ours:.3f} s | B x n index draws {plain:.2f} s "
            f"({plain / ours:.0f}x) | Python loop {loop:.0f} s (timed at B = {nb}; {loop / ours:.0f}x)"
        )
    print(f"clustered bootstrap (source rows), B = {B:,}")
    for scale in (1, 19):
        vs = verdicts(scale, every_type_every_source=True)
        ours = timed(lambda vs=vs: robustness(vs, resamples=B, resampling="clustered"), repeat=3)
        nb = 200 if scale == 1 else 20
        loop = timed(lambda vs=vs, nb=nb: python_clustered(vs, nb)) * B / nb
        print(
            f"  {199 * scale:,} sources x {len(CODES)} columns ({len(vs):,} records): vectorised {ours:.2f} s | "
            f"Python loop {loop:.0f} s (timed at B = {nb}; {loop / ours:.0f}x)"
        )


if __name__ == "__main__":
    main()
