"""Best-of-n selection: RM picks, majority-vote canonicalisation, schema validation with log-probs;
R_ToolRM's range; Bradley-Terry loss with centering on a hand-computed case."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from typer.testing import CliRunner

from robustcall.cli.main import app
from robustcall.core import EvalConfig, GoldenAnswer, Message, Sample, SourceInfo, ToolSpec
from robustcall.formats import render_calls, sample_format
from robustcall.rewards import (
    bradley_terry_loss,
    canonical_sequence,
    error_of,
    full_sequence_match,
    judge_sample,
    majority_vote,
    rm_pick,
    schema_pick,
    to_toolrm_range,
    toolrm_reward,
)

TOOL = ToolSpec(
    name="add",
    parameters={
        "type": "dict",
        "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
        "required": ["a", "b"],
    },
)
SAMPLE = Sample(
    id="s1",
    benchmark="bfcl_v3",
    category="simple",
    source=SourceInfo(original_id="s1", benchmark="bfcl_v3"),
    conversation=[Message(role="user", content="add 1 and 2")],
    tools=[TOOL],
    golden_answers=[GoldenAnswer(name="add", parameters={"a": 1, "b": 2}, acceptable={"a": [1], "b": [2]})],
    eval_config=EvalConfig(method="bfcl_ast", output_format="bfcl"),
)


class Scripted:
    """Scores outputs by a fixed table (unknown text: -10)."""

    name = "scripted"

    def __init__(self, table: dict[str, float]) -> None:
        self.table = table

    def score(self, conversation: list[Message], tools: list[ToolSpec], outputs: list[str]) -> list[float]:
        return [self.table.get(o, -10.0) for o in outputs]


def test_best_of_n_with_scripted_scorer_picks_exactly_the_top_score() -> None:
    draws = ["[add(a=1, b=3)]", "[add(a=1, b=2)]", "[add(a=2, b=2)]", "[add(a=2, b=2)]"]
    scorer = Scripted({draws[0]: 0.5, draws[1]: 0.9, draws[2]: 0.1})
    rec = judge_sample(SAMPLE, "[add(a=5, b=2)]", draws, [-1.0, -3.0, -0.5, -0.5], {"s": scorer})
    assert rec.picks == {"greedy": -1, "majority": 2, "schema": 2, "rm:s": 1, "oracle": 1}
    assert rec.correct == {"greedy": False, "majority": False, "schema": False, "rm:s": True, "oracle": True}
    assert rec.error_type["greedy"] == "Incorrect Parameter Value"
    assert rec.fsm["rm:s"] is True
    assert rm_pick([0.2, 0.9, 0.9]) == 1  # first on ties


def test_majority_vote_canonicalises_sequences() -> None:
    texts = [
        "[add(a=1, b=3)]",
        '[{"name": "add", "arguments": {"b": 2, "a": 1}}]',  # same calls, other shape and key order
        "[add(a=1.0, b=2)]",  # 1.0 == 1
        "[add(a=7, b=3)]",
        "garbage(",
        "garbage(",
        "garbage(",
    ]
    assert canonical_sequence(texts[1]) == canonical_sequence(texts[2]) == canonical_sequence("[add(b=2, a=1)]")
    assert canonical_sequence("garbage(") is None
    assert majority_vote(texts) == 1  # 2 votes vs 2: the sequence seen first (index 0 has b=3: seen at 0!)


def test_majority_vote_ties_go_to_first_seen_and_unreadable_never_wins() -> None:
    assert majority_vote(["[add(a=1, b=3)]", "[add(a=1, b=2)]", "[add(b=2, a=1)]", "[add(a=1, b=3)]"]) == 0
    assert majority_vote(["x(", "x(", "[add(a=1, b=2)]"]) == 2
    assert majority_vote(["x(", "y("]) == 0
    parallel = ["[add(a=1, b=2), add(a=3, b=4)]", "[add(a=3, b=4), add(a=1, b=2)]", "[add(a=9, b=9)]"]
    assert majority_vote(parallel) == 0  # order-free: the first two are one sequence


def test_schema_pick_takes_the_most_likely_valid_draw() -> None:
    draws = ["[add(a=1)]", "[add(a=1, b=2)]", "[add(a=1, b=5)]", "[add(a='x', b=2)]"]
    assert schema_pick(draws, [-0.1, -2.0, -1.0, -0.2], [TOOL]) == 2
    assert schema_pick(draws, [None, None, None, None], [TOOL]) == 1  # no log-probs: draw order
    assert schema_pick(["[add(a=1)]"], [None], [TOOL]) == 0  # none valid: the first


def test_toolrm_reward_range() -> None:
    assert to_toolrm_range(0.0) == 0.0
    assert -3 < to_toolrm_range(-8.0) < -2.99 and 2.99 < to_toolrm_range(8.0) < 3
    assert to_toolrm_range(1.0) == pytest.approx(6 / (1 + math.exp(-1)) - 3)
    assert to_toolrm_range(-1.0, (-1.0, 1.0)) == -3.0 and to_toolrm_range(1.0, (-1.0, 1.0)) == 3.0
    got = toolrm_reward(Scripted({"a": 2.0, "b": -2.0}), SAMPLE.conversation, SAMPLE.tools, ["a", "b"])
    assert got[0] == pytest.approx(-got[1]) and all(-3 <= g <= 3 for g in got)


def test_bradley_terry_loss_with_centering_hand_computed() -> None:
    # r+ = (2.0, 0.5), r- = (1.0, 1.5): d = (1, -1)
    # -log σ(1) = log(1 + e^-1) = 0.313262; -log σ(-1) = log(1 + e) = 1.313262; mean = 0.813262
    # centering: ((2 + 1)^2 + (0.5 + 1.5)^2) / 2 = (9 + 4) / 2 = 6.5; η = 0.01 -> 0.065
    assert bradley_terry_loss([2.0, 0.5], [1.0, 1.5], eta=0.01) == pytest.approx(0.813262 + 0.065, abs=1e-6)
    assert bradley_terry_loss([2.0, 0.5], [1.0, 1.5], eta=0.0) == pytest.approx(0.813262, abs=1e-6)
    assert bradley_terry_loss([0.0], [0.0], eta=0.01) == pytest.approx(math.log(2))


def test_bradley_terry_loss_matches_trl_formula() -> None:
    torch = pytest.importorskip("torch")
    chosen, rejected = torch.tensor([2.0, 0.5, -1.0]), torch.tensor([1.0, 1.5, 0.3])
    # the exact expression of trl.RewardTrainer.compute_loss (1.16) with center_rewards_coefficient
    trl_loss = -torch.nn.functional.logsigmoid(chosen - rejected).mean() + 0.01 * torch.mean((chosen + rejected) ** 2)
    assert bradley_terry_loss(chosen.tolist(), rejected.tolist(), 0.01) == pytest.approx(float(trl_loss), abs=1e-6)


# ---- gold alternatives (RoTBench's several acceptable actions, ToolEyes' library) --------------------

ALT_TOOLS = [ToolSpec(name=n, parameters={"type": "object", "properties": {"x": {"type": "integer"}}}) for n in "ABC"]
ALT = Sample(
    id="r1",
    benchmark="rotbench",
    category="clean",
    source=SourceInfo(original_id="r1", benchmark="rotbench", extra={"golden_mode": "any"}),
    conversation=[Message(role="user", content="do it")],
    tools=ALT_TOOLS,
    golden_answers=[GoldenAnswer(name="A", parameters={"x": 1}), GoldenAnswer(name="B", parameters={"x": 2})],
    eval_config=EvalConfig(method="rotbench", output_format="react"),
)


def _react(*calls: tuple[str, int]) -> str:
    return "\n".join(f'Action: {n}\nAction Input: {{"x": {x}}}' for n, x in calls)


def test_every_alternative_is_a_full_sequence_match_and_errors_use_the_closest() -> None:
    rec = judge_sample(ALT, _react(("B", 2)), [_react(("A", 1)), _react(("B", 3)), _react(("C", 2))], [None] * 3, {})
    assert rec.correct == {"greedy": True, "majority": True, "schema": True, "oracle": True}
    assert rec.fsm["greedy"] and rec.fsm["majority"]  # B(x=2), the second alternative; A(x=1), the first
    # against B, the closest alternative, B(x=3) has a wrong value (it was "Incorrect number of functions"
    # against both alternatives at once); C is no alternative's name
    assert error_of(ALT, _react(("B", 3))) == "Incorrect Parameter Value"
    assert error_of(ALT, _react(("C", 2))) == "Incorrect Function Name"
    assert error_of(ALT, _react(("A", 1), ("B", 2))) == "Incorrect number of functions"
    assert not full_sequence_match(ALT, _react(("A", 1), ("B", 2)))  # one alternative is the whole answer


@pytest.mark.parametrize("source", ["rotbench", "tooleyes"])
def test_greedy_gold_has_full_sequence_match_100(source: str, shared_data: Path, tmp_path: Path) -> None:
    out = tmp_path / "bon"
    args = ["rm", "best-of-n", "--model", "scripted:oracle", "--source", source, "--n", "1"]
    res = CliRunner().invoke(app, [*args, "--data-dir", str(shared_data), "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert "| greedy | 100.0 | 100.0 |" in res.output  # accuracy and FSM (was 75.2 / 11.0 FSM)
    records = [json.loads(line) for line in (out / "best_of_n.jsonl").read_text().splitlines()]
    assert len(records) == {"rotbench": 840, "tooleyes": 382}[source]
    assert all(r["fsm"]["greedy"] for r in records)


def test_the_last_alternative_matches_as_well_as_the_first(shared_data: Path) -> None:
    from robustcall.sources import load_source

    samples = [s for s in load_source("rotbench", shared_data).samples if len(s.golden_answers) > 1]
    assert len(samples) == 208  # RoTBench samples with several acceptable actions
    for s in samples:
        text = render_calls([s.golden_answers[-1].as_call()], sample_format(s))
        assert full_sequence_match(s, text), s.id
