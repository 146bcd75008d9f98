"""The end every trainer shares: train, save the model, write the run summary (rank 0 only)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from robustcall.core import atomic_write_text

SUMMARY = "robustcall_train.json"
"""The run summary beside the saved model: the run's own fields, steps, seconds, TRL's log history."""


def train_and_save(
    trainer: Any, output_dir: Path, head: dict[str, Any], tail: Callable[[], dict[str, Any]] | None = None
) -> dict[str, Any]:
    """Run ``trainer`` (any transformers ``Trainer``), save it to ``output_dir`` and return the summary
    (``head``, the run's figures, then what ``tail`` returns after training)."""
    t0 = time.perf_counter()
    trainer.train()
    seconds = time.perf_counter() - t0
    trainer.save_model(str(output_dir))
    summary = head | {
        "steps": trainer.state.global_step,
        "train_seconds": seconds,
        "log_history": trainer.state.log_history,
    }
    if tail is not None:
        summary |= tail()
    if trainer.is_world_process_zero():
        atomic_write_text(output_dir / SUMMARY, json.dumps(summary, indent=2, default=str) + "\n")
    return summary
