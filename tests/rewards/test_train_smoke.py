"""CPU smoke: TRL RewardTrainer on a tiny RM from a config; the trained RM scores FC-RewardBench pairs."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from rm_pairs import make_pairs
from typer.testing import CliRunner

from robustcall.cli.main import app
from robustcall.core import write_jsonl
from robustcall.rewards import HFClassifierScorer, RMTrainConfig, evaluate, load_base, load_scorer, train_reward_model

pytest.importorskip("trl")


def test_reward_trainer_runs_and_logs_loss(tiny_rm: Path, tmp_path: Path) -> None:
    model, tokenizer = load_base(str(tiny_rm))
    cfg = RMTrainConfig(learning_rate=1e-3, max_steps=3, per_device_train_batch_size=2, max_length=2048)
    history = train_reward_model(make_pairs(), tmp_path / "rm", cfg, model=model, tokenizer=tokenizer)
    losses = [h["loss"] for h in history if "loss" in h]
    assert len(losses) == 3 and all(math.isfinite(x) for x in losses)
    scorer = load_scorer(f"hf:{tmp_path / 'rm'}")
    assert isinstance(scorer, HFClassifierScorer)
    res = evaluate(scorer, make_pairs())
    assert res.total == 8 and sum(res.by_type["Missing Optional Parameter"]) >= 8


def test_listing1_prompt_reaches_the_chat_template(tiny_rm: Path) -> None:
    scorer = HFClassifierScorer(str(tiny_rm))
    pair = make_pairs(1)[0]
    (text,) = scorer.texts(pair.conversation, pair.tools, [pair.chosen_output])
    assert text.startswith("<|im_start|>system\nYou are provided with a user query, a catalog of tools")
    assert '```json\n[\n    {"get_weather": {"city": "Paris", "days": 1}}\n]\n```<|im_end|>' in text


def test_cli_train_then_eval_with_the_trained_classifier(tiny_rm: Path, tmp_path: Path) -> None:
    pairs = tmp_path / "pairs.jsonl"
    write_jsonl(pairs, make_pairs())
    runner = CliRunner()
    out = tmp_path / "rm"
    res = runner.invoke(
        app,
        [
            "rm",
            "train",
            str(pairs),
            "--base",
            str(tiny_rm),
            "-o",
            str(out),
            "--lr",
            "1e-3",
            "--max-steps",
            "2",
            "--batch-size",
            "2",
            "--max-length",
            "2048",
        ],
    )
    assert res.exit_code == 0, res.output
    assert "step 1: loss" in res.output
    log = json.loads((out / "rm_train_log.json").read_text())
    assert any("loss" in h for h in log)
    res = runner.invoke(app, ["rm", "eval", str(pairs), "-s", f"hf:{out}", "-s", "schema"])
    assert res.exit_code == 0, res.output
    assert f"hf:{out}" in res.output and "Missing Optional Parameter (n=8)" in res.output
