"""A card killed part way continues where it stopped: the same card.json and page, byte for byte."""

from __future__ import annotations

import shutil
from pathlib import Path

from _card_cli import make_card

from robustcall.card import CARD_HTML, CARD_JSON, fault_run, pipe_run, tc_run


def _cut(path: Path, keep: int, torn: bool = False) -> None:
    """Keep the first ``keep`` lines (and half of the next one: a write cut by a kill)."""
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    assert len(lines) > keep
    path.write_text("".join(lines[:keep]) + (lines[keep][: len(lines[keep]) // 2] if torn else ""), encoding="utf-8")


def test_a_card_cut_mid_way_in_every_system_finishes_to_the_same_bytes(biased_card: Path, tmp_path: Path) -> None:
    card = tmp_path / "card"
    shutil.copytree(biased_card, card)
    (card / CARD_JSON).unlink()
    (card / CARD_HTML).unlink()
    _cut(tc_run(card) / "predictions.jsonl", 200, torn=True)  # RobustBench-TC stopped part way
    (tc_run(card) / "scores.jsonl").unlink()
    _cut(pipe_run(card, "maze", "dual") / "trajectories.jsonl", 4)  # order 2 of the dual level unfinished
    shutil.rmtree(pipe_run(card, "textcraft", "symbol"))  # PIPE levels not yet started
    shutil.rmtree(pipe_run(card, "textcraft", "dual"))
    _cut(fault_run(card, "maze", "semantic") / "trajectories.jsonl", 1)
    for fc in ("execution", "semantic", "nonstationary"):
        shutil.rmtree(fault_run(card, "textcraft", fc))
    make_card(card, ["--model", "scripted:name_biased", "--env-model", "scripted:memorise"])
    assert (card / CARD_JSON).read_bytes() == (biased_card / CARD_JSON).read_bytes()
    assert (card / CARD_HTML).read_bytes() == (biased_card / CARD_HTML).read_bytes()
    lines = (tc_run(card) / "predictions.jsonl").read_text().splitlines()
    assert len(lines) == len(set(lines)) == 460  # nothing answered twice


def test_running_a_finished_card_again_answers_nothing_and_writes_the_same_card(naive_card: Path) -> None:
    before = (naive_card / CARD_JSON).read_bytes()
    stamp = (tc_run(naive_card) / "predictions.jsonl").stat().st_size
    make_card(naive_card, ["--model", "scripted:never_call"])
    assert (naive_card / CARD_JSON).read_bytes() == before
    assert (tc_run(naive_card) / "predictions.jsonl").stat().st_size == stamp
