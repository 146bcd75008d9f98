"""A tiny reward-model base built from a config (no download): the trainers' tiny Qwen2 with its
locally trained tokenizer; the RM code puts a one-logit score head on it, as on any causal LM base."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from rm_pairs import make_pairs


@pytest.fixture(scope="session")
def tiny_rm(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A saved tiny Qwen2 + tokenizer directory (random init, seeded), trained on the test pairs' text."""
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from robustcall.rewards import pair_rows
    from robustcall.train._models import make_tiny_model

    rows: list[Any] = pair_rows(make_pairs())
    texts = [m["role"] + " " + m["content"] for row in rows for m in row["prompt"] + row["chosen"] + row["rejected"]]
    return make_tiny_model(tmp_path_factory.mktemp("tiny_rm"), texts)
