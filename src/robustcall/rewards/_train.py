"""Training an outcome RM with TRL's ``RewardTrainer`` (§3.2, §4).

The loss TRL 1.16 computes (``RewardTrainer.compute_loss``) is eq. 2 with eq. 3's centering term:
``-mean(log σ(r₊ − r₋)) + η · mean((r₊ + r₋)²)``, with η = ``RewardConfig.center_rewards_coefficient``
(the paper's η = 0.01). :func:`bradley_terry_loss` writes the same formula in plain Python so that
tests can pin it on hand-computed numbers. Paper defaults: lr 1e-6, 1 epoch, cosine schedule, 3%
warmup; all are fields of :class:`RMTrainConfig`. torch / transformers / trl / datasets are
imported only inside the functions that train.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from robustcall.core import NotReadyError, ToolSpec
from robustcall.rewards._prompts import toolrm_messages
from robustcall.rewards._types import RewardPair


def bradley_terry_loss(chosen: Sequence[float], rejected: Sequence[float], eta: float = 0.01) -> float:
    """Eq. 1-3 as a loss to minimise: ``-mean(log σ(r₊ − r₋)) + η·mean((r₊ + r₋)²)``."""
    if len(chosen) != len(rejected) or not chosen:
        raise ValueError("need as many chosen as rejected rewards, at least one")
    nll = 0.0
    center = 0.0
    for c, r in zip(chosen, rejected, strict=True):
        d = c - r
        nll += math.log1p(math.exp(-d)) if d > -30 else -d  # -log σ(d), stable
        center += (c + r) ** 2
    return nll / len(chosen) + eta * center / len(chosen)


@dataclass
class RMTrainConfig:
    """Reward-model training settings; defaults are the paper's (§4)."""

    learning_rate: float = 1e-6
    num_train_epochs: float = 1.0
    lr_scheduler_type: str = "cosine"
    warmup_ratio: float = 0.03
    """Share of all steps spent warming up (passed as transformers 5's fractional ``warmup_steps``)."""
    center_rewards_coefficient: float = 0.01
    per_device_train_batch_size: int = 8
    gradient_accumulation_steps: int = 1
    max_length: int = 4096
    max_steps: int = -1
    """``> 0`` stops after that many optimizer steps (smoke runs)."""
    logging_steps: int = 1
    save_strategy: str = "no"
    seed: int = 0
    bf16: bool = False
    extra: dict[str, Any] = field(default_factory=dict)
    """Any other ``trl.RewardConfig`` field, passed through."""


SHARED_FIELDS = (
    "learning_rate",
    "num_train_epochs",
    "per_device_train_batch_size",
    "gradient_accumulation_steps",
    "max_length",
    "max_steps",
    "logging_steps",
    "seed",
)
"""The settings every SFT-style recipe (recovery SFT, trajectory SFT, RM training) passes to TRL as is."""


def bf16_default() -> bool:
    """bf16 where a CUDA GPU supports it."""
    import torch

    return bool(torch.cuda.is_available() and torch.cuda.is_bf16_supported())


def trl_config(
    config_class: Any,
    settings: Any,
    output_dir: Path,
    *,
    also: Sequence[str] = (),
    data_seed: bool = True,
    **fixed: Any,
) -> Any:
    """``config_class`` (TRL's ``SFTConfig`` / ``RewardConfig``) from ``settings``' fields: the
    shared ones, those named in ``also``, and ``fixed`` values. A ``warmup_ratio`` field goes in as
    ``warmup_steps`` (transformers 5: a float in [0, 1) is a ratio of all steps); ``bf16`` None is
    :func:`bf16_default`; ``data_seed`` also seeds data order with ``seed``."""
    values = {name: getattr(settings, name) for name in (*SHARED_FIELDS, *also)}
    if "warmup_ratio" in values:
        values["warmup_steps"] = values.pop("warmup_ratio")
    if data_seed:
        values["data_seed"] = settings.seed
    bf16 = settings.bf16
    return config_class(output_dir=str(output_dir), bf16=bf16_default() if bf16 is None else bf16, **values, **fixed)


def pair_rows(pairs: Sequence[RewardPair]) -> list[dict[str, Any]]:
    """TRL's conversational preference rows: ``prompt`` (Listing 1 system + conversation),
    ``chosen`` / ``rejected`` (one assistant turn each)."""
    rows = []
    for p in pairs:
        specs = [ToolSpec.model_validate(t) for t in p.tools]
        chosen = toolrm_messages(p.conversation, p.tools, p.chosen_output, specs)
        rejected = toolrm_messages(p.conversation, p.tools, p.rejected_output, specs)
        rows.append({"prompt": chosen[:-1], "chosen": chosen[-1:], "rejected": rejected[-1:]})
    return rows


def load_base(base: str, gguf_file: str | None = None, dtype: str = "float32") -> tuple[Any, Any]:
    """A sequence-classification model (one logit) and its tokenizer from a local path or hub id;
    ``gguf_file``: dequantise that GGUF in ``base`` through transformers' GGUF loader."""
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    kw: dict[str, Any] = {"gguf_file": gguf_file} if gguf_file else {}
    try:
        tokenizer = AutoTokenizer.from_pretrained(base, **kw)
        model = AutoModelForSequenceClassification.from_pretrained(
            base, num_labels=1, dtype=getattr(torch, dtype), **kw
        )
    except OSError as exc:  # transformers' "not a valid JSON file", "couldn't connect to huggingface.co", ...
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise NotReadyError(f"cannot load the base model {base!r}: {first}") from exc
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    model.config.pad_token_id = tokenizer.pad_token_id
    if gguf_file:
        # GGUF weights arrive dequantised (plain float tensors); the GGUF "quantizer" left on the
        # model only makes the Trainer refuse to train it and save_pretrained refuse to save it
        model.hf_quantizer = None
        if "is_quantized" in vars(model):
            model.is_quantized = False
        if hasattr(model.config, "quantization_config"):
            del model.config.quantization_config
    return model, tokenizer


def train_reward_model(
    pairs: Sequence[RewardPair],
    out_dir: Path,
    cfg: RMTrainConfig,
    *,
    model: Any,
    tokenizer: Any,
) -> list[dict[str, Any]]:
    """Train ``model`` on ``pairs`` with ``trl.RewardTrainer``; save it to ``out_dir``; return TRL's
    log history (one entry per logging step: ``loss``, ``learning_rate``, ``accuracy``, ``margin``...)."""
    from datasets import Dataset  # type: ignore[import-untyped]
    from trl import RewardConfig, RewardTrainer  # type: ignore[attr-defined]

    also = ("lr_scheduler_type", "warmup_ratio", "center_rewards_coefficient", "save_strategy")
    args = trl_config(
        RewardConfig, cfg, out_dir, also=also, data_seed=False, report_to=[], disable_tqdm=True, **cfg.extra
    )
    trainer = RewardTrainer(
        model=model, args=args, train_dataset=Dataset.from_list(pair_rows(pairs)), processing_class=tokenizer
    )
    trainer.train()
    trainer.save_model(str(out_dir))
    tokenizer.save_pretrained(str(out_dir))
    return [dict(h) for h in trainer.state.log_history]
