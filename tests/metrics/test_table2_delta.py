"""Table 2's Δ per component and its intervals, recomputed from the paper's own per-type tables.

Table 2's caption reads "Δ_X = Clean − mean(Acc on X-perturbations)". Appendix J (Tables 7-14) prints
every model's accuracy on Clean and on each of the 22 types; the counts below are the only record
counts those accuracies are consistent with for all 21 models (Clean 199; e.g. MisDesc 102,
MisDesc-Abbr 144) and they add up to Table 3's 3,721 records. From them, pooling a component's
records reproduces every printed Δ (84 of 84) and every Pert. Acc.; the unweighted mean of the type
accuracies does not (37 of 84 to the digit; o4-mini Δ_Rew 0.289 against the printed 0.326).
"""

from __future__ import annotations

import numpy as np
import pytest

from robustcall.core import TABLE2_STATS, TYPES, Verdict, paper_reference
from robustcall.metrics import DELTA_COMPONENTS, component_delta, robustness, summarize

PAPER = paper_reference()  # the one copy of the paper's numbers: src/robustcall/core/paper_models.yaml
CLEAN_N = PAPER.clean_records
COUNTS = PAPER.type_records
ACCURACY = {m.name: list(m.accuracy.values()) for m in PAPER.models}
"""Tables 7-14: Clean, then the 22 types in the order of COUNTS."""
TABLE2 = {m.name: [m.table2[s].value for s in TABLE2_STATS[1:]] for m in PAPER.models}
"""Table 2: Pert. Acc., Δ_Obs, Δ_Act, Δ_Rew, Δ_Trn."""
TABLE2_HALF_WIDTHS = {m.name: [m.table2[s].ci95 for s in TABLE2_STATS] for m in PAPER.models}
assert sum(COUNTS.values()) + CLEAN_N == 3721  # Table 3's total


def _correct(model: str) -> tuple[int, dict[str, int]]:
    """Records answered correctly: Clean and per type (accuracy x count, to the nearest record)."""
    clean, *types = ACCURACY[model]
    return round(clean * CLEAN_N), {t: round(a * COUNTS[t]) for t, a in zip(COUNTS, types, strict=True)}


def _by_component() -> dict[str, list[str]]:
    return {c: [t for t in COUNTS if TYPES[t].component == c] for c in DELTA_COMPONENTS}


def _pooled(model: str) -> list[float]:
    clean_k, k = _correct(model)
    clean = clean_k / CLEAN_N
    return [
        float(component_delta(clean, [k[t] for t in types], [COUNTS[t] for t in types]))
        for types in _by_component().values()
    ]


def _mean_of_types(model: str) -> list[float]:
    clean, *types = ACCURACY[model]
    acc = dict(zip(COUNTS, types, strict=True))
    return [clean - float(np.mean([acc[t] for t in ts])) for ts in _by_component().values()]


def test_the_data_file_holds_table_2_in_its_family_order() -> None:
    """21 models; Table 2's Clean is Tables 7-14's; within a family, rows by Pert. Acc. descending."""
    assert len(PAPER.models) == 21 and len({m.name for m in PAPER.models}) == 21
    for m in PAPER.models:
        assert m.table2["clean"].value == m.accuracy["clean"], m.name
    order = [(PAPER.families.index(m.family), -m.table2["pert_acc"].value) for m in PAPER.models]
    assert order == sorted(order)
    assert [m.name for m in PAPER.models if m.ours] == ["ToolRL-DR-Full", "ToolRL-DR-Mixed"]


def test_every_accuracy_is_a_whole_number_of_records() -> None:
    for model in ACCURACY:
        clean_k, k = _correct(model)
        assert round(clean_k / CLEAN_N, 3) == ACCURACY[model][0]
        assert [round(k[t] / n, 3) for t, n in COUNTS.items()] == ACCURACY[model][1:], model


def test_pooling_the_records_reproduces_every_printed_delta_and_pert_acc() -> None:
    for model, (pert, *printed) in TABLE2.items():
        _, k = _correct(model)
        assert round(sum(k.values()) / sum(COUNTS.values()), 3) == pert, model
        assert [round(d + 0.0, 3) for d in _pooled(model)] == printed, model


def test_the_mean_of_type_accuracies_does_not() -> None:
    assert [round(d, 3) for d in _mean_of_types("o4-mini")] == [0.049, 0.161, 0.289, 0.277]
    assert [round(d, 3) for d in _pooled("o4-mini")] == [0.049, 0.157, 0.326, 0.276] == TABLE2["o4-mini"][1:]
    assert round(_mean_of_types("ToolRL-Qwen2.5-3B")[2], 3) == 0.433 != TABLE2["ToolRL-Qwen2.5-3B"][3] == 0.450
    assert round(_mean_of_types("ToolRL-DR-Full")[1], 3) == 0.154 != TABLE2["ToolRL-DR-Full"][2] == 0.147
    agree = sum(
        round(m, 3) == p
        for model, (_, *printed) in TABLE2.items()
        for m, p in zip(_mean_of_types(model), printed, strict=True)
    )
    assert agree == 37  # of 84


def _verdicts(model: str) -> list[Verdict]:
    """One verdict per record: source i of each type answered correctly when i < its correct count."""
    clean_k, k = _correct(model)
    out = [
        Verdict(id=f"s{i}", benchmark="b", type="clean", component="clean", correct=i < clean_k, score=i < clean_k)
        for i in range(CLEAN_N)
    ]
    for t, n in COUNTS.items():
        out += [
            Verdict(
                id=f"s{i}__{t}",
                benchmark="b",
                type=t,
                component=TYPES[t].component,
                correct=i < k[t],
                score=float(i < k[t]),
            )
            for i in range(n)
        ]
    return out


@pytest.mark.parametrize("model", list(ACCURACY))
def test_score_report_and_leaderboard_statistics_give_table_2(model: str) -> None:
    """``robustness`` (report) and ``summarize`` (score, leaderboard) on the paper's records: Table 2's
    values to the digit, and its half-widths (per-sample bootstrap, B = 10,000) within 0.003: a
    half-width over 199 binary records moves in steps of 1/398 = 0.0025 from one seed to another
    (the paper prints ToolRL-DR-Full's Clean as ± 0.065 in Table 2 and ± 0.068 in Table 14)."""
    verdicts = _verdicts(model)
    stats = robustness(verdicts)
    summary = summarize(verdicts)
    pert, *deltas = TABLE2[model]
    assert stats.resamples == summary.bootstrap_resamples == 10_000
    assert stats.resampling == summary.resampling == "per-sample"
    assert stats.clean.value is not None and round(stats.clean.value, 3) == ACCURACY[model][0]
    assert stats.pert_acc.value is not None and round(stats.pert_acc.value, 3) == pert
    got = [stats.delta[c].value for c in DELTA_COMPONENTS]
    assert [round(d + 0.0, 3) for d in got if d is not None] == deltas
    assert [summary.delta[c] for c in DELTA_COMPONENTS] == [stats.delta[c] for c in DELTA_COMPONENTS]
    assert [summary.component_delta(c) for c in DELTA_COMPONENTS] == got
    assert (summary.clean.ci95, summary.perturbed.ci95) == (stats.clean.ci95, stats.pert_acc.ci95)
    widths = [stats.clean.ci95, stats.pert_acc.ci95, *(stats.delta[c].ci95 for c in DELTA_COMPONENTS)]
    assert widths == pytest.approx(TABLE2_HALF_WIDTHS[model], abs=0.003)
