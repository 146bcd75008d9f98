"""Where a card's runs live: one ordinary run directory per run, beside ``card.json``.

``robustcall compare`` pairs two cards run by run through these paths, and every run directory is
what ``robustcall run`` / ``pipe run`` / ``faults run`` would have written (score, report, replay and
resume read it as such)."""

from __future__ import annotations

from pathlib import Path

from robustcall.report import CARD_JSON

__all__ = ["CARD_HTML", "CARD_JSON", "TC_BENCH", "TC_RUN"]
CARD_HTML = "card.html"
TC_BENCH = "robustbench/bench"
TC_RUN = "robustbench/run"


def tc_bench(card: Path) -> Path:
    return card / TC_BENCH


def tc_run(card: Path) -> Path:
    return card / TC_RUN


def pipe_run(card: Path, env: str, level: str) -> Path:
    """One PIPE level of one environment (both dual orders share the ``dual`` run)."""
    return card / "pipe" / env / level


def fault_run(card: Path, env: str, fault_class: str) -> Path:
    """One fault class's profile at δ = 0.3 on one environment."""
    return card / "faults" / env / fault_class


def run_dirs(card: Path) -> list[Path]:
    """Every run directory a card holds, sorted (relative to the card: the pairs ``compare`` makes)."""
    found = {p.parent for p in card.rglob("run.json")}
    return sorted(p.relative_to(card) for p in found)
