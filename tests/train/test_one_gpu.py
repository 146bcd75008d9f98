"""One-GPU GRPO defaults from free memory (``train._one_gpu``), and the per-step rollout / update split."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from robustcall.train._grpo import GrpoSettings, batch_plan
from robustcall.train._one_gpu import GIB, MEASURED_PARAMS, one_gpu_plan

QWEN05B = MEASURED_PARAMS
TABLE16_STEP = 32 * 4  # mini-batch 32 prompts x K = 4 completions per optimizer step


def test_a_free_h100_gets_micro_batch_64_with_checkpointing() -> None:
    plan = one_gpu_plan(79 * GIB, QWEN05B, completions_per_step=TABLE16_STEP)
    assert (plan.micro_batch_size, plan.fits) == (64, True)
    assert "36 GiB" in plan.reason and "47 s" in plan.reason


def test_the_measured_peak_plus_ten_percent_is_the_threshold() -> None:
    need = 36 * 1.1 * GIB
    assert one_gpu_plan(int(need) + 1, QWEN05B, completions_per_step=TABLE16_STEP).micro_batch_size == 64
    below = one_gpu_plan(int(need) - GIB // 10, QWEN05B, completions_per_step=TABLE16_STEP)
    assert (below.micro_batch_size, below.fits) == (16, False)
    assert "may run out of memory" in below.reason


def test_the_peak_scales_with_the_parameter_count() -> None:
    # twice the parameters: 72 GiB x 1.1 = 79.2 GiB needed
    assert one_gpu_plan(80 * GIB, 2 * QWEN05B, completions_per_step=TABLE16_STEP).micro_batch_size == 64
    assert not one_gpu_plan(79 * GIB, 2 * QWEN05B, completions_per_step=TABLE16_STEP).fits
    assert not one_gpu_plan(79 * GIB, 3_085_938_688, completions_per_step=TABLE16_STEP).fits  # Qwen2.5-3B


def test_without_checkpointing_only_the_measured_micro_batch_16() -> None:
    plan = one_gpu_plan(79 * GIB, QWEN05B, completions_per_step=TABLE16_STEP, gradient_checkpointing=False)
    assert (plan.micro_batch_size, plan.fits) == (16, True) and "63 GiB" in plan.reason
    assert not one_gpu_plan(60 * GIB, QWEN05B, completions_per_step=TABLE16_STEP, gradient_checkpointing=False).fits


def test_a_micro_batch_that_does_not_divide_the_step_is_never_chosen() -> None:
    plan = one_gpu_plan(79 * GIB, QWEN05B, completions_per_step=8 * 4)  # mini-batch 8 prompts
    assert (plan.micro_batch_size, plan.fits) == (16, True)


@pytest.mark.parametrize("recipe", ["toolrl-dr", "toolrm"])
def test_the_effective_batch_never_changes(recipe: str) -> None:
    s = GrpoSettings(train=Path("x"), output_dir=Path("y"), recipe=recipe)  # type: ignore[arg-type]
    assert s.auto_micro_batch
    micro = one_gpu_plan(79 * GIB, QWEN05B, completions_per_step=s.mini_batch_size * 4).micro_batch_size
    p = batch_plan(s.model_copy(update={"micro_batch_size": micro}), 1)
    assert micro * p["gradient_accumulation_steps"] == s.mini_batch_size * 4
    assert micro * p["steps_per_generation"] == s.train_batch_size * 4
    assert not GrpoSettings(train=Path("x"), output_dir=Path("y"), micro_batch_size=16).auto_micro_batch


def test_fit_one_gpu_applies_only_to_a_single_cuda_device(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    pytest.importorskip("transformers")
    import torch

    from robustcall.train import _grpo
    from robustcall.train._models import resolve_model

    model = resolve_model("tiny", tmp_path, ["hello world"], 0)
    s = GrpoSettings(train=Path("x"), output_dir=tmp_path)
    monkeypatch.setattr(torch.cuda, "mem_get_info", lambda: (79 * GIB, 80 * GIB))
    for devices, micro in [(0, 16), (2, 16), (1, 64)]:
        monkeypatch.setattr(torch.cuda, "device_count", lambda n=devices: n)
        fitted, note = _grpo.fit_one_gpu(s, model)
        assert fitted.micro_batch_size == micro and (note is not None) == (devices == 1)
    monkeypatch.setenv("WORLD_SIZE", "2")
    assert _grpo.fit_one_gpu(s, model)[0].micro_batch_size == 16
    monkeypatch.delenv("WORLD_SIZE")
    given = GrpoSettings(train=Path("x"), output_dir=tmp_path, micro_batch_size=32)
    assert _grpo.fit_one_gpu(given, model)[0].micro_batch_size == 32


def test_cli_grpo_prints_each_steps_rollout_and_update_time(tmp_path: Path) -> None:
    pytest.importorskip("trl")
    from robustcall.cli.main import app
    from robustcall.train import save_rows

    from .test_smoke_trainers import _rlla_row

    train = save_rows([_rlla_row(i, c) for i, c in enumerate(["Paris", "Lyon"])], tmp_path / "t.parquet")
    out = tmp_path / "out"
    args = ["train", "grpo", "--model", "tiny", "--train", str(train), "--out", str(out), "--num-generations", "2"]
    args += ["--train-batch-size", "2", "--mini-batch-size", "1", "--micro-batch-size", "2"]
    args += ["--max-completion-length", "8", "--max-steps", "2", "--save-steps", "10"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert re.findall(r"(step \d+): rollout [\d.]+ s, update [\d.]+ s", result.output) == ["step 1", "step 2"]
    split = json.loads((out / "robustcall_train.json").read_text())["step_split"]
    # one rollout of 2 prompts x K=2 feeds two optimizer steps of 1 prompt x 2 completions
    assert split[0]["rollout_s"] > 0 and 0 < split[0]["generated_tokens"] <= 4 * 8
    assert split[1]["rollout_s"] == 0 and split[1]["generated_tokens"] == 0
    assert all(s["update_s"] > 0 and s["trained_tokens"] > 0 for s in split)
    assert "step 2: rollout 0.0 s" in result.output
