"""The most damaging perturbations and PIPE's reliance on original names, on a model that has both."""

from __future__ import annotations

from pathlib import Path

from robustcall.card import PROTOCOLS, read_card, tc_run
from robustcall.core import PredictionRecord, Verdict, read_jsonl
from robustcall.metrics import ALPHAS
from robustcall.run import clean_id_of


def test_most_damaging_are_the_largest_drops_each_with_a_wrong_answer_whose_clean_twin_was_right(
    biased_card: Path,
) -> None:
    rb = read_card(biased_card).robustbench
    drops = sorted((t.drop.value or 0.0 for t in rb.types), reverse=True)
    assert [d.drop.value for d in rb.most_damaging] == drops[:3]
    assert all((d.drop.value or 0) > 0 for d in rb.most_damaging)
    verdicts = {(v.type, v.id): v.correct for v in read_jsonl(tc_run(biased_card) / "scores.jsonl", Verdict)}
    records = {r.id: r for r in read_jsonl(tc_run(biased_card) / "predictions.jsonl", PredictionRecord)}
    for d in rb.most_damaging:
        ex = d.example
        assert ex is not None
        assert verdicts[(d.code, ex.id)] is False and ex.clean_correct is True
        assert verdicts[("clean", clean_id_of(records[ex.id]))] is True
        assert ex.query == records[ex.id].conversation[records[ex.id].last_user_index()].content


def test_a_memorising_agent_fails_renamed_interfaces_with_legacy_calls_and_relies_on_original_names(
    biased_card: Path,
) -> None:
    card = read_card(biased_card)
    for env in PROTOCOLS["quick"].envs:
        e = card.pipe[env]
        assert e.levels["synonym"].score == 0.0 and e.levels["symbol"].score == 0.0
        assert (e.levels["synonym"].legacy_calls or 0) > 0 and (e.levels["symbol"].legacy_calls or 0) > 0
        assert e.delta == -(e.levels["origin"].score or 0.0)
        ir = e.interface_reliance
        assert all((ir[f"{a:g}"] or 0) > 1 for a in ALPHAS)  # only original names in both orders
        assert (ir["0.5"] or 0) > (ir["1"] or 0) > (ir["2"] or 0)  # a larger α smooths towards 1
