"""Cards of scripted models, made once per session through the CLI (a few seconds each)."""

from __future__ import annotations

from pathlib import Path

import pytest
from _card_cli import make_card

ORACLE = ["--model", "scripted:oracle", "--env-model", "scripted:expert"]
NAIVE = ["--model", "scripted:never_call"]


@pytest.fixture(scope="session")
def oracle_card(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_card(tmp_path_factory.mktemp("card") / "oracle", ORACLE)


@pytest.fixture(scope="session")
def naive_card(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_card(tmp_path_factory.mktemp("card") / "naive", NAIVE)


@pytest.fixture(scope="session")
def biased_card(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Picks tools by name (the Reward types hurt it) and plays episodes by the names it memorised."""
    return make_card(
        tmp_path_factory.mktemp("card") / "biased",
        ["--model", "scripted:name_biased", "--env-model", "scripted:memorise"],
    )
