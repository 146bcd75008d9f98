"""``load_source``: one entry point for every known benchmark."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from robustcall.sources._apibank import load_apibank
from robustcall.sources._bfcl import load_bfcl
from robustcall.sources._rotbench import load_rotbench
from robustcall.sources._toolalpaca import load_toolalpaca
from robustcall.sources._tooleyes import load_tooleyes
from robustcall.sources._types import SOURCE_NAMES, LoadResult, UnknownSourceError

_LOADERS: dict[str, Callable[[Path | None], LoadResult]] = {
    "bfcl": lambda _data_dir: load_bfcl(),
    "apibank": load_apibank,
    "rotbench": load_rotbench,
    "toolalpaca": load_toolalpaca,
    "tooleyes": load_tooleyes,
}
assert tuple(_LOADERS) == SOURCE_NAMES

NEEDS_DATA_DIR: frozenset[str] = frozenset(SOURCE_NAMES) - {"bfcl"}
"""Sources read from a user-given data dir (BFCL comes from its PyPI wheel)."""


def load_source(name: str, data_dir: Path | None = None) -> LoadResult:
    """Every usable sample of one source, what was skipped and why, and what was read.

    ``bfcl`` needs no ``data_dir`` (its wheel is fetched into the cache); the others read
    ``data_dir`` laid out like ``../shared/data`` (``apibank/``, ``toolrl/``, ``rotbench/``,
    ``toolalpaca/``, ``tooleyes/``) and raise ``MissingDataError`` naming what is absent.
    """
    loader = _LOADERS.get(name)
    if loader is None:
        raise UnknownSourceError(f"unknown source {name!r}; known: {', '.join(SOURCE_NAMES)}")
    return loader(Path(data_dir) if data_dir is not None else None)
