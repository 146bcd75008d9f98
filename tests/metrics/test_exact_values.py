"""Every public statistic of ``robustcall.metrics`` on tiny hand-built inputs, with values worked out by hand.

Half-widths are pinned only where they are determined exactly (a group that is all right or all wrong
never varies: 0.0) or against an independent computation (the exact binomial quantiles of a group's
bootstrap mean, far enough from the CDF's jumps that B = 10,000 replicates cannot miss them).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from robustcall.core import InputError, Prediction, PredictionRecord, ToolCall, ToolSpec, Trajectory, Verdict, type_info
from robustcall.metrics import (
    COMPONENT_ORDER,
    Estimate,
    GhostCounts,
    GhostKind,
    ScoreMatrix,
    bootstrap_halfwidth,
    component_delta,
    error_mode_shares,
    exact_floor,
    frac,
    ghost_calls_in_records,
    ghost_calls_in_trajectories,
    ghost_kind,
    half_width,
    heat_text,
    paired_significance,
    robustness,
    source_id,
    sum_replicates,
    summarize,
)
from robustcall.metrics._pipe import (
    averaged_counts,
    combined_interface_reliance,
    interface_reliance,
    ir_log,
    naive_interface_reliance,
    pipe_delta,
)


def v(
    source: str,
    code: str,
    correct: bool | None,
    mode: str | None = None,
    *,
    attack: bool | None = None,
) -> Verdict:
    component = "clean" if code == "clean" else type_info(code).component
    return Verdict(
        id=source if code == "clean" else f"{source}__{code}",
        benchmark="b",
        type=code,
        component=component,
        correct=correct,
        score=1.0 if correct else 0.0,
        error_mode=mode,
        attack_success=attack,
    )


# Clean 2/3 (s4 an infra error), then one to three records per type; three of Appendix N's types
RUN = [
    v("s1", "clean", True),
    v("s2", "clean", False, "wrong"),
    v("s3", "clean", True),
    v("s4", "clean", None),
    v("s1", "realistic_typos", True),
    v("s2", "realistic_typos", True),
    v("s3", "realistic_typos", False, "empty"),
    v("s1", "query_paraphrase", False, "wrong"),
    v("s1", "same_name_A", True),
    v("s2", "same_name_A", False, "name_bias"),
    v("s1", "CD", False, "name_bias"),
    v("s2", "CD", False),  # incorrect, no mode recorded
    v("s1", "transient_timeout", True),
    v("s1", "prompt_injection", True, attack=False),
    v("s2", "prompt_injection", False, "wrong", attack=True),
    v("s1", "silent_noop", True),
    v("s1", "ghost_tool", None),
]


def test_summarize_cells_drops_deltas_and_error_modes() -> None:
    s = summarize(RUN, resamples=0)
    cells = {t: (c.n, c.correct, c.accuracy, c.infra_errors, c.ci95) for t, c in s.by_type.items()}
    assert cells == {
        "clean": (3, 2.0, pytest.approx(2 / 3), 1, None),
        "realistic_typos": (3, 2.0, pytest.approx(2 / 3), 0, None),
        "query_paraphrase": (1, 0.0, 0.0, 0, None),
        "same_name_A": (2, 1.0, 0.5, 0, None),
        "CD": (2, 0.0, 0.0, 0, None),
        "transient_timeout": (1, 1.0, 1.0, 0, None),
    }
    assert list(s.by_type) == ["clean", "realistic_typos", "query_paraphrase", "same_name_A", "CD", "transient_timeout"]
    comps = {c: (cell.n, cell.correct, cell.accuracy) for c, cell in s.by_component.items()}
    assert comps == {
        "clean": (3, 2.0, pytest.approx(2 / 3)),
        "observation": (4, 2.0, 0.5),
        "action": (2, 1.0, 0.5),
        "reward": (2, 0.0, 0.0),
        "transition": (1, 1.0, 1.0),
    }
    assert list(s.by_component) == list(COMPONENT_ORDER)
    assert s.clean == s.by_type["clean"]
    assert (s.perturbed.n, s.perturbed.correct, s.perturbed.accuracy) == pytest.approx((9, 4.0, 4 / 9))
    assert s.drop_by_type == {
        "realistic_typos": pytest.approx(0.0),
        "query_paraphrase": pytest.approx(2 / 3),
        "same_name_A": pytest.approx(1 / 6),
        "CD": pytest.approx(2 / 3),
        "transient_timeout": pytest.approx(-1 / 3),
    }
    assert {c: e.value for c, e in s.delta.items()} == {
        "observation": pytest.approx(2 / 3 - 1 / 2),
        "action": pytest.approx(2 / 3 - 1 / 2),
        "reward": pytest.approx(2 / 3),
        "transition": pytest.approx(-1 / 3),
    }
    assert all(e.ci95 is None for e in s.delta.values())
    assert [s.component_delta(c) for c in s.delta] == [s.delta[c].value for c in s.delta]
    # ``summarize`` counts only the incorrect records that carry a mode; ``error_mode_shares`` calls the rest "other"
    assert s.error_modes == {
        "action": {"name_bias": 1},
        "clean": {"wrong": 1},
        "observation": {"empty": 1, "wrong": 1},
        "reward": {"name_bias": 1},
    }
    assert s.infra_error_ids == ["s4", "s1__ghost_tool"]  # sorted by (type, id), Appendix N's types too
    assert (s.bootstrap_resamples, s.seed, s.resampling) == (0, 0, "per-sample")


def test_summarize_keeps_appendix_n_types_apart() -> None:
    s = summarize(RUN, resamples=0)
    assert "prompt_injection" not in s.by_type and s.perturbed.n == 9  # Table 2 untouched
    beyond = {t: (c.n, c.correct, c.accuracy, c.infra_errors) for t, c in s.beyond_by_type.items()}
    assert beyond == {
        "silent_noop": (1, 1.0, 1.0, 0),
        "prompt_injection": (2, 1.0, 0.5, 0),
        "ghost_tool": (0, 0.0, None, 1),
    }
    assert list(s.beyond_by_type) == ["silent_noop", "prompt_injection", "ghost_tool"]  # Appendix N's order
    assert s.beyond_drop_by_type == {
        "silent_noop": pytest.approx(-1 / 3),
        "prompt_injection": pytest.approx(1 / 6),
        "ghost_tool": None,
    }
    assert s.attack_success is not None
    assert (s.attack_success.n, s.attack_success.correct, s.attack_success.accuracy) == (2, 1.0, 0.5)
    plain = summarize([x for x in RUN if x.type in {"clean", "CD"}], resamples=0)
    assert plain.beyond_by_type == {} and plain.attack_success is None


def test_summary_component_delta_of_a_summary_written_without_stored_deltas() -> None:
    s = summarize(RUN, resamples=0).model_copy(update={"delta": {}})
    assert s.component_delta("reward") == pytest.approx(2 / 3 - 0 / 2)
    assert s.component_delta("observation") == pytest.approx(2 / 3 - 2 / 4)
    empty = summarize([v("s1", "CD", True)], resamples=0)
    assert empty.clean.accuracy is None and empty.component_delta("reward") is None


def test_robustness_values_of_the_same_run() -> None:
    r = robustness(RUN[:13], resamples=0)
    assert (r.clean.value, r.clean.ci95) == pytest.approx((2 / 3, None))
    assert r.pert_acc.value == pytest.approx(4 / 9)
    assert r.retention.value == pytest.approx(1 - (1 / 6 + 1 / 6 + 2 / 3) / 3 / (2 / 3))  # = 0.5
    assert r.component_accuracy["observation"].value == 0.5 and r.component_accuracy["reward"].value == 0.0
    assert r.accuracy["same_name_A"].value == 0.5 and r.drop["CD"].value == pytest.approx(2 / 3)
    assert (r.sources, r.infra_errors) == (4, 1)
    assert r.n_by_type["clean"] == 3


def test_robustness_without_clean_or_without_a_component() -> None:
    only_typos = robustness([v("s1", "realistic_typos", True), v("s2", "realistic_typos", False)], resamples=100)
    assert only_typos.clean.value is None and only_typos.clean.ci95 is None
    assert only_typos.pert_acc.value == 0.5
    assert only_typos.drop["realistic_typos"].value is None
    assert all(e.value is None for e in only_typos.delta.values()) and only_typos.retention.value is None
    no_reward = robustness([v("s1", "clean", True), v("s1", "realistic_typos", False)], resamples=0)
    assert no_reward.delta["observation"].value == 1.0 and no_reward.delta["reward"].value is None
    assert no_reward.retention.value is None  # Δ_Rew undefined: mean(Δ_Obs, Δ_Act, Δ_Rew) is too


@pytest.mark.parametrize("resampling", ["per-sample", "clustered"])
def test_groups_that_never_vary_have_zero_half_width(resampling: str) -> None:
    codes = ("clean", "realistic_typos", "same_name_A", "CD")
    perfect = [v(f"s{i}", code, True) for i in range(12) for code in codes]
    r = robustness(perfect, resamples=500, seed=3, resampling=resampling)  # type: ignore[arg-type]
    assert r.clean == Estimate(value=1.0, ci95=0.0)
    assert r.pert_acc == Estimate(value=1.0, ci95=0.0)
    assert r.drop["CD"] == Estimate(value=0.0, ci95=0.0)
    assert r.delta["reward"] == Estimate(value=0.0, ci95=0.0)
    assert r.retention == Estimate(value=1.0, ci95=0.0)
    assert r.delta["transition"] == Estimate(value=None, ci95=None)  # no Transition records


def _binomial_quantile(n: int, p: float, q: float) -> int:
    cdf = 0.0
    for k in range(n + 1):
        cdf += math.comb(n, k) * p**k * (1 - p) ** (n - k)
        if cdf >= q:
            return k
    return n


@pytest.mark.parametrize("seed", [0, 1, 7])
def test_per_sample_half_width_is_the_binomial_one(seed: int) -> None:
    # 4 of 9 right: a replicate mean is Binomial(9, 4/9) / 9, whose 2.5% and 97.5% quantiles are 1/9 and
    # 7/9; its CDF is at least 0.016 away from 0.025 and 0.975, ten standard errors at B = 10,000
    lo, hi = _binomial_quantile(9, 4 / 9, 0.025), _binomial_quantile(9, 4 / 9, 0.975)
    assert (lo, hi) == (1, 7)
    expected = (hi - lo) / 9 / 2
    scores = np.array([1.0] * 4 + [0.0] * 5)
    assert bootstrap_halfwidth(scores, 10_000, seed=seed, group="g") == pytest.approx(expected)
    clean = [v(f"s{i}", "clean", i < 4) for i in range(9)]
    r = robustness(clean, resamples=10_000, seed=seed)
    assert (r.clean.value, r.clean.ci95) == pytest.approx((4 / 9, expected))
    s = summarize(clean, resamples=10_000, seed=seed)
    assert s.clean.ci95 == r.clean.ci95


def test_bootstrap_primitives() -> None:
    assert half_width(np.arange(101.0)) == pytest.approx(47.5)  # (97.5 - 2.5) / 2
    assert half_width(np.array([np.nan, 3.0, np.inf, 5.0])) == pytest.approx((4.95 - 3.05) / 2)
    assert half_width(np.array([1.0, np.nan])) is None
    rng = np.random.default_rng(0)
    assert np.isnan(sum_replicates(np.array([]), 4, rng)).all()
    assert sum_replicates(np.array([0.5, 0.5, 0.5]), 4, rng).tolist() == [1.5] * 4
    assert bootstrap_halfwidth(np.array([])) is None
    assert bootstrap_halfwidth(np.array([1.0, 0.0]), 0) is None
    assert bootstrap_halfwidth(np.ones(30), 200) == 0.0


def test_component_delta_pools_records_over_a_replicate_axis() -> None:
    # Table 2: Clean − (records right) / (records), pooled over X's types
    assert float(component_delta(0.7, [3, 1], [4, 4])) == pytest.approx(0.7 - 4 / 8)
    reps = component_delta([0.5, 0.6], [[1, 2], [0, 1]], [[2, 4], [2, 4]])
    assert reps.tolist() == pytest.approx([0.5 - 3 / 6, 0.6 - 1 / 6])
    assert np.isnan(component_delta(0.5, [0], [0]))


def test_source_ids_and_the_score_matrix() -> None:
    assert source_id(v("s1", "CD", True)) == "s1"
    assert source_id(v("s1__CD", "clean", True)) == "s1__CD"
    odd = v("x", "CD", True).model_copy(update={"id": "custom"})
    assert source_id(odd) == "custom"
    m = ScoreMatrix.from_verdicts([v("s2", "CD", False), v("s1", "clean", True), v("s1", "CD", None)])
    assert (m.sources, m.columns, m.infra_errors) == (["s1", "s2"], ["clean", "CD"], 1)
    assert np.array_equal(m.values, np.array([[1.0, np.nan], [np.nan, 0.0]]), equal_nan=True)
    assert m.components == {"CD": "reward", "clean": "clean"}
    groups = m.groups()
    assert groups["acc:clean"] == [0] and groups["component:reward"] == [1] and groups["pert_acc"] == [1]
    assert groups["component:action"] == []
    sub = m.restrict(["s2", "s9"], ["CD", "realistic_typos"])
    assert np.array_equal(sub.values, np.array([[0.0, np.nan], [np.nan, np.nan]]), equal_nan=True)
    assert sub.components == {"CD": "reward"}


def test_paired_significance_exact_cases() -> None:
    codes = ("clean", "CD")
    right = [v(f"s{i}", c, True) for i in range(10) for c in codes]
    wrong = [v(f"s{i}", c, False) for i in range(10) for c in codes]
    sig = paired_significance(right, wrong, resamples=300)
    # every replicate of (run − baseline) is +1 for the accuracies and 0 for the drop; 10 differing
    # pairs: an exact paired test cannot go below 2^-9 = 0.00195, so ** (not ***)
    assert (sig["clean"].difference, sig["clean"].p_value, sig["clean"].marker) == (1.0, 0.0, "**")
    assert (sig["clean"].pairs, sig["clean"].discordant, sig["clean"].p_floor) == (10, 10, 2**-9)
    assert (sig["acc:CD"].difference, sig["acc:CD"].p_value) == (1.0, 0.0)
    assert (sig["drop:CD"].difference, sig["drop:CD"].p_value, sig["drop:CD"].marker) == (0.0, 1.0, "")
    assert (sig["delta:action"].difference, sig["delta:action"].p_value) == (None, None)  # no Action records
    # the run only has sources s0..s9 in common with this baseline, and only the clean column
    other = [v(f"t{i}", "clean", True) for i in range(5)]
    assert paired_significance(right, other, resamples=10) == {}
    shared = paired_significance(right, [v("s0", "clean", False), v("s1", "clean", False)], resamples=50)
    assert "acc:CD" not in shared and shared["clean"].difference == 1.0


def test_error_mode_shares_count_unlabelled_errors_as_other() -> None:
    assert error_mode_shares(RUN) == {
        "action": {"name_bias": 1.0},
        "clean": {"wrong": 1.0},
        "observation": {"empty": pytest.approx(1 / 3), "wrong": pytest.approx(2 / 3)},  # Inject: Observation
        "reward": {"name_bias": 0.5, "other": 0.5},
    }
    assert error_mode_shares([v("s1", "clean", True), v("s2", "clean", None)]) == {}


def test_fractions_and_heat_cells() -> None:
    assert frac(0.1234) == "0.123"
    assert frac(0.1234, 0.0456) == "0.123 ± 0.046"
    assert frac(0.25, signed=True) == "+0.250"
    assert frac(-0.0004, signed=True) == "+0.000"  # never -0.000
    assert frac(-0.0004) == "0.000"
    assert frac(None, 0.1) == "—"
    assert [heat_text(x) for x in (0.123, -0.05, 1.0, 0.004, -0.004, -1.234, 0.999)] == [
        ".12",
        "-.05",
        "1.00",
        "0",
        "0",
        "-1.23",
        "1.00",
    ]


def test_ghost_kinds() -> None:
    listed, siblings = {"get_weather", "search"}, {"book_flight"}
    assert ghost_kind("get_weather", listed, siblings) is None
    assert ghost_kind("advanced_get_weather", listed, siblings) == "near_miss"  # contains a listed name
    assert ghost_kind("GetWeather", listed, siblings) == "near_miss"  # restyled
    assert ghost_kind("get_wether", listed, siblings) == "near_miss"  # similarity 0.95
    assert ghost_kind("book_flight", listed, siblings) == "sibling"
    assert ghost_kind("sea", listed, siblings) == "invented"  # too short to count as contained
    assert ghost_kind("translate", listed, siblings) == "invented"
    counts = GhostCounts()
    kinds: list[GhostKind | None] = ["near_miss", None, "invented", "invented"]
    for kind in kinds:
        counts.add(kind)
    assert (counts.calls, counts.ghost, counts.near_miss, counts.sibling, counts.invented) == (4, 3, 1, 0, 2)


def _record(sid: str, benchmark: str, tools: list[str], calls: list[str]) -> PredictionRecord:
    return PredictionRecord.model_validate(
        {
            "id": sid,
            "benchmark": benchmark,
            "category": "c",
            "source": {"original_id": sid, "benchmark": benchmark},
            "conversation": [{"role": "user", "content": "q"}],
            "tools": [ToolSpec(name=t).model_dump() for t in tools],
            "golden_answers": [],
            "eval_config": {"method": "exact"},
            "prediction": Prediction(tool_calls=[ToolCall(name=c) for c in calls]).model_dump(),
        }
    )


def test_ghost_calls_over_records_and_trajectories() -> None:
    recs = [
        _record("a", "b1", ["search"], ["search", "book_flight", "searchx"]),
        _record("b", "b1", ["book_flight"], ["book_flight", "zzz"]),
        _record("c", "b2", ["ping"], ["search"]),  # search belongs to another benchmark: invented here
    ]
    assert ghost_calls_in_records(recs) == GhostCounts(calls=6, near_miss=1, sibling=1, invented=2)

    def traj(env: str, tools: list[str] | None, calls: list[str]) -> Trajectory:
        steps = [{"index": i, "action": {"name": c, "arguments": {}}} for i, c in enumerate(calls)]
        config = {"tools": tools} if tools is not None else {}
        return Trajectory.model_validate(
            {"id": f"{env}/{calls}", "env": env, "task_id": "t", "steps": steps, "config": config}
        )

    trajs = [
        traj("shop", ["search", "buy"], ["search", "checkout", "buy"]),
        traj("shop", ["checkout"], ["checkoutt"]),
        traj("shop", None, ["nothing_counted"]),  # written before the list was recorded
        traj("bank", ["pay"], ["search"]),
    ]
    assert ghost_calls_in_trajectories(trajs) == GhostCounts(calls=5, near_miss=1, sibling=1, invented=1)


def test_interface_reliance_appendix_g_worked_example() -> None:
    # Appendix G: GPT-3.5-turbo on BabyAI, tasks (n_ori, n_syn) = (0, 1) and (20, 0), α = 1
    tasks = [(0, 1), (20, 0)]
    assert naive_interface_reliance(tasks) == 10.75  # (21 + 0.5) / 2
    assert ir_log(tasks) == pytest.approx((math.log(0.5) + math.log(21)) / 2)
    assert interface_reliance(tasks) == pytest.approx(math.sqrt(10.5))  # geometric mean of 0.5 and 21
    assert interface_reliance(tasks, alpha=2.0) == pytest.approx(math.sqrt(2 / 3 * 11))
    # eq. 3 with two orders: the mean of the two IRLOGs
    assert interface_reliance([(3, 0)], [(0, 1)]) == pytest.approx(math.sqrt(2))  # exp((log 4 + log ½) / 2)


def test_combining_the_two_dual_orders() -> None:
    o1, o2 = {"t1": (3, 0), "t2": (1, 1)}, {"t1": (0, 1), "t3": (5, 5)}
    assert averaged_counts(o1, o2) == [(1.5, 0.5)]  # t1 only: the one task run in both orders
    assert combined_interface_reliance(o1, o2, 1.0, "counts") == pytest.approx(2.5 / 1.5)
    eq3 = (math.log(4) + math.log(1)) / 2 + (math.log(0.5) + math.log(1)) / 2
    assert combined_interface_reliance(o1, o2, 1.0, "eq3") == pytest.approx(math.exp(eq3 / 2))
    with pytest.raises(ValueError, match="both orders"):
        averaged_counts({"a": (1, 1)}, {"b": (1, 1)})
    with pytest.raises(ValueError, match="unknown combination"):
        combined_interface_reliance(o1, o2, 1.0, "mean")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="alpha"):
        interface_reliance([(1, 1)], alpha=0.0)
    with pytest.raises(InputError):
        interface_reliance([])


def test_pipe_delta() -> None:
    assert pipe_delta(0.6, 0.5, 0.3) == pytest.approx(-0.2)  # (0.5 + 0.3) / 2 − 0.6
    assert pipe_delta(0.25, 0.5, 0.5) == 0.25


def _difference_quantiles(n1: int, k1: int, n2: int, k2: int) -> tuple[float, float, float]:
    """2.5% and 97.5% quantiles of X1/n1 − X2/n2 (independent binomials, the per-sample bootstrap of a
    drop) and how far the CDF comes to either level (its margin against the replicates' noise)."""
    dist: dict[Fraction, float] = {}
    for i in range(n1 + 1):
        for j in range(n2 + 1):
            p = math.comb(n1, i) * (k1 / n1) ** i * (1 - k1 / n1) ** (n1 - i)
            p *= math.comb(n2, j) * (k2 / n2) ** j * (1 - k2 / n2) ** (n2 - j)
            x = Fraction(i, n1) - Fraction(j, n2)
            dist[x] = dist.get(x, 0.0) + p
    cdf, lo, hi, margin = 0.0, None, None, 1.0
    for x in sorted(dist):
        cdf += dist[x]
        margin = min(margin, abs(cdf - 0.025), abs(cdf - 0.975))
        lo = x if lo is None and cdf >= 0.025 else lo
        hi = x if hi is None and cdf >= 0.975 else hi
    assert lo is not None and hi is not None
    return float(lo), float(hi), margin


def test_per_sample_half_width_of_a_drop_and_a_delta_is_that_of_a_difference_of_binomials() -> None:
    # Clean 5/6 and Typo 4/6, resampled on their own (the paper's intervals): a drop replicate is
    # X1/6 − X2/6 with X1 ~ B(6, 5/6), X2 ~ B(6, 4/6); Typo is Observation's only type, so Δ_Obs too
    lo, hi, margin = _difference_quantiles(6, 5, 6, 4)
    assert (lo, hi) == pytest.approx((-1 / 3, 2 / 3)) and margin > 0.015
    data = [v(f"s{i}", "clean", i < 5) for i in range(6)] + [v(f"s{i}", "realistic_typos", i < 4) for i in range(6)]
    r = robustness(data, resamples=10_000, seed=5)
    assert (r.drop["realistic_typos"].value, r.drop["realistic_typos"].ci95) == pytest.approx((1 / 6, (hi - lo) / 2))
    assert (r.delta["observation"].value, r.delta["observation"].ci95) == pytest.approx((1 / 6, 0.5))


def test_clustered_half_width_of_one_column_is_the_binomial_one() -> None:
    clean = [v(f"s{i}", "clean", i < 4) for i in range(9)]
    r = robustness(clean, resamples=10_000, seed=2, resampling="clustered")
    assert r.clean.ci95 == pytest.approx((7 - 1) / 9 / 2)  # as in the per-sample case above


def test_paired_p_value_against_the_exact_one() -> None:
    # 12 shared sources; the run is right where the baseline is wrong on 4 and they agree on 8. A paired
    # replicate of (run − baseline) Clean is (better sources drawn) / 12 >= 0 and is 0 exactly when none of
    # the 4 is drawn: P = (8/12)^12, so p = 2 · min(P(d <= 0), P(d >= 0)) = 2 · (2/3)^12 = 0.0154
    base = [v(f"s{i}", "clean", i >= 8) for i in range(12)]
    better = [v(f"s{i}", "clean", i < 4 or i >= 8) for i in range(12)]
    sig = paired_significance(better, base, resamples=10_000, seed=0)["clean"]
    assert sig.difference == pytest.approx(4 / 12)
    assert sig.p_value == pytest.approx(2 * (2 / 3) ** 12, abs=0.006)  # 3.4 standard errors at B = 10,000
    # the bootstrap's p ≈ 0.015 rests on 4 differing pairs: an exact paired test gives at least 2/2^4
    assert (sig.pairs, sig.discordant, sig.p_floor, sig.marker) == (12, 4, 0.125, "")


@pytest.mark.parametrize(
    ("n", "floor", "mark"),
    [
        (4, 0.125, ""),
        (5, 0.0625, ""),
        (6, 0.03125, "*"),
        (7, 0.015625, "*"),
        (8, 2**-7, "**"),
        (10, 2**-9, "**"),
        (11, 2**-10, "***"),
    ],
)
def test_significance_markers_are_those_an_exact_paired_test_can_reach(n: int, floor: float, mark: str) -> None:
    """Clean 1.0 against 0.0 on n paired samples: the bootstrap puts every replicate at +1 (p = 0),
    but the exact sign / McNemar test's p is 2 / 2^n (both all-same-sign outcomes of 2^n sign flips):
    n = 4 gives 0.125, no marker; * from n = 6, ** from n = 8, *** from n = 11."""
    right = [v(f"s{i}", "clean", True) for i in range(n)]
    wrong = [v(f"s{i}", "clean", False) for i in range(n)]
    sig = paired_significance(right, wrong, resamples=1000)["clean"]
    assert (sig.p_value, sig.pairs, sig.discordant, sig.p_floor, sig.marker) == (0.0, n, n, floor, mark)
    assert exact_floor(n) == floor and exact_floor(0) == 1.0


@pytest.mark.parametrize("resampling", ["per-sample", "clustered"])
def test_summary_half_widths_are_those_of_robustness(resampling: str) -> None:
    # every cell of ``score``'s summary carries the interval ``report`` prints for the same group:
    # a type's cell that type's, a component's cell the pooled component's, Pert. Acc. all perturbed records
    data = [
        v(f"s{i}", c, (i * 5 + k) % 7 < 4)
        for i in range(15)
        for k, c in enumerate(("clean", "realistic_typos", "query_paraphrase", "CD"))
    ]
    s = summarize(data, resamples=500, seed=9, resampling=resampling)  # type: ignore[arg-type]
    r = robustness(data, resamples=500, seed=9, resampling=resampling)  # type: ignore[arg-type]
    assert {t: c.ci95 for t, c in s.by_type.items()} == {t: e.ci95 for t, e in r.accuracy.items()}
    assert s.by_component["observation"].ci95 == r.component_accuracy["observation"].ci95
    assert s.by_component["reward"].ci95 == r.component_accuracy["reward"].ci95
    assert s.by_component["clean"].ci95 == r.clean.ci95 and s.perturbed.ci95 == r.pert_acc.ci95
    assert s.delta["observation"] == r.delta["observation"]
    assert {t: d for t, d in s.drop_by_type.items()} == {t: e.value for t, e in r.drop.items()}
