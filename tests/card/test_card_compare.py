"""``robustcall compare`` takes two cards: their runs are paired by path; cards of another protocol or
budget are refused with one line."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from typer.testing import CliRunner

from robustcall.card import CARD_JSON, run_dirs
from robustcall.cli.main import app


def _compare(*args: str) -> tuple[int, str]:
    res = CliRunner().invoke(app, ["compare", *args])
    return res.exit_code, res.output


def test_the_naive_card_against_the_oracle_card_fails_the_gate_run_by_run(
    oracle_card: Path, naive_card: Path, tmp_path: Path
) -> None:
    code, text = _compare(str(oracle_card), str(naive_card), "--fail-on-drop", "0.05", "--out", str(tmp_path))
    assert code == 4, text
    data = json.loads((tmp_path / "compare.json").read_text())
    assert [c["part"] for c in data["comparisons"]] == [p.as_posix() for p in run_dirs(oracle_card)]
    assert data["left_out"] == []
    tc = next(c for c in data["comparisons"] if c["part"] == "robustbench/run")
    rows = {r["key"]: r for r in tc["result"]["rows"]}
    assert rows["component:observation"]["status"] == "regression"  # 1.0 -> 0.2 on 120 paired records


def test_a_card_of_another_budget_is_refused_in_one_line(oracle_card: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    shutil.copytree(oracle_card, other)
    card = json.loads((other / CARD_JSON).read_text())
    (other / CARD_JSON).write_text(json.dumps({**card, "budget": "paper"}))
    code, text = _compare(str(oracle_card), str(other), "--out", str(tmp_path / "c"))
    assert code == 1 and "not comparable: different card protocols: card-1 quick vs card-1 paper" in text
    assert len(text.strip().splitlines()) <= 2


def test_a_card_copied_without_its_runs_is_refused_saying_what_to_give(oracle_card: Path, tmp_path: Path) -> None:
    """docs/cards holds pages and card.json only: comparing such a copy names the folder to give."""
    page_only = tmp_path / "page_only"
    page_only.mkdir()
    shutil.copy(oracle_card / CARD_JSON, page_only / CARD_JSON)
    code, text = _compare(str(oracle_card), str(page_only), "--out", str(tmp_path / "c"))
    assert code == 1, text
    assert text.strip() == (
        f"error: {page_only} holds no run to compare: a card is compared through its runs; "
        "give the folder `robustcall card --out` wrote"
    )
