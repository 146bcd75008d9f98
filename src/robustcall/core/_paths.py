"""Where robustcall keeps downloaded wheels, built binaries and caches."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable
from pathlib import Path

import platformdirs


def cache_dir(*parts: str) -> Path:
    """``$ROBUSTCALL_CACHE`` or the platform user cache dir, plus ``parts``; created on demand."""
    root = Path(os.environ.get("ROBUSTCALL_CACHE") or platformdirs.user_cache_dir("robustcall"))
    path = root.joinpath(*parts)
    path.mkdir(parents=True, exist_ok=True)
    return path


def derived_cache_dir(kind: str, key: str, sources: Iterable[Path]) -> Path:
    """``cache_dir(kind, <digest>)`` for data derived from the input ``key`` names (a pinned file's
    name and size, the versions that matter) by the code in ``sources``: a change to either is a new
    folder, never a stale entry."""
    digest = hashlib.sha256(key.encode())
    for source in sources:
        digest.update(source.read_bytes())
    return cache_dir(kind, digest.hexdigest()[:16])
