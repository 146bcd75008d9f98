"""Content hashes and seeded random streams."""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path
from typing import Any


def canonical_json(obj: Any) -> str:
    """JSON with sorted keys and no spaces: equal values give equal text."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def stable_hash(obj: Any) -> str:
    """sha256 hex digest of the canonical JSON of ``obj``."""
    return hashlib.sha256(canonical_json(obj).encode("utf-8")).hexdigest()


def file_sha256(path: Path | str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def seeded_rng(seed: int, *keys: str) -> random.Random:
    """A random stream that depends only on the seed and the keys (e.g. sample id, type code).

    Deriving one stream per (sample, type) keeps outputs identical whatever subset or order
    of samples and types is built.
    """
    digest = hashlib.sha256(canonical_json([seed, *keys]).encode("utf-8")).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))
