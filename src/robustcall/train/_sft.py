"""Recovery SFT through TRL's ``SFTTrainer`` on ``robustcall faults export-sft`` tuples.

The fault paper's objective is ``L_total = L_standard + α · E_(s,a,o_inj)[L_CE(M(s, a, o_inj), a_recovery)]``.
With ``N_s`` standard examples, a trainer that minimises the mean loss over a mixed set minimises
``L_total`` (up to a constant factor) when the recovery examples carry total weight ``α · N_s``:
we draw ``round(α · N_s)`` recovery examples (every tuple ``⌊α·N_s / N_r⌋`` times, plus a seeded
sample without replacement for the remainder) and shuffle them in with a seed. Without standard
data the objective is ``α · L_recovery``: plain SFT on the tuples (α only rescales the step size,
so it is ignored). The loss is per token, so this equals the objective exactly when examples
have equal completion lengths, and weights examples by length otherwise (as SFT does anyway).

Examples are ``messages`` (TRL conversational format); they are split into ``prompt`` (all turns
before the last) and ``completion`` (the last, assistant turn), and the trainer runs with
``completion_only_loss=True``, so only ``a_recovery`` (and the standard examples' final answers) are
trained on. ``assistant_only_loss=True`` would be wrong here: it trains every assistant turn of the
transcript, including the agent's own faulted call a_t and everything before it (and TRL 1.16 needs a
chat template with ``{% generation %}`` markers for it).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from robustcall.core import seeded_rng
from robustcall.rewards import trl_config
from robustcall.train._finish import train_and_save
from robustcall.train._io import load_rows, save_rows
from robustcall.train._models import resolve_model

MIX_FILE = "sft_mix.parquet"


class SftSettings(BaseModel):
    """One recovery-SFT run."""

    model_config = ConfigDict(extra="forbid")

    model: str
    """HF id, local HF folder, a ``.gguf`` file (dequantised once), or ``tiny`` (CPU smoke runs)."""
    recovery: Path
    """``faults export-sft`` output (or any ``messages`` rows)."""
    standard: Path | None = None
    """Successful trajectories / ordinary SFT rows for ``L_standard`` (``messages``, prompt/completion,
    or ToolRL raw ``{instruction, input, output}``)."""
    alpha: float = 1.0
    """α: weight of the recovery term relative to ``L_standard``."""
    output_dir: Path
    learning_rate: float = 1e-5
    num_train_epochs: float = 3.0
    per_device_train_batch_size: int = 4
    gradient_accumulation_steps: int = 1
    max_length: int = 4096
    max_steps: int = -1
    logging_steps: int = 1
    save_steps: int = 500
    seed: int = 0
    bf16: bool | None = None
    report_to: str = "none"


def messages_of(row: dict[str, Any], where: str) -> list[dict[str, str]]:
    """The chat turns of a row in any of the accepted layouts."""
    if isinstance(row.get("messages"), list):
        msgs = row["messages"]
    elif isinstance(row.get("prompt"), list) and isinstance(row.get("completion"), list):
        msgs = [*row["prompt"], *row["completion"]]
    elif {"instruction", "input", "output"} <= set(row):
        msgs = [
            {"role": "system", "content": row["instruction"]},
            {"role": "user", "content": row["input"]},
            {"role": "assistant", "content": row["output"]},
        ]
    else:
        raise ValueError(f"{where}: expected `messages`, `prompt` + `completion`, or instruction/input/output")
    out = [{"role": str(m["role"]), "content": str(m.get("content", ""))} for m in msgs]
    if not out or out[-1]["role"] != "assistant":
        raise ValueError(f"{where}: the last turn must be the assistant's (the trained completion)")
    return out


def prompt_completion(messages: list[dict[str, str]]) -> dict[str, Any]:
    return {"prompt": messages[:-1], "completion": messages[-1:]}


def mix(
    standard: list[dict[str, Any]], recovery: list[dict[str, Any]], alpha: float, seed: int
) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """The weighted mix of ``L_total`` (module doc); rows plus counts."""
    if alpha < 0:
        raise ValueError(f"alpha must be >= 0, got {alpha}")
    if not recovery:
        raise ValueError("no recovery examples")
    if not standard:
        chosen = list(recovery)
    else:
        target = round(alpha * len(standard))
        whole, rest = divmod(target, len(recovery))
        extra = seeded_rng(seed, "sft-mix-remainder").sample(range(len(recovery)), rest)
        chosen = [r for _ in range(whole) for r in recovery] + [recovery[i] for i in sorted(extra)]
    rows = [*standard, *chosen]
    seeded_rng(seed, "sft-mix-order").shuffle(rows)
    return rows, {"standard": len(standard), "recovery_unique": len(recovery), "recovery_drawn": len(chosen)}


def run_sft(s: SftSettings) -> dict[str, Any]:
    """Write the mix to ``output_dir/sft_mix.parquet`` (veRL / other stacks read it), train, save."""
    trainer, head = build_sft_trainer(s)
    return train_and_save(trainer, s.output_dir, head)


def build_sft_trainer(s: SftSettings) -> tuple[Any, dict[str, Any]]:
    """The mix written to ``output_dir``, and the ``SFTTrainer`` over it (loss on the completion only)."""
    import datasets  # type: ignore[import-untyped,unused-ignore]
    from transformers import AutoTokenizer
    from trl.trainer.sft_config import SFTConfig
    from trl.trainer.sft_trainer import SFTTrainer

    recovery = [prompt_completion(messages_of(r, f"{s.recovery} row {i}")) for i, r in enumerate(load_rows(s.recovery))]
    standard = (
        [prompt_completion(messages_of(r, f"{s.standard} row {i}")) for i, r in enumerate(load_rows(s.standard))]
        if s.standard
        else []
    )
    rows, counts = mix(standard, recovery, s.alpha, s.seed)
    s.output_dir.mkdir(parents=True, exist_ok=True)
    save_rows([{"messages": [*r["prompt"], *r["completion"]]} for r in rows], s.output_dir / MIX_FILE)
    texts = [m["content"] for r in rows for m in [*r["prompt"], *r["completion"]]]
    model = resolve_model(s.model, s.output_dir, texts, s.seed)
    tokenizer = AutoTokenizer.from_pretrained(model)
    config = trl_config(
        SFTConfig, s, s.output_dir, also=("save_steps",), completion_only_loss=True, report_to=s.report_to
    )
    trainer = SFTTrainer(
        model=model, args=config, train_dataset=datasets.Dataset.from_list(rows), processing_class=tokenizer
    )
    head = {"settings": json.loads(s.model_dump_json()), "model_path": model, "mix": counts}
    return trainer, head
