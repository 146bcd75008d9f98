"""``card --mcp-run``: a card shows an MCP run's conditions beside the protocol's systems; ``compare``
pairs the conditions of two MCP runs as it pairs fault runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("mcp")

from typer.testing import CliRunner

from robustcall.card import read_card, write_card
from robustcall.cli.card_cmd import with_mcp_run
from robustcall.cli.main import app

REPO = Path(__file__).resolve().parents[2]
RECORDING = Path(__file__).parent / "data" / "suite-recording"


@pytest.fixture(scope="module")
def mcp_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("mcpcard") / "run"
    res = CliRunner().invoke(app, ["mcp", "run", "--tasks", "suite", "--model", "scripted:expert", "--out", str(out),
                                   "--replay", str(RECORDING), "--limit", "4", "--rename", "synonym",
                                   "--perturb", "same_name_B"])  # fmt: skip
    assert res.exit_code == 0, res.output
    return out


def test_a_card_shows_an_mcp_run(mcp_run: Path, tmp_path: Path) -> None:
    card = with_mcp_run(read_card(REPO / "docs" / "cards" / "local-quick"), mcp_run)
    rows = [(r.condition, r.episodes, r.success, r.legacy_calls, r.distractor_calls) for r in card.mcp]
    assert rows == [("clean", 4, 1.0, None, None), ("perturb-same_name_B", 4, 1.0, None, 0),
                    ("rename-synonym", 4, 1.0, 0, None)]  # fmt: skip
    files = write_card(tmp_path, card)
    assert read_card(tmp_path).mcp == card.mcp
    page = Path(files.html).read_text()
    assert "<h2>Real MCP servers</h2>" in page and "rename-synonym" in page


def test_compare_pairs_two_conditions_episode_by_episode(mcp_run: Path, tmp_path: Path) -> None:
    res = CliRunner().invoke(app, ["compare", str(mcp_run / "clean"), str(mcp_run / "rename-synonym"),
                                   "--out", str(tmp_path / "cmp")])  # fmt: skip
    assert res.exit_code == 0, res.output
    summary = json.loads((tmp_path / "cmp" / "compare.json").read_text())
    assert "RASR" in res.output and summary


def test_card_refuses_a_folder_that_is_no_mcp_run_before_running(tmp_path: Path) -> None:
    res = CliRunner().invoke(app, ["card", "--model", "scripted:oracle", "--mcp-run", str(tmp_path),
                                   "--out", str(tmp_path / "card")])  # fmt: skip
    assert res.exit_code == 2 and "is not an `mcp run` folder" in res.output
    assert not (tmp_path / "card").exists()
