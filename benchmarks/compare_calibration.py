"""Calibrate ``robustcall compare``'s gate on a stochastic scripted model (docs/compare.md).

The model is ``scripted:chance``: each record right with its type's probability, independently per
trial. Baseline and candidate are two K-trial runs of it with other seeds. For speed the records'
verdicts are drawn here with numpy (the chance model's rule, no prompts or parsing), then go through
the real statistics and gate: ``metrics.compare_verdicts`` and ``CompareResult.gate_failures`` with
``--fail-on-drop 0 --fail-on-type 0`` at α.

1. **A/A**: 200 splits, baseline and candidate the same model: the share of splits whose gate fails
   (false alarms) must be at most 5%.
2. **Planted drop**: 200 splits, the candidate 10 points worse on one type: the share that fails
   must be at least 80%. The number of clean samples is ``compare --plan``'s for 90% power from a
   pilot run, so the 80% claim has room for the 200 splits' sampling error.
3. **The plan's power**: for 80% power, the plan's samples and trials; then 2,000 simulated
   comparisons of that size (the type rows of ``compare``: per-record means over trials, exact sign
   test, Holm over the types; checked equal to ``compare_verdicts`` on the first splits) must catch
   the drop in 80 ± 3% of them.

    python benchmarks/compare_calibration.py [--splits 200] [--trials 3] [--alpha 0.05]
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from robustcall.core import STATIC_TYPES, TRANSITION_TYPES, Verdict, scored_verdict, type_info
from robustcall.metrics import compare_verdicts, holm, plan, sign_test
from robustcall.report import CompareResult, Comparison

TYPES = ("clean", *STATIC_TYPES, *TRANSITION_TYPES)
TARGET = "CD"
DROP = 0.10


def probabilities() -> dict[str, float]:
    """Each type's chance of a right answer: spread over 0.55-0.90; the target at 0.70."""
    out = {t: 0.55 + 0.35 * i / (len(TYPES) - 1) for i, t in enumerate(TYPES)}
    out[TARGET] = 0.70
    return out


def draw(rng: np.random.Generator, n: int, k: int, probs: dict[str, float]) -> np.ndarray:
    """[sample, type, trial] -> right (the chance model's answers of one K-trial run)."""
    p = np.array([probs[t] for t in TYPES])
    return rng.random((n, len(TYPES), k)) < p[None, :, None]


def verdicts(right: np.ndarray) -> list[Verdict]:
    n, _, k = right.shape
    out = []
    for j, code in enumerate(TYPES):
        comp = str(type_info(code).component)
        for i in range(n):
            vid = f"s{i:05d}" if code == "clean" else f"s{i:05d}__{code}"
            for t in range(k):
                ok = bool(right[i, j, t])
                v = scored_verdict(vid, "sim", code, comp, ok, 1.0 if ok else 0.0, None, None)
                v.trial = t
                out.append(v)
    return out


def gate_fails(a: np.ndarray, b: np.ndarray, alpha: float) -> bool:
    result = compare_verdicts(verdicts(a), verdicts(b), resamples=0)
    compared = CompareResult(
        baseline="A",
        candidate="B",
        alpha=alpha,
        fail_on_drop=0.0,
        fail_on_type=0.0,
        comparisons=[Comparison(part="", baseline="a", candidate="b", result=result)],
    )
    return bool(compared.gate_failures())


def type_rows_flag(a: np.ndarray, b: np.ndarray, alpha: float) -> bool:
    """The target's type row fails the type gate: compare's arithmetic on the type rows alone."""
    ma, mb = a.mean(axis=2), b.mean(axis=2)
    ps, worse = [], []
    for j, code in enumerate(TYPES):
        if code == "clean":
            continue
        wins, losses = int((mb[:, j] > ma[:, j]).sum()), int((mb[:, j] < ma[:, j]).sum())
        ps.append(sign_test(wins, losses))
        worse.append(mb[:, j].sum() < ma[:, j].sum())
    adjusted = holm(ps)
    j = [t for t in TYPES if t != "clean"].index(TARGET)
    p = adjusted[j]
    return bool(worse[j] and p is not None and p < alpha)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--splits", type=int, default=200)
    parser.add_argument("--trials", type=int, default=3)
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--power-reps", type=int, default=2000)
    args = parser.parse_args()
    k, alpha = args.trials, args.alpha
    probs = probabilities()
    dropped = {**probs, TARGET: probs[TARGET] - DROP}
    rng = np.random.default_rng(20261207)
    t0 = time.perf_counter()

    pilot = verdicts(draw(rng, 200, k, probs))
    for_90 = plan(pilot, TARGET, DROP, alpha=alpha, trials=(k,), power=0.9).rows[0]
    for_80 = plan(pilot, TARGET, DROP, alpha=alpha, trials=(k,), power=0.8).rows[0]
    assert for_90.samples is not None and for_80.samples is not None and for_80.power is not None
    n = for_90.samples
    print(f"model: scripted:chance, {len(TYPES)} types, p = 0.55-0.90 ({TARGET} {probs[TARGET]:.2f}); K = {k}")
    print(f"plan from a 200-sample pilot: {for_90.samples} samples for 90% power, {for_80.samples} for 80%")

    aa = sum(gate_fails(draw(rng, n, k, probs), draw(rng, n, k, probs), alpha) for _ in range(args.splits))
    print(f"A/A: gate failed in {aa} of {args.splits} splits = {aa / args.splits:.1%} (claim: <= 5%), alpha {alpha:g}")
    hits = sum(gate_fails(draw(rng, n, k, probs), draw(rng, n, k, dropped), alpha) for _ in range(args.splits))
    rate = hits / args.splits
    print(f"planted drop of {DROP:g} on {TARGET}: gate failed in {hits} of {args.splits} = {rate:.1%} (claim: >= 80%)")

    m = for_80.samples
    for _ in range(3):  # the fast path is compare's own arithmetic on the type rows
        a, b = draw(rng, m, k, probs), draw(rng, m, k, dropped)
        row = next(r for r in compare_verdicts(verdicts(a), verdicts(b), resamples=0).rows if r.key == f"type:{TARGET}")
        assert (row.status(alpha) == "regression") == type_rows_flag(a, b, alpha)
    caught = sum(
        type_rows_flag(draw(rng, m, k, probs), draw(rng, m, k, dropped), alpha) for _ in range(args.power_reps)
    )
    power = caught / args.power_reps
    print(
        f"plan for 80%: {m} samples x {k} trials (exact power {for_80.power:.3f}); simulated: {caught} of "
        f"{args.power_reps} = {power:.1%} (claim: 80 ± 3%)"
    )
    print(f"time: {time.perf_counter() - t0:.0f} s")
    ok = aa / args.splits <= 0.05 and rate >= 0.80 and abs(power - 0.80) <= 0.03
    print("calibration: " + ("OK" if ok else "FAILED"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
