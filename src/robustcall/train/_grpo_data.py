"""GRPO datasets: rows with ``prompt`` (chat messages), ``ground_truth`` and ``tools`` (JSON).

Reads ToolRL / veRL rows (``prompt`` + ``reward_model.ground_truth``; tools parsed from the system
prompt) or rows already in this layout, from any format ``load_rows`` reads.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from robustcall.train._io import load_rows
from robustcall.train._rlla import parse_row


def grpo_row(row: dict[str, Any], where: str) -> dict[str, Any]:
    """One row in the GRPO layout."""
    prompt = row.get("prompt")
    if not isinstance(prompt, list) or not all(isinstance(m, dict) and "role" in m for m in prompt):
        raise ValueError(f"{where}: `prompt` must be a list of {{role, content}} messages")
    messages = [{"role": str(m["role"]), "content": str(m.get("content", ""))} for m in prompt]
    if "ground_truth" in row:
        return {"prompt": messages, "ground_truth": str(row["ground_truth"]), "tools": str(row.get("tools", "[]"))}
    reward_model = row.get("reward_model")
    if not isinstance(reward_model, dict) or "ground_truth" not in reward_model:
        raise ValueError(f"{where}: no `ground_truth` column and no `reward_model.ground_truth`")
    try:
        tools = [t.model_dump(mode="json") for t in parse_row(row, where).sample.tools]
    except ValueError:
        tools = []
    return {"prompt": messages, "ground_truth": str(reward_model["ground_truth"]), "tools": json.dumps(tools)}


def grpo_rows(path: Path) -> list[dict[str, Any]]:
    """All rows of ``path`` in the GRPO layout."""
    return [grpo_row(r, f"{path} row {i}") for i, r in enumerate(load_rows(path))]
