"""Where robustcall keeps downloaded wheels, built binaries and caches."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs


def cache_dir(*parts: str) -> Path:
    """``$ROBUSTCALL_CACHE`` or the platform user cache dir, plus ``parts``; created on demand."""
    root = Path(os.environ.get("ROBUSTCALL_CACHE") or platformdirs.user_cache_dir("robustcall"))
    path = root.joinpath(*parts)
    path.mkdir(parents=True, exist_ok=True)
    return path
