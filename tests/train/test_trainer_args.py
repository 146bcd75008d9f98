"""Each SFT-style recipe's TRL config, pinned field by field against the config class's defaults.

What a recipe sets is the difference between its ``SFTConfig`` / ``RewardConfig`` and one built with
only ``output_dir``: these tests pin that difference exactly, so that the shared helper building the
three of them cannot change a value unseen.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("trl")

import torch
import trl
from trl.trainer import sft_trainer

from robustcall.rewards import RMTrainConfig, train_reward_model
from robustcall.train import PipeSftSettings, _pipe_sft, save_rows
from robustcall.train._sft import SftSettings, build_sft_trainer

BF16 = bool(torch.cuda.is_available() and torch.cuda.is_bf16_supported())
ROW = {
    "messages": [
        {"role": "user", "content": "Weather in Paris?"},
        {"role": "assistant", "content": "Sunny."},
    ]
}


class _Built(Exception):
    pass


def _capture(monkeypatch: pytest.MonkeyPatch, module: Any, name: str) -> dict[str, Any]:
    seen: dict[str, Any] = {}

    def trainer(*_a: Any, args: Any, **_kw: Any) -> None:
        seen["args"] = args
        raise _Built

    monkeypatch.setattr(module, name, trainer)
    return seen


def _set_fields(args: Any) -> dict[str, Any]:
    """The fields where ``args`` differs from its class's defaults (same output_dir; same bf16, whose
    default TRL resolves by the device)."""
    base = type(args)(output_dir=args.output_dir, bf16=args.bf16).to_dict()
    return {k: v for k, v in args.to_dict().items() if base.get(k) != v}


def test_recovery_sft_config(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    seen = _capture(monkeypatch, sft_trainer, "SFTTrainer")
    rec = save_rows([ROW], tmp_path / "rec.jsonl")
    with pytest.raises(_Built):
        build_sft_trainer(SftSettings(model="tiny", recovery=rec, output_dir=tmp_path / "o", seed=7))
    assert seen["args"].bf16 is BF16
    assert _set_fields(seen["args"]) == {
        "learning_rate": 1e-5,
        "per_device_train_batch_size": 4,
        "max_length": 4096,
        "logging_steps": 1,
        "seed": 7,
        "data_seed": 7,
        "completion_only_loss": True,
    }


def test_pipe_trajectory_sft_config(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    seen = _capture(monkeypatch, sft_trainer, "SFTTrainer")
    monkeypatch.setattr(_pipe_sft, "trajectory_rows", lambda *_a: ([ROW], {"episodes": 1, "examples": 1}))
    with pytest.raises(_Built):
        _pipe_sft.build_pipe_sft_trainer(
            PipeSftSettings(model="tiny", trajectories=[tmp_path], output_dir=tmp_path / "o")
        )
    assert seen["args"].bf16 is BF16
    assert _set_fields(seen["args"]) == {
        "num_train_epochs": 1.0,
        "lr_scheduler_type": "cosine",
        "warmup_steps": 0.1,
        "per_device_train_batch_size": 2,
        "gradient_accumulation_steps": 2,
        "max_length": 4096,
        "save_strategy": "no",
        "dataset_num_proc": 16,
        "dataloader_num_workers": 4,
        "seed": 0,
        "data_seed": 0,
        "assistant_only_loss": True,
        "learning_rate": 1e-5,
    }


def test_reward_model_config(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    seen = _capture(monkeypatch, trl, "RewardTrainer")
    cfg = RMTrainConfig(max_steps=3, extra={"weight_decay": 0.5})
    with pytest.raises(_Built):
        train_reward_model([], tmp_path / "rm", cfg, model=None, tokenizer=None)
    assert _set_fields(seen["args"]) == {
        "learning_rate": 1e-6,
        "num_train_epochs": 1.0,
        "lr_scheduler_type": "cosine",
        "warmup_steps": 0.03,
        "center_rewards_coefficient": 0.01,
        "seed": 0,
        "max_length": 4096,
        "max_steps": 3,
        "logging_steps": 1,
        "save_strategy": "no",
        "disable_tqdm": True,
        "weight_decay": 0.5,
    }
