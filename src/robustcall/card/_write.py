"""Writing and reading a card's two files."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from robustcall.card._layout import CARD_HTML, CARD_JSON
from robustcall.core import InputError, MissingInputError, atomic_write_text
from robustcall.report import Card, card_page


@dataclass(frozen=True)
class CardFiles:
    json: Path
    html: Path


def write_card(card_dir: Path, card: Card) -> CardFiles:
    """``card.json`` (every number, byte-identical for the same runs) and ``card.html``."""
    files = CardFiles(card_dir / CARD_JSON, card_dir / CARD_HTML)
    atomic_write_text(files.json, card.model_dump_json(indent=2) + "\n")
    atomic_write_text(files.html, card_page(card))
    return files


def read_card(card_dir: Path) -> Card:
    """The ``card.json`` of a card folder."""
    path = card_dir / CARD_JSON
    if not path.is_file():
        raise MissingInputError(f"{card_dir} has no {CARD_JSON}: not a finished `robustcall card` folder")
    try:
        return Card.model_validate_json(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise InputError(f"{path}: not a card this robustcall reads ({str(exc).splitlines()[0]})") from None
