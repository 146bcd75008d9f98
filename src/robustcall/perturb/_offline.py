"""The offline rewriter: needs no model. Keyboard typos, rule-based paraphrases, sibling tools."""

from __future__ import annotations

import random
from typing import Any

from robustcall.core import ToolSpec
from robustcall.perturb._paraphrase import paraphrase, paraphrase_description
from robustcall.perturb._protect import Protection
from robustcall.perturb._siblings import synthesize_siblings
from robustcall.perturb._typos import add_typos


class OfflineRewriter:
    """Deterministic given the random stream it is handed; ``attempt`` just draws again."""

    name = "offline"

    def settings(self) -> dict[str, Any]:
        return {"rewriter": "offline"}

    def typos(self, query: str, protection: Protection, rng: random.Random, attempt: int) -> str:
        return add_typos(query, protection, rng)

    def paraphrase_query(self, query: str, protection: Protection, rng: random.Random, attempt: int) -> str:
        return paraphrase(query, protection, rng)

    def paraphrase_tool_description(
        self, tool_name: str, description: str, protection: Protection, rng: random.Random, attempt: int
    ) -> str:
        return paraphrase_description(description, protection, rng)

    def paraphrase_parameter_description(
        self,
        param_name: str,
        param_type: str,
        description: str,
        protection: Protection,
        rng: random.Random,
        attempt: int,
    ) -> str:
        return paraphrase_description(description, protection, rng)

    def sibling_tools(self, tool: ToolSpec, n: int, rng: random.Random, attempt: int) -> list[ToolSpec]:
        return synthesize_siblings(tool, n, rng, set())
