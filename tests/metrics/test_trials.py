"""Trial statistics (pass@k, pass^k, flips, noise floors), the sign test's reach, and the plan's power
checked by simulation at a small scale."""

from __future__ import annotations

import math

import numpy as np
import pytest

from robustcall.core import Verdict
from robustcall.metrics import (
    PairedRow,
    losses_needed,
    pass_at_k,
    pass_hat_k,
    plan,
    sign_power,
    sign_test,
    smallest_flaggable_drop,
    trial_cell,
    trial_summary,
    unit_odds,
)
from robustcall.metrics._power import pilot_odds


def test_pass_at_k_and_pass_hat_k_are_the_unbiased_estimators() -> None:
    assert pass_at_k(5, 2, 1) == pytest.approx(0.4)
    assert pass_at_k(5, 2, 2) == pytest.approx(1 - math.comb(3, 2) / math.comb(5, 2)) == pytest.approx(0.7)
    assert pass_at_k(5, 0, 3) == 0.0 and pass_at_k(5, 3, 3) == 1.0  # C(2, 3) = 0
    assert pass_hat_k(5, 2, 2) == pytest.approx(1 / 10)
    assert pass_hat_k(5, 4, 3) == pytest.approx(4 / 10)
    with pytest.raises(ValueError):
        pass_at_k(2, 1, 3)


def test_a_cell_gives_mean_accuracy_flips_and_the_noise_floor() -> None:
    cell = trial_cell([(3, 3), (3, 0), (3, 1), (3, 2)])
    assert cell.records == 4 and cell.answers == 12 and cell.trials == 3
    assert cell.accuracy == pytest.approx(6 / 12)
    assert cell.pass_at[1] == pytest.approx(0.5) and cell.pass_hat[1] == pytest.approx(0.5)
    assert cell.pass_at[3] == pytest.approx(3 / 4) and cell.pass_hat[3] == pytest.approx(1 / 4)
    assert cell.flip_share == 0.5
    # Var = Σ c(n−c)/(n(n−1)) / n / N² = (2/6 + 2/6) / 3 / 16
    assert cell.noise_floor == pytest.approx(1.959963984540054 * math.sqrt((4 / 6) / 3 / 16))
    steady = trial_cell([(4, 4), (4, 0)])
    assert steady.flip_share == 0.0 and steady.noise_floor == 0.0


def _v(i: int, code: str, trial: int, correct: bool | None) -> Verdict:
    comp = "clean" if code == "clean" else "observation"
    vid = f"s{i}" if code == "clean" else f"s{i}__{code}"
    return Verdict(id=vid, benchmark="b", type=code, component=comp, correct=correct, trial=trial)


def test_trial_summary_is_none_for_one_trial_and_counts_trials_per_record() -> None:
    one = [_v(i, "clean", 0, True) for i in range(3)]
    assert trial_summary(one) is None
    many = [_v(i, t, k, (i + k) % 2 == 0) for i in range(4) for t in ("clean", "realistic_typos") for k in range(2)]
    many.append(_v(9, "clean", 1, None))  # an infrastructure error is not a trial
    s = trial_summary(many)
    assert s is not None and s.trials == 2
    assert s.by_type["clean"].records == 4 and s.by_type["clean"].flip_share == 1.0
    assert set(s.by_component) == {"clean", "observation", "overall"}


def test_the_fewest_losses_and_the_smallest_flaggable_drop() -> None:
    assert losses_needed(0.05) == 6 and sign_test(0, 6) < 0.05 <= sign_test(0, 5)
    assert losses_needed(0.05 / 22) == 10 and sign_test(0, 10) < 0.05 / 22 <= sign_test(0, 9)
    row = PairedRow(
        key="k", label="k", family="type", units=20, baseline=0.5, candidate=0.5, delta=0.0,
        can_worsen=10, baseline_den=20.0,
    )  # fmt: skip
    assert smallest_flaggable_drop(row, 0.05, 1) == pytest.approx(6 / 20)
    assert smallest_flaggable_drop(row, 0.05, 22) == pytest.approx(10 / 20)
    blind = row.model_copy(update={"can_worsen": 2, "units": 2})
    assert smallest_flaggable_drop(blind, 0.05, 1) is None  # n = 2: no count of losses reaches p < 0.05


def test_sign_power_is_exact_on_a_tiny_case() -> None:
    # n = 6 units, each a loss with 0.5, a win with 0.1: flagged at α = 0.05 only with 6 losses out of 6
    assert sign_power(6, 0.1, 0.5, 0.05) == pytest.approx(0.5**6)


def test_the_plan_holds_its_power_in_simulation() -> None:
    # a pilot of one type answered right with 0.9 (K = 1 pilot, 40 samples); plan a drop of 0.3, K = 2
    rng = np.random.default_rng(0)
    pilot = [_v(i, "clean", 0, True) for i in range(40)]
    pilot += [_v(i, "CD", 0, bool(rng.random() < 0.9)) for i in range(40)]
    got = plan(pilot, "CD", 0.3, alpha=0.05, trials=(2,))
    (row,) = got.rows
    assert row.samples is not None and row.power is not None and row.power >= 0.8
    # simulate the gate's row: baseline and candidate K-trial means per record, exact sign test at α / m
    odds = pilot_odds(pilot)
    share = unit_odds(odds, "CD", 0.3, 2)[2]
    n = round(row.samples * share)
    ps = np.array([odds[s]["CD"] for s in sorted(odds)])
    scale = 1 - 0.3 / ps.mean()
    hits = 0
    reps = 3000
    for _ in range(reps):
        p = ps[rng.integers(0, ps.size, n)]
        a = rng.binomial(2, p)
        b = rng.binomial(2, p * scale)
        wins, losses = int((b > a).sum()), int((b < a).sum())
        hits += losses > wins and sign_test(wins, losses) < got.alpha_row
    assert abs(hits / reps - row.power) < 0.03
