"""Whether a run stands like for like beside the paper's rows: only a complete run of the authors'
released benchmark does (``build --release``); every other build's Observation and Reward-description
texts come from our rewriter, not the authors' LLM rewrites."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from robustcall.core import RUN_META, read_run_meta

LIKE_FOR_LIKE = "like for like with the paper"


def run_release(run_dir: Path) -> dict[str, Any] | None:
    """The release a run answered (its ``run.json``'s ``release``), ``None`` for our own builds."""
    meta_path = run_dir / RUN_META
    return read_run_meta(meta_path).release if meta_path.is_file() else None


def like_for_like(release: dict[str, Any] | None, records: int) -> bool:
    """A run of the paper's own release files, every record of it answered (no ``--limit``,
    ``--types`` or shard left some out)."""
    return bool(release and release.get("like_for_like") and records == release.get("records"))


def comparability(release: dict[str, Any] | None, records: int) -> str:
    """One sentence on how the run compares with the paper's rows."""
    if like_for_like(release, records):
        assert release is not None
        commit = str(release.get("commit") or "unknown commit")[:7]
        return f"{LIKE_FOR_LIKE}: every record of the authors' release {release.get('name')} ({commit})"
    if release is None:
        return (
            "not like for like with the paper: robustcall's own build (its Observation and Reward-description "
            "texts are our rewriter's, not the authors' LLM rewrites); build --release reads the authors' files"
        )
    if not release.get("like_for_like"):
        return f"not like for like with the paper: {release.get('name')} is not the paper's 17 eval files in full"
    return (
        f"not like for like with the paper: {records} of the release's {release.get('records')} records "
        "(--limit, --types or a shard left some out)"
    )


def run_comparability(run_dir: Path, records: int) -> tuple[bool, str]:
    release = run_release(run_dir)
    return like_for_like(release, records), comparability(release, records)
