"""The ``Rewriter`` protocol (the text generation behind Typo, QueryPara, ToolPara, ParamPara and
RedunTool) and the guard that every rewrite passes through."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any, Protocol

from robustcall.core import ToolSpec
from robustcall.perturb._protect import Protection
from robustcall.perturb._types import PerturbContext


class Rewriter(Protocol):
    """Produces the LLM-generated text of the five generated types.

    ``attempt`` counts tries of the same request (0 first); a rewriter must give a different answer
    for a different attempt when it can (the LLM rewriter keys its cache on it, the offline one
    draws again from ``rng``).
    """

    name: str

    def settings(self) -> dict[str, Any]:
        """What identifies this rewriter's outputs (written into the manifest)."""
        ...

    def typos(self, query: str, protection: Protection, rng: random.Random, attempt: int) -> str: ...

    def paraphrase_query(self, query: str, protection: Protection, rng: random.Random, attempt: int) -> str: ...

    def paraphrase_tool_description(
        self, tool_name: str, description: str, protection: Protection, rng: random.Random, attempt: int
    ) -> str: ...

    def paraphrase_parameter_description(
        self,
        param_name: str,
        param_type: str,
        description: str,
        protection: Protection,
        rng: random.Random,
        attempt: int,
    ) -> str: ...

    def sibling_tools(self, tool: ToolSpec, n: int, rng: random.Random, attempt: int) -> list[ToolSpec]: ...


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
