"""GRPO through TRL's ``GRPOTrainer``; defaults come from the recipe being reproduced.

Recipes (``GrpoSettings.recipe``, ``robustcall train grpo --recipe``):

- ``toolrl-dr`` (the default): the ToolRL-DR paper's Table 16 -- train batch 64, PPO mini-batch 32,
  micro-batch 16 per GPU, K = 4, prompt 2,048 / response 1,024 tokens, lr 1e-6, 3 epochs, checkpoint
  every 5 and evaluation every 10 steps; reward R_format + R_ToolRL (ToolRL's default).
- ``toolrm``: the ToolRM paper's Table 9 (§5.3.2, A.8) -- train batch 512, PPO mini-batch 128,
  K = 4 rollouts, prompt 2,048 / response 1,024, lr 1e-6, 15 epochs; reward R_format + R_ToolRM
  (its headline variant; needs ``toolrm_scorer``). Table 9 gives no micro-batch, checkpoint or
  evaluation frequency: those stay at Table 16's values (the same ToolRL code base). Its
  validation batch size (128) is not mapped: TRL evaluates in micro-batches, which does not change
  the numbers.

Any field given explicitly overrides the recipe's value. On exactly one CUDA GPU with no micro-batch
given, the micro-batch comes from the free memory (``_one_gpu``: the rule, and the measurements it
rests on); the effective batch stays the recipe's.

veRL's batch sizes are in prompts; TRL's in completions per device. With K = ``num_generations``
and W processes (GPUs), the mapping is:

- a rollout batch of ``train_batch_size`` prompts = TRL ``generation_batch_size`` = batch · K completions;
- an optimizer step over ``mini_batch_size`` prompts = ``micro_batch_size`` · W · ``gradient_accumulation_steps``
  completions, so ``gradient_accumulation_steps = mini · K / (micro · W)``;
- ``steps_per_generation = batch · K / (micro · W)`` (one rollout feeds batch / mini optimizer steps).

Other settings follow the veRL defaults the ToolRL script runs with: KL coefficient 0.001 (TRL's
``beta``, in the loss with TRL's k3 estimator: ToolRL puts the KL penalty in the reward, which TRL
cannot; ``train verl`` does as ToolRL), one PPO epoch per rollout
(``num_iterations=1``), clip 0.2, constant learning rate, grad-norm clip 1.0, temperature 1.0.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from robustcall.core import InputError
from robustcall.rewards import bf16_default
from robustcall.train._finish import train_and_save
from robustcall.train._grpo_data import grpo_rows
from robustcall.train._models import resolve_model
from robustcall.train._one_gpu import one_gpu_plan
from robustcall.train._rewards import DEFAULT_REWARDS, reward_functions

Recipe = Literal["toolrl-dr", "toolrm"]
RECIPES: dict[str, dict[str, Any]] = {
    "toolrl-dr": {  # ToolRL-DR paper (000), Table 16
        "num_generations": 4,
        "learning_rate": 1e-6,
        "max_prompt_length": 2048,
        "max_completion_length": 1024,
        "num_train_epochs": 3.0,
        "train_batch_size": 64,
        "mini_batch_size": 32,
        "micro_batch_size": 16,
        "save_steps": 5,
        "eval_steps": 10,
        "rewards": ["toolrl_format", "toolrl_correctness"],
    },
    "toolrm": {  # ToolRM paper (004), Table 9; micro-batch and frequencies as Table 16
        "num_generations": 4,
        "learning_rate": 1e-6,
        "max_prompt_length": 2048,
        "max_completion_length": 1024,
        "num_train_epochs": 15.0,
        "train_batch_size": 512,
        "mini_batch_size": 128,
        "micro_batch_size": 16,
        "save_steps": 5,
        "eval_steps": 10,
        "rewards": ["toolrl_format", "toolrm"],
    },
}
"""Each recipe's defaults (see the module doc); an explicit field overrides them."""


