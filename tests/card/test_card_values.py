"""A card's sections hold the values scripted models must get: the oracle (golden calls, the
environments' expert) and a naive model that never calls a tool."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from robustcall.card import PROTOCOLS, fault_run, read_card, tc_bench
from robustcall.core import TAXONOMY
from robustcall.metrics import ALPHAS, fault_metrics
from robustcall.run import ALL_TYPES, plan_work, read_trajectories, run_pipe

QUICK = PROTOCOLS["quick"]


def test_quick_protocol_has_at_least_20_records_per_type(oracle_card: Path) -> None:
    card = read_card(oracle_card)
    counts = {t.code: t.n for t in card.robustbench.types}
    assert set(counts) == {t.code for t in TAXONOMY}
    assert min(counts.values()) >= 20
    assert card.robustbench.clean_samples == 20 and card.robustbench.records == 460
    assert card.protocol == "card-1" and card.budget == "quick"
    # tokens and time: every record counted; a scripted model reports no usage, so no token figure
    assert card.tokens is not None and card.tokens.total.records == 460 and card.tokens.total.with_usage == 0
    assert sum(row.records for row in card.tokens.by_type.values()) == 460
    assert card.tokens.total.mean_tokens is None and set(card.fault_tokens) == {r.display for r in card.faults}
    assert "Tokens and time per component" in (oracle_card / "card.html").read_text()


def test_oracle_robustbench_is_perfect_and_first(oracle_card: Path) -> None:
    rb = read_card(oracle_card).robustbench
    assert rb.clean.value == 1.0 and rb.pert_acc.value == 1.0 and rb.retention.value == 1.0
    assert {c: e.value for c, e in rb.components.items()} == dict.fromkeys(
        ("observation", "action", "reward", "transition"), 1.0
    )
    assert {c: e.value for c, e in rb.component_delta.items()} == dict.fromkeys(
        ("observation", "action", "reward", "transition"), 0.0
    )
    assert all(t.drop.value == 0.0 and t.accuracy.value == 1.0 for t in rb.types)
    assert rb.most_damaging == []  # nothing lowered accuracy
    assert (rb.reference.rank, rb.reference.rank_low, rb.reference.rank_high, rb.reference.of) == (1, 1, 1, 22)
    assert not rb.reference.comparable and "not like for like with the paper: robustcall's own build" in (
        rb.reference.note
    )
    assert [r["this"] for r in rb.reference.rows].index(True) == 0 and len(rb.reference.rows) == 22


def _expert_plan_lengths(env: str, tmp: Path) -> list[int]:
    """Steps the expert takes on each of the protocol's tasks when nothing stops it."""
    trajs = asyncio.run(run_pipe(env, "origin", "scripted:expert", tmp / env, limit=QUICK.tasks, max_steps=1000))
    assert all(t.success for t in trajs)
    return [len(t.steps) for t in trajs]


def test_oracle_pipe_scores_its_plans_within_the_step_limit_at_every_level(oracle_card: Path, tmp_path: Path) -> None:
    card = read_card(oracle_card)
    for env in QUICK.envs:
        lengths = _expert_plan_lengths(env, tmp_path)
        expected = sum(n <= QUICK.max_steps for n in lengths) / len(lengths)
        e = card.pipe[env]
        assert {lv: x.score for lv, x in e.levels.items()} == dict.fromkeys(
            ("origin", "synonym", "symbol", "dual"), pytest.approx(expected, abs=1e-12)
        )
        assert e.levels["dual"].episodes == 2 * QUICK.tasks  # both orders
        assert e.levels["synonym"].legacy_calls == 0.0 and e.levels["symbol"].legacy_calls == 0.0
        assert e.delta == pytest.approx(0.0, abs=1e-12)
        # the expert calls whichever family is listed first: the two orders cancel out exactly
        assert e.interface_reliance == {f"{a:g}": pytest.approx(1.0, abs=1e-12) for a in ALPHAS}
    assert card.pipe["maze"].levels["origin"].score == pytest.approx(2 / 3)  # maze-6-0 needs more than 15


def test_fault_section_is_what_faults_report_reads_from_the_same_runs(oracle_card: Path) -> None:
    card = read_card(oracle_card)
    assert [r.fault_class for r in card.faults] == ["execution", "semantic", "nonstationary"]
    assert card.fault_delta == 0.3
    for row in card.faults:
        runs = {env: read_trajectories(fault_run(oracle_card, env, row.fault_class)) for env in QUICK.envs}
        assert all({t.config["delta"] for t in ts} == {0.3} for ts in runs.values())
        assert all(t.config["profile"] == row.fault_class for ts in runs.values() for t in ts)
        assert row.pooled == fault_metrics([t for ts in runs.values() for t in ts])
        assert row.pooled.episodes == len(QUICK.envs) * QUICK.tasks
        assert row.pooled.faults > 0
    for row in card.faults[:2]:  # R_i needs the fault identified (§3.3): the expert retries without a word
        assert (row.pooled.recovery_rate, row.pooled.eia, row.pooled.ufr) == (0.0, 0.0, 0.0)
    runs = [t for env in QUICK.envs for t in read_trajectories(fault_run(oracle_card, env, "execution"))]
    assert fault_metrics(runs, rr_rule="retry").recovery_rate == 1.0  # its next call is the retry


def test_naive_robustbench_is_right_exactly_where_no_call_is_the_answer(naive_card: Path) -> None:
    rb = read_card(naive_card).robustbench
    items = plan_work(tc_bench(naive_card), list(ALL_TYPES))
    for t in rb.types:
        mine = [it for it in items if it.type == t.code]
        assert t.n == len(mine)
        assert t.accuracy.value == sum(not it.sample.golden_answers for it in mine) / len(mine)
    assert rb.clean.value == 4 / 20  # the four irrelevance samples of the stratified draw
    assert all(t.drop.value == 0.0 for t in rb.types) and rb.most_damaging == []
    assert (rb.reference.rank, rb.reference.rank_low, rb.reference.rank_high) == (22, 22, 22)


def test_naive_episodes_never_act(naive_card: Path) -> None:
    card = read_card(naive_card)
    for env in QUICK.envs:
        e = card.pipe[env]
        assert all(x.score == 0.0 and x.success == 0.0 for x in e.levels.values())
        assert e.delta == 0.0
        assert e.interface_reliance == {f"{a:g}": 1.0 for a in ALPHAS}  # no call of either family
    for row in card.faults:
        m = row.pooled
        assert (m.faults, m.success_rate, m.recovery_rate, m.ufr, m.eia) == (0, 0.0, None, 0.0, None)
