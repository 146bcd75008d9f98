"""Helpers every loader shares: data-dir checks, skip counting, hashing of what was read."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from pathlib import Path
from typing import Any

from robustcall.core import file_sha256
from robustcall.sources._types import MissingDataError, SourceFormatError


class Skips:
    """Counts skipped source items by reason; each skip is logged (DEBUG) with the item's id."""

    def __init__(self, source: str) -> None:
        self.source = source
        self._counts: Counter[str] = Counter()

    def add(self, reason: str, item: str) -> None:
        import logging  # here, not at start-up: only a skip logs

        self._counts[reason] += 1
        logging.getLogger("robustcall.sources").debug("%s: skipped %s (%s)", self.source, item, reason)

    def add_counts(self, counts: dict[str, int]) -> None:
        """Skips counted elsewhere (a cached load), reason -> count."""
        self._counts.update(counts)

    def as_dict(self) -> dict[str, int]:
        """Reason -> count, reasons sorted so that equal loads give equal dicts."""
        return {reason: self._counts[reason] for reason in sorted(self._counts)}


def require_data_dir(source: str, data_dir: Path | None, layout: str) -> Path:
    """The data dir as a resolved path, or a ``MissingDataError`` that says what to pass."""
    if data_dir is None:
        raise MissingDataError(
            f"source {source!r} reads local files: pass data_dir (CLI: --data-dir DIR) pointing at a "
            f"folder that holds {layout}"
        )
    path = Path(data_dir).expanduser().resolve()
    if not path.is_dir():
        raise MissingDataError(f"source {source!r}: data dir {path} does not exist or is not a folder")
    return path


def require_files(source: str, data_dir: Path, rel_paths: list[str]) -> list[Path]:
    """Paths under ``data_dir``; a ``MissingDataError`` lists every one that is absent."""
    paths = [data_dir / rel for rel in rel_paths]
    missing = [rel for rel, p in zip(rel_paths, paths, strict=True) if not p.is_file()]
    if missing:
        raise MissingDataError(
            f"source {source!r}: missing under {data_dir}: {', '.join(missing)} "
            "(expected the layout of ../shared/data; see robustcall.sources docs)"
        )
    return paths


def rel_key(path: Path, data_dir: Path) -> str:
    """``path`` relative to the data dir, with ``/`` separators (a stable ``versions`` key)."""
    return path.relative_to(data_dir).as_posix()


def hash_files(paths: list[Path], data_dir: Path) -> dict[str, str]:
    """``versions`` entries: relative path -> sha256, for every file read."""
    return {rel_key(p, data_dir): file_sha256(p) for p in sorted(paths)}


def combined_sha256(entries: dict[str, str]) -> str:
    """One digest over many ``name -> sha256`` entries (order-independent)."""
    h = hashlib.sha256()
    for name in sorted(entries):
        h.update(f"{name}\0{entries[name]}\n".encode())
    return h.hexdigest()


def load_json(path: Path) -> Any:
    """Parse a whole-file JSON document; a ``SourceFormatError`` names the file on failure."""
    try:
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)
    except json.JSONDecodeError as exc:
        raise SourceFormatError(f"{path}:{exc.lineno}: invalid JSON ({exc.msg})") from None


def decode_json_list_at(text: str, marker: str) -> tuple[list[Any], int] | None:
    """The JSON array that follows ``marker`` in ``text`` and the index just past it, or ``None``."""
    start = text.find(marker)
    if start < 0:
        return None
    try:
        value, end = json.JSONDecoder().raw_decode(text, start + len(marker))
    except json.JSONDecodeError:
        return None
    return (value, end) if isinstance(value, list) else None
