"""Table 2 statistics on hand-computed cases, bootstrap reproducibility and paired significance."""

from __future__ import annotations

import pytest

from robustcall.core import Verdict, type_info
from robustcall.metrics import error_mode_shares, marker, paired_significance, robustness, summarize


def v(source: str, code: str, correct: bool | None, mode: str | None = None) -> Verdict:
    component = "clean" if code == "clean" else type_info(code).component
    return Verdict(
        id=source if code == "clean" else f"{source}__{code}",
        benchmark="b",
        type=code,
        component=component,
        correct=correct,
        score=1.0 if correct else 0.0,
        error_mode=mode,  # type: ignore[arg-type]
    )


CASE = [
    v("s1", "clean", True),
    v("s2", "clean", False, "wrong"),
    v("s1", "realistic_typos", True),
    v("s2", "realistic_typos", True),
    v("s1", "query_paraphrase", False, "empty"),
    v("s2", "query_paraphrase", False, "wrong"),
    v("s1", "same_name_A", True),  # s2 has no Action variant
    v("s1", "CD", False, "name_bias"),
    v("s2", "CD", False, "name_bias"),
    v("s1", "transient_timeout", True),
    v("s2", "transient_timeout", None),  # infrastructure error: missing, not wrong
]


def test_hand_computed_statistics() -> None:
    r = robustness(CASE, resamples=0)
    assert r.clean.value == 0.5
    assert r.pert_acc.value == pytest.approx(4 / 8)  # 2 + 0 + 1 + 0 + 1 correct of 2 + 2 + 1 + 2 + 1 scored
    assert r.delta["observation"].value == pytest.approx(0.5 - (1.0 + 0.0) / 2)
    assert r.delta["action"].value == pytest.approx(0.5 - 1.0)
    assert r.delta["reward"].value == pytest.approx(0.5 - 0.0)
    assert r.delta["transition"].value == pytest.approx(0.5 - 1.0)
    assert r.retention.value == pytest.approx(1 - (0.0 - 0.5 + 0.5) / 3 / 0.5)
    assert r.drop["realistic_typos"].value == pytest.approx(-0.5)
    assert r.drop["query_paraphrase"].value == pytest.approx(0.5)
    assert r.n_by_type == {
        "clean": 2,
        "realistic_typos": 2,
        "query_paraphrase": 2,
        "same_name_A": 1,
        "CD": 2,
        "transient_timeout": 1,
    }
    assert r.infra_errors == 1 and r.sources == 2
    assert r.clean.ci95 is None  # no resamples asked


@pytest.mark.parametrize("resampling", ["per-sample", "clustered"])
def test_bootstrap_is_seeded(resampling: str) -> None:
    codes = ("clean", "CD", "transient_timeout")
    data = [v(f"s{i}", code, (i * 7 + 3 * k) % 11 < 6) for i in range(60) for k, code in enumerate(codes)]
    a = robustness(data, resamples=2000, seed=1, resampling=resampling)  # type: ignore[arg-type]
    assert a == robustness(data, resamples=2000, seed=1, resampling=resampling)  # type: ignore[arg-type]
    b = robustness(data, resamples=2000, seed=2, resampling=resampling)  # type: ignore[arg-type]
    assert a.model_dump(exclude={"seed"}) != b.model_dump(exclude={"seed"})


def test_clustered_resampling_pairs_drops_with_clean_and_per_sample_does_not() -> None:
    # identical columns: under clustered resampling the paired drop never varies, while each accuracy does
    same = [v(f"s{i}", code, i % 2 == 0) for i in range(40) for code in ("clean", "CD")]
    r = robustness(same, resamples=1000, seed=0, resampling="clustered")
    assert r.resampling == "clustered"
    assert r.drop["CD"].value == 0.0 and r.drop["CD"].ci95 == 0.0
    assert r.accuracy["CD"].ci95 is not None and r.accuracy["CD"].ci95 > 0.05
    # per-sample (the paper's): Clean and CD are resampled on their own, so the drop varies about
    # √2 times as much as either accuracy
    p = robustness(same, resamples=10_000, seed=0)
    assert p.resampling == "per-sample" and p.resamples == 10_000
    assert p.accuracy["clean"].ci95 == p.accuracy["CD"].ci95 == pytest.approx(0.1625, abs=0.0126)
    assert p.drop["CD"].ci95 == pytest.approx(2**0.5 * 0.1625, abs=0.02)


def test_accuracy_is_binary_correctness_not_partial_credit() -> None:
    # a ToolEyes answer right on 2 of 3 steps: score 0.667, but not correct (Table 2: "per-sample
    # binary correctness"; every accuracy of Tables 7-14 is a whole number of records)
    partial = v("s1", "clean", False).model_copy(update={"score": 2 / 3})
    r = robustness([partial, v("s2", "clean", True)], resamples=0)
    assert r.clean.value == 0.5
    s = summarize([partial, v("s2", "clean", True)], resamples=0)
    assert (s.clean.correct, s.clean.accuracy) == (1.0, 0.5)


def test_per_sample_half_width_of_a_group_does_not_depend_on_the_other_groups() -> None:
    clean = [v(f"s{i}", "clean", i % 3 == 0) for i in range(60)]
    typos = [v(f"s{i}", "realistic_typos", i % 2 == 0) for i in range(60)]
    alone = robustness(clean, resamples=2000, seed=4)
    both = robustness(clean + typos, resamples=2000, seed=4)
    assert alone.clean == both.clean and both.accuracy["realistic_typos"].ci95 is not None


def test_paired_significance_known_answers() -> None:
    base = [v(f"s{i}", code, i % 2 == 0) for i in range(40) for code in ("clean", "CD")]
    same = paired_significance(base, base, resamples=1000)
    assert same["clean"].p_value == 1.0 and same["clean"].marker == ""
    better = [v(f"s{i}", code, True) for i in range(40) for code in ("clean", "CD")]
    sig = paired_significance(better, base, resamples=1000)
    assert sig["clean"].difference == 0.5 and sig["clean"].p_value == 0.0 and sig["clean"].marker == "***"
    assert sig["drop:CD"].difference == 0.0 and sig["drop:CD"].marker == ""


def test_markers_follow_table_2() -> None:
    assert [marker(p) for p in (0.0009, 0.001, 0.009, 0.01, 0.049, 0.05, None)] == ["***", "**", "**", "*", "*", "", ""]


def test_error_mode_shares_per_component() -> None:
    assert error_mode_shares(CASE) == {
        "clean": {"wrong": 1.0},
        "observation": {"empty": 0.5, "wrong": 0.5},
        "reward": {"name_bias": 1.0},
    }
