"""The guard that every rewrite of a ``Rewriter`` (``_types.py``) passes through."""

from __future__ import annotations

from collections.abc import Callable

from robustcall.perturb._protect import Protection
from robustcall.perturb._types import PerturbContext


def guarded(
    ctx: PerturbContext,
    original: str,
    protection: Protection,
    produce: Callable[[int], str],
    fallback: Callable[[], str],
) -> str:
    """The first try of ``produce`` that keeps every protected string and changes the text.

    Up to ``ctx.max_tries`` tries; then ``fallback`` (the offline rewrite, which never edits inside
    a protected span) once; if that too fails, ``original``. Every outcome is counted in ``ctx.guard``.
    """
    ctx.guard.add(ctx.code, "checked")
    core = original.strip()
    lead, trail = original[: len(original) - len(original.lstrip())], original[len(original.rstrip()) :]
    for attempt in range(ctx.max_tries):
        out = produce(attempt).strip()
        lost = protection.lost(out)
        if not lost and out and out != core:
            ctx.guard.add(ctx.code, "passed" if attempt == 0 else "regenerated")
            return lead + out + trail
        ctx.guard.add(ctx.code, "violations", len(lost))
    out = fallback().strip()
    if out and out != core and not protection.lost(out):
        ctx.guard.add(ctx.code, "fallback")
        return lead + out + trail
    ctx.guard.add(ctx.code, "unchanged")
    return original