class GrpoSettings(BaseModel):
    """One GRPO run. Defaults: the ``recipe``'s (``toolrl-dr``: Table 16, for 2 GPUs)."""

    model_config = ConfigDict(extra="forbid")

    recipe: Recipe = "toolrl-dr"
    """Which paper's hyperparameters fill the fields not given: ``toolrl-dr`` (000, Table 16) or
    ``toolrm`` (004, Table 9)."""

    model: str = "Qwen/Qwen2.5-3B-Instruct"
    """HF id, local HF folder, a ``.gguf`` file (dequantised once), or ``tiny`` (CPU smoke runs)."""
    train: Path
    """Training rows (parquet / JSONL / JSON / HF datasets folder), e.g. ``dr-data``'s DR-Full file."""
    eval: Path | None = None
    """Validation rows, evaluated every ``eval_steps``."""
    output_dir: Path
    rewards: list[str] = Field(default_factory=lambda: list(DEFAULT_REWARDS))
    """Reward functions by name: toolrl_format, toolrl_correctness, schema, toolrm."""
    toolrm_scorer: str | None = None
    """Scorer spec for the ``toolrm`` reward (``robustcall.rewards.load_scorer``)."""
    num_generations: int = 4
    """Rollout group size K."""
    learning_rate: float = 1e-6
    max_prompt_length: int = 2048
    """Longer prompts are dropped before training (veRL's ``filter_overlong_prompts``)."""
    max_completion_length: int = 1024
    num_train_epochs: float = 3.0
    train_batch_size: int = 64
    """Prompts per rollout batch."""
    mini_batch_size: int = 32
    """Prompts per optimizer step (PPO mini-batch)."""
    micro_batch_size: int = 16
    """Completions per device per forward pass (PPO micro-batch / GPU)."""
    auto_micro_batch: bool = False
    """On exactly one CUDA GPU, choose the micro-batch from its free memory (``_one_gpu``); set
    when ``micro_batch_size`` is not given."""
    beta: float = 0.001
    """KL coefficient."""
    temperature: float = 1.0
    save_steps: int = 5
    eval_steps: int = 10
    logging_steps: int = 1
    max_steps: int = -1
    """Stop after this many optimizer steps (-1: run the epochs)."""
    seed: int = 0
    bf16: bool | None = None
    """None: bf16 when a CUDA GPU supports it."""
    use_vllm: bool | None = None
    """None: vLLM generation when vllm is installed and a GPU is present."""
    vllm_mode: Literal["colocate", "server"] = "colocate"
    gradient_checkpointing: bool = True
    report_to: str = "none"

    @model_validator(mode="before")
    @classmethod
    def _recipe_defaults(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        recipe = data.get("recipe") or "toolrl-dr"
        if recipe not in RECIPES:
            raise ValueError(f"unknown recipe {recipe!r}; valid: {', '.join(RECIPES)}")
        given = {k: v for k, v in data.items() if v is not None}
        auto = {"auto_micro_batch": "micro_batch_size" not in given}
        return {**RECIPES[recipe], **auto, **given, "recipe": recipe}


def world_size() -> int:
    """Processes of this launch (``accelerate launch`` / ``torchrun`` set WORLD_SIZE)."""
    return int(os.environ.get("WORLD_SIZE", "1"))


def batch_plan(s: GrpoSettings, processes: int) -> dict[str, int]:
    """TRL's batch arguments for veRL's prompt-level batch sizes (see the module doc)."""
    k, micro = s.num_generations, s.micro_batch_size
    per_step = s.mini_batch_size * k
    per_rollout = s.train_batch_size * k
    if per_step % (micro * processes) or per_rollout % per_step:
        raise ValueError(
            f"mini_batch_size·K = {per_step} must be a multiple of micro_batch_size·processes = {micro * processes}, "
            f"and train_batch_size·K = {per_rollout} a multiple of {per_step}"
        )
    return {
        "per_device_train_batch_size": micro,
        "gradient_accumulation_steps": per_step // (micro * processes),
        "steps_per_generation": per_rollout // (micro * processes),
    }


def _vllm_default() -> bool:
    import importlib.util

    import torch

    return importlib.util.find_spec("vllm") is not None and torch.cuda.is_available()


def filter_overlong(rows: list[dict[str, Any]], tokenizer: Any, limit: int) -> tuple[list[dict[str, Any]], int]:
    """Rows whose chat-templated prompt fits in ``limit`` tokens, and how many were dropped."""
    kept = []
    for row in rows:
        ids = tokenizer.apply_chat_template(row["prompt"], add_generation_prompt=True, tokenize=True)
        n = len(ids["input_ids"]) if isinstance(ids, dict) or hasattr(ids, "keys") else len(ids)
        if n <= limit:
            kept.append(row)
    return kept, len(rows) - len(kept)


def param_count(model: str) -> int:
    """Parameters of the HF model folder ``model``, counted on the meta device (nothing loaded)."""
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM

    with torch.device("meta"):
        net = AutoModelForCausalLM.from_config(AutoConfig.from_pretrained(model))  # type: ignore[no-untyped-call]
    return sum(p.numel() for p in net.parameters())


def fit_one_gpu(s: GrpoSettings, model: str) -> tuple[GrpoSettings, str | None]:
    """``s`` with the micro-batch ``one_gpu_plan`` picks, where it applies (one process, one CUDA
    GPU, micro-batch not given), and the plan's reason."""
    import torch

    if not s.auto_micro_batch or world_size() != 1 or torch.cuda.device_count() != 1:
        return s, None
    free, _total = torch.cuda.mem_get_info()
    plan = one_gpu_plan(
        free,
        param_count(model),
        completions_per_step=s.mini_batch_size * s.num_generations,
        gradient_checkpointing=s.gradient_checkpointing,
        fallback=s.micro_batch_size,
    )
    return s.model_copy(update={"micro_batch_size": plan.micro_batch_size}), f"one GPU: {plan.reason}"


def run_grpo(s: GrpoSettings, echo: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Train; checkpoints go to ``output_dir/checkpoint-N`` (HF folders), the final model to
    ``output_dir``; returns (and writes to ``output_dir/robustcall_train.json``) the log history and
    each optimizer step's rollout / update split. ``echo`` gets the one-GPU plan and a line per step."""
    import datasets  # type: ignore[import-untyped,unused-ignore]
    from transformers import AutoTokenizer
    from trl.trainer.grpo_config import GRPOConfig
    from trl.trainer.grpo_trainer import GRPOTrainer

    from robustcall.train._step_split import StepSplit

    train_rows = grpo_rows(s.train)
    if not train_rows:
        raise InputError(f"{s.train}: no training rows")
    eval_rows = grpo_rows(s.eval) if s.eval else None
    texts = [m["content"] for r in train_rows for m in r["prompt"]] + [r["ground_truth"] for r in train_rows]
    model = resolve_model(s.model, s.output_dir, texts, s.seed)
    tokenizer = AutoTokenizer.from_pretrained(model)
    train_rows, dropped = filter_overlong(train_rows, tokenizer, s.max_prompt_length)
    eval_dropped = 0
    if eval_rows is not None:
        eval_rows, eval_dropped = filter_overlong(eval_rows, tokenizer, s.max_prompt_length)
    if not train_rows:
        raise ValueError(f"{s.train}: no training row fits max_prompt_length={s.max_prompt_length}")
    s, one_gpu = fit_one_gpu(s, model)
    if one_gpu and echo:
        echo(one_gpu)
    plan = batch_plan(s, world_size())
    use_vllm = _vllm_default() if s.use_vllm is None else s.use_vllm
    config = GRPOConfig(
        output_dir=str(s.output_dir),
        num_generations=s.num_generations,
        learning_rate=s.learning_rate,
        lr_scheduler_type="constant",
        max_grad_norm=1.0,
        max_completion_length=s.max_completion_length,
        num_train_epochs=s.num_train_epochs,
        max_steps=s.max_steps,
        beta=s.beta,
        num_iterations=1,
        epsilon=0.2,
        temperature=s.temperature,
        save_strategy="steps",
        save_steps=s.save_steps,
        eval_strategy="steps" if eval_rows else "no",
        eval_steps=s.eval_steps if eval_rows else None,
        per_device_eval_batch_size=plan["per_device_train_batch_size"],
        logging_steps=s.logging_steps,
        seed=s.seed,
        data_seed=s.seed,
        bf16=bf16_default() if s.bf16 is None else s.bf16,
        use_vllm=use_vllm,
        vllm_mode=s.vllm_mode,
        gradient_checkpointing=s.gradient_checkpointing,
        report_to=s.report_to,
        per_device_train_batch_size=plan["per_device_train_batch_size"],
        gradient_accumulation_steps=plan["gradient_accumulation_steps"],
        steps_per_generation=plan["steps_per_generation"],
    )
    trainer = GRPOTrainer(
        model=model,
        reward_funcs=list[Any](reward_functions(s.rewards, s.toolrm_scorer)),
        args=config,
        train_dataset=datasets.Dataset.from_list(train_rows),
        eval_dataset=datasets.Dataset.from_list(eval_rows) if eval_rows else None,
        processing_class=tokenizer,
    )
    split = StepSplit(echo)
    split.attach(trainer)
    head = {
        "settings": json.loads(s.model_dump_json()),
        "model_path": model,
        "batch_plan": plan,
        "one_gpu_plan": one_gpu,
        "use_vllm": use_vllm,
        "processes": world_size(),
        "train_rows": len(train_rows),
        "dropped_overlong": {"train": dropped, "eval": eval_dropped},
    }
    return train_and_save(trainer, s.output_dir, head, lambda: {"step_split": split.steps})
