"""PIPE's trajectory SFT (paper 002, Appendix K) on `pipe run` trajectories: the recipe's settings, the rows,
the trained tokens (every assistant turn, nothing else), one step on a tiny random Qwen2 built locally."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from robustcall.cli.main import app
from robustcall.run import run_pipe
from robustcall.train import PipeSftSettings
from robustcall.train._pipe_sft import build_pipe_sft_trainer, trajectory_rows

pytest.importorskip("trl")


def test_the_recipe_is_appendix_k() -> None:
    s = PipeSftSettings(trajectories=[Path("x")], output_dir=Path("y"))
    assert (s.model, s.learning_rate, s.num_train_epochs) == ("Qwen/Qwen3-8B", 1e-5, 1.0)
    assert (s.lr_scheduler_type, s.warmup_ratio) == ("cosine", 0.1)
    assert (s.per_device_train_batch_size, s.gradient_accumulation_steps) == (2, 2)
    assert (s.logging_steps, s.dataset_num_proc, s.dataloader_num_workers) == (10, 16, 4)


@pytest.fixture
def runs(tmp_path: Path) -> Path:
    out = tmp_path / "run"
    asyncio.run(run_pipe("maze", "origin", "scripted:expert", out, limit=2, max_steps=30))
    asyncio.run(run_pipe("maze", "symbol", "scripted:memorise", tmp_path / "fail", limit=1, max_steps=3))
    return out


def test_rows_are_the_solved_episodes_with_calls_written_as_qwen3_does(runs: Path, tmp_path: Path) -> None:
    rows, counts = trajectory_rows([runs, tmp_path / "fail"])
    assert counts == {"episodes": 3, "examples": 2}  # the memoriser's unsolved episode is left out
    first = rows[0]["messages"]
    assert [m["role"] for m in first[:4]] == ["system", "user", "assistant", "tool"]
    call = json.loads(first[2]["content"].removeprefix("<tool_call>\n").removesuffix("\n</tool_call>"))
    assert set(call) == {"name", "arguments"} and call["name"].startswith("move_")
    assert trajectory_rows([runs, tmp_path / "fail"], successful_only=False)[1]["examples"] == 3


def test_every_assistant_turn_is_trained_and_nothing_else(runs: Path, tmp_path: Path) -> None:
    settings = PipeSftSettings(
        trajectories=[runs], output_dir=tmp_path / "sft", model="tiny", max_steps=1, max_length=2048,
        dataset_num_proc=None, dataloader_num_workers=0,
    )  # fmt: skip
    trainer, head = build_pipe_sft_trainer(settings)
    args = trainer.args
    assert args.assistant_only_loss and args.lr_scheduler_type == "cosine" and args.warmup_steps == 0.1
    assert args.weight_decay == 0.0 and args.num_train_epochs == 1.0 and args.learning_rate == 1e-5
    assert (args.per_device_train_batch_size, args.gradient_accumulation_steps) == (2, 2)
    assert args.save_strategy == "no" and head["examples"] == 2
    example = trainer.train_dataset[0]
    trained = [t for t, label in zip(example["input_ids"], example["labels"], strict=True) if label != -100]
    rows, _ = trajectory_rows([runs])
    expected = "".join(m["content"] + "<|im_end|>\n" for m in rows[0]["messages"] if m["role"] == "assistant")
    assert trainer.processing_class.decode(trained) == expected


def test_cli_one_step(runs: Path, tmp_path: Path) -> None:
    out = tmp_path / "cli"
    args = ["train", "sft", "--recipe", "pipe-trajectory", "--trajectories", str(runs), "--model", "tiny",
            "--max-steps", "1", "--num-proc", "0", "--out", str(out)]  # fmt: skip
    r = CliRunner().invoke(app, args)
    assert r.exit_code == 0, r.output
    assert "recipe pipe-trajectory (Appendix K): 2 of 2 episodes" in r.output and "1 steps in" in r.output
    assert (out / "pipe_sft.parquet").is_file() and (out / "config.json").is_file()
    missing = CliRunner().invoke(app, ["train", "sft", "--recipe", "pipe-trajectory", "--out", str(out)])
    assert missing.exit_code != 0 and "needs --trajectories" in missing.output
