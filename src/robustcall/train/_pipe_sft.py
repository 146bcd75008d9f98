"""Trajectory SFT, paper 002's recipe (Appendix K), on the trajectories of ``robustcall pipe run``.

Appendix K: full-parameter fine-tuning (every weight updated; no adapter) with the standard SFT objective,
Adam at a base learning rate of 1e-5 (transformers' AdamW with its default weight decay 0, i.e. Adam),
one epoch, cosine decay with a warmup ratio of 0.1, per-device batch 2 with gradient accumulation 2,
bfloat16, the ``qwen3`` chat template, preprocessing on 16 workers and 4 data-loading workers, no
validation split, loss logged every 10 steps, no intermediate checkpoints, no external logging. The paper
trains Qwen3-8B on AgentGym's ``agenttraj`` (LLaMA-Factory with DeepSpeed ZeRO-3); here TRL's ``SFTTrainer``
trains on PIPE runs' episodes.

Data: one example per episode (by default only the solved ones: the collected trajectories are filtered to
a training set, §3.1), its whole transcript as a conversation. Every assistant turn is trained, nothing
else (``assistant_only_loss``, as LLaMA-Factory trains a multi-turn example): the template marks the
assistant turns with ``{% generation %}``. An assistant turn that made structured calls (``fc`` runs) is
written as Qwen3 writes calls, ``<tool_call>\\n{"name": ..., "arguments": ...}\\n</tool_call>``; a ``tool``
turn as Qwen3's ``<tool_response>`` user turn.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from robustcall.core import InputError, Message, Trajectory, read_trajectories
from robustcall.rewards import trl_config
from robustcall.train._finish import train_and_save
from robustcall.train._io import save_rows
from robustcall.train._models import resolve_model

QWEN3_TEMPLATE = (
    "{% for m in messages %}"
    "{% if m['role'] == 'assistant' %}<|im_start|>assistant\n{% generation %}{{ m['content'] }}<|im_end|>\n"
    "{% endgeneration %}"
    "{% elif m['role'] == 'tool' %}<|im_start|>user\n<tool_response>\n{{ m['content'] }}\n</tool_response>"
    "<|im_end|>\n"
    "{% else %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n"
    "{% endif %}"
    "{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)
"""The ``qwen3`` chat template's layout (LLaMA-Factory's: system / user / assistant turns in ChatML, tool
results as a ``<tool_response>`` user turn), with ``{% generation %}`` around what is trained: each assistant
turn's content and its ``<|im_end|>\\n``."""

DATA_FILE = "pipe_sft.parquet"


class PipeSftSettings(BaseModel):
    """One trajectory-SFT run; the defaults are Appendix K's."""

    model_config = ConfigDict(extra="forbid")

    trajectories: list[Path]
    """``pipe run`` directories (or their ``trajectories.jsonl``)."""
    output_dir: Path
    model: str = "Qwen/Qwen3-8B"
    successful_only: bool = True
    learning_rate: float = 1e-5
    num_train_epochs: float = 1.0
    lr_scheduler_type: str = "cosine"
    warmup_ratio: float = 0.1
    per_device_train_batch_size: int = 2
    gradient_accumulation_steps: int = 2
    max_length: int = 4096
    """Not given in Appendix K (ours)."""
    logging_steps: int = 10
    dataset_num_proc: int | None = 16
    dataloader_num_workers: int = 4
    max_steps: int = -1
    seed: int = 0
    bf16: bool | None = None
    """Appendix K trains in bfloat16; ``None``: where the device supports it."""
    report_to: str = "none"


def _call_text(msg: Message) -> str:
    calls = [
        "<tool_call>\n" + json.dumps({"name": c.name, "arguments": c.arguments}, ensure_ascii=False) + "\n</tool_call>"
        for c in msg.tool_calls or []
    ]
    text = msg.content.strip()
    as_json = json.dumps([c.model_dump(by_alias=True) for c in msg.tool_calls or []], ensure_ascii=False)
    if not calls:
        return msg.content
    return "\n".join(([text] if text and text != as_json else []) + calls)


def trajectory_messages(traj: Trajectory) -> list[dict[str, str]]:
    """An episode's transcript as chat turns (structured calls written as Qwen3 writes them)."""
    out = []
    for m in traj.messages:
        content = _call_text(m) if m.role == "assistant" else m.content
        out.append({"role": m.role, "content": content})
    return out


def trajectory_rows(paths: list[Path], successful_only: bool = True) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """One ``messages`` row per episode of the runs (solved ones only unless told otherwise), and counts."""
    rows, episodes = [], 0
    for path in paths:
        folder = path.parent if path.is_file() else path
        for t in read_trajectories(folder, what="a `robustcall pipe run`"):
            episodes += 1
            if t.termination == "infra" or (successful_only and not t.success):
                continue
            messages = trajectory_messages(t)
            if any(m["role"] == "assistant" for m in messages):
                rows.append({"messages": messages})
    if not rows:
        which = "solved episodes" if successful_only else "episodes with an assistant turn"
        raise InputError(f"no {which} in {', '.join(map(str, paths))}")
    return rows, {"episodes": episodes, "examples": len(rows)}


def build_pipe_sft_trainer(s: PipeSftSettings) -> tuple[Any, dict[str, Any]]:
    """The examples written to ``output_dir``, and the ``SFTTrainer`` over them."""
    import datasets  # type: ignore[import-untyped,unused-ignore]
    from transformers import AutoTokenizer
    from trl.trainer.sft_config import SFTConfig
    from trl.trainer.sft_trainer import SFTTrainer

    rows, counts = trajectory_rows(s.trajectories, s.successful_only)
    s.output_dir.mkdir(parents=True, exist_ok=True)
    save_rows(rows, s.output_dir / DATA_FILE)
    texts = [m["content"] for r in rows for m in r["messages"]]
    model = resolve_model(s.model, s.output_dir, texts, s.seed)
    tokenizer = AutoTokenizer.from_pretrained(model)
    tokenizer.chat_template = QWEN3_TEMPLATE
    also = ("lr_scheduler_type", "warmup_ratio", "dataset_num_proc", "dataloader_num_workers")
    config = trl_config(
        SFTConfig,
        s,
        s.output_dir,
        also=also,
        save_strategy="no",
        eval_strategy="no",
        assistant_only_loss=True,
        report_to=s.report_to,
    )
    trainer = SFTTrainer(
        model=model, args=config, train_dataset=datasets.Dataset.from_list(rows), processing_class=tokenizer
    )
    head = {"recipe": "pipe-trajectory", "settings": json.loads(s.model_dump_json()), "model_path": model, **counts}
    return trainer, head


def run_pipe_sft(s: PipeSftSettings) -> dict[str, Any]:
    """Write the examples to ``output_dir/pipe_sft.parquet``, train (full fine-tune), save the model."""
    trainer, head = build_pipe_sft_trainer(s)
    return train_and_save(trainer, s.output_dir, head)
