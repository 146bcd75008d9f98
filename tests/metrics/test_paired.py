"""Paired comparison statistics (``robustcall compare``): exact sign / McNemar p-values, Holm, paired
intervals, and RobustBench-TC rows that agree with ``robustness`` on each run."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest

from robustcall.core import TYPES, Verdict
from robustcall.metrics import compare_verdicts, holm, paired_row, robustness, sign_test


def test_exact_mcnemar_p_from_the_binomial() -> None:
    assert sign_test(0, 0) == 1.0
    assert sign_test(0, 4) == 0.125  # 2 / 2^4: four discordant pairs can never reach 0.05
    assert sign_test(0, 5) == 0.0625
    assert sign_test(0, 6) == 0.03125
    assert sign_test(2, 8) == 2 * (1 + 10 + 45) / 2**10  # 0.109375
    assert sign_test(8, 2) == sign_test(2, 8)
    assert sign_test(5, 5) == 1.0
    assert sign_test(1, 9) == 2 * (1 + 10) / 2**10


def test_holm_steps_down_keeps_order_and_skips_untested() -> None:
    assert holm([0.01, 0.04, 0.03, None]) == [0.03, 0.06, 0.06, None]
    assert holm([0.5, 0.001]) == [0.5, 0.002]
    assert holm([0.3, 0.2]) == [0.4, 0.4]  # monotone: 0.3 · 1 is raised to the earlier step, 0.2 · 2
    assert holm([0.9, 0.8]) == [1.0, 1.0]  # capped at 1
    assert holm([]) == []


def _units(pairs: list[tuple[int, int]]) -> np.ndarray:
    return np.array([(a, 1, b, 1) for a, b in pairs], dtype=float)


def test_four_paired_samples_never_claim_significance() -> None:
    for bits in itertools.product((0, 1), repeat=8):
        pairs = [(bits[2 * i], bits[2 * i + 1]) for i in range(4)]
        row = paired_row("x", "x", _units(pairs), family="f", resamples=200)
        assert row.p_value is not None and row.p_value >= 0.125
        assert row.model_copy(update={"p_holm": row.p_value}).status(0.05) == "unchanged"


def test_a_paired_row_counts_wins_and_losses_and_brackets_delta() -> None:
    pairs = [(1, 0)] * 6 + [(0, 1)] * 1 + [(1, 1)] * 13
    row = paired_row("k", "k", _units(pairs), family="f", resamples=2000, seed=3)
    assert (row.units, row.wins, row.losses) == (20, 1, 6)
    assert row.baseline == 19 / 20 and row.candidate == 14 / 20
    assert row.delta == pytest.approx(-0.25)
    assert row.p_value == sign_test(1, 6)
    assert row.ci95 is not None and row.ci95[0] < -0.25 < row.ci95[1] <= 0
    again = paired_row("k", "k", _units(pairs), family="f", resamples=2000, seed=3)
    assert again == row  # seeded
    lower = paired_row("k", "k", _units(pairs), family="f", better="lower", resamples=0)
    assert (lower.wins, lower.losses, lower.worse_by()) == (6, 1, pytest.approx(-0.25))


def _verdicts(correct: dict[str, list[bool]]) -> list[Verdict]:
    out = []
    for t, flags in correct.items():
        comp = "clean" if t == "clean" else TYPES[t].component
        for i, ok in enumerate(flags):
            vid = f"s{i}" if t == "clean" else f"s{i}__{t}"
            out.append(Verdict(id=vid, benchmark="bfcl", type=t, component=comp, correct=ok))
    return out


def test_tc_rows_agree_with_robustness_and_pair_only_shared_records() -> None:
    rng = np.random.default_rng(7)
    types = ["clean", "realistic_typos", "same_name_A", "CD", "transient_timeout"]
    base = {t: list(rng.random(30) < 0.8) for t in types}
    cand = {t: list(rng.random(30) < 0.6) for t in types}
    vb, vc = _verdicts(base), _verdicts(cand)
    vc = [*vc[:-3], vc[-3].model_copy(update={"correct": None})]  # two missing, one infra error
    c = compare_verdicts(vb, vc, resamples=500)
    assert (c.pairing.baseline, c.pairing.candidate, c.pairing.shared, c.pairing.compared) == (150, 148, 148, 147)
    rows = {r.key: r for r in c.rows}
    assert "type:clean" not in rows and rows["component:clean"].label == "Clean"
    full = compare_verdicts(vb, _verdicts(cand), resamples=0)
    frows = {r.key: r for r in full.rows}
    rb, rc = robustness(vb, resamples=0), robustness(_verdicts(cand), resamples=0)
    assert frows["retention"].baseline == pytest.approx(rb.retention.value)
    assert frows["retention"].candidate == pytest.approx(rc.retention.value)
    assert frows["overall"].baseline == pytest.approx(rb.pert_acc.value)
    assert frows["component:reward"].candidate == pytest.approx(rc.component_accuracy["reward"].value)
    assert frows["type:CD"].delta == pytest.approx(rc.accuracy["CD"].value - rb.accuracy["CD"].value)
    types_p = [frows[f"type:{t}"].p_value for t in types[1:]]
    assert [frows[f"type:{t}"].p_holm for t in types[1:]] == holm(types_p)


def test_identical_runs_differ_nowhere() -> None:
    v = _verdicts({"clean": [True, False] * 5, "CD": [False, True] * 5})
    c = compare_verdicts(v, v, resamples=300)
    for r in c.rows:
        assert r.delta == 0 and r.wins == r.losses == 0
        assert r.ci95 in (None, (0.0, 0.0))
        assert r.p_value in (None, 1.0)


def test_retention_interval_skips_draws_with_no_clean_answer_silently() -> None:
    """With few clean samples some draws have Clean = 0 in both runs (retention −∞ on both sides):
    those draws are left out of the interval without a numpy warning reaching the user."""
    comps = ["realistic_typos", "same_name_A", "CD", "transient_timeout"]
    v = _verdicts({"clean": [True, False, False, False], **{t: [True, False, True, False] for t in comps}})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        c = compare_verdicts(v, v, resamples=2000)
    retention = {r.key: r for r in c.rows}["retention"]
    assert retention.delta == 0 and retention.ci95 == (0.0, 0.0)
