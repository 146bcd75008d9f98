"""LLM-as-judge with Listing 2: pairwise verdicts, seeded candidate order, ``[[A]]`` / ``[[B]]`` parsing.

Pairwise (FC-RewardBench): for each pair the chosen output is shown as ``[[A]]`` or ``[[B]]`` by a
coin from ``seeded_rng(seed, key)``; a verdict that names neither (or both, with no ``[VERDICT]``
tag to disambiguate) is *unparseable* and counts as a miss.

Pointwise (Best-of-n, filtering, GRPO): a judge cannot score one output alone, so ``score`` runs a
round robin: every pair of outputs is compared once (order seeded per pair) and an output's score is
its share of wins, in [0, 1]; an unparseable verdict gives each side half a win. One output alone
scores 0.5. This costs n(n-1)/2 judge calls per input.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from dataclasses import dataclass
from itertools import combinations
from typing import Any, Literal

from robustcall.core import EvalConfig, Message, Sample, SourceInfo, ToolSpec, seeded_rng, stable_hash
from robustcall.models import DEFAULT_CONCURRENCY, ChatModel, ModelRequest
from robustcall.rewards._hf import conversation_dicts, tool_dicts
from robustcall.rewards._prompts import judge_prompt

Side = Literal["A", "B"]

_VERDICT_TAG = re.compile(r"\[\s*VERDICT\s*\]", re.IGNORECASE)
_MARK = re.compile(r"\[\[\s*([AB])\s*\]\]")


def parse_verdict(text: str) -> Side | None:
    """``A`` / ``B`` from a judge's answer, ``None`` when unparseable.

    After the last ``[VERDICT]`` tag the first ``[[A]]`` / ``[[B]]`` decides; without the tag the
    answer must name exactly one of them (explanations usually mention both, so a lone mark is
    the only safe reading).
    """
    tags = list(_VERDICT_TAG.finditer(text))
    if tags:
        m = _MARK.search(text, tags[-1].end())
        return m.group(1) if m else None  # type: ignore[return-value]
    marks = {m.group(1) for m in _MARK.finditer(text)}
    return marks.pop() if len(marks) == 1 else None  # type: ignore[return-value]


@dataclass(frozen=True)
class PairVerdict:
    """One pairwise judgement of (first, second)."""

    first_is_a: bool
    """Whether ``first`` was shown as ``[[A]]``."""
    side: Side | None
    """The judge's verdict (``None``: unparseable)."""
    raw: str

    @property
    def first_wins(self) -> bool | None:
        if self.side is None:
            return None
        return (self.side == "A") == self.first_is_a


def _request(prompt: str) -> ModelRequest:
    sample = Sample(
        id="judge",
        benchmark="judge",
        category="judge",
        source=SourceInfo(original_id="judge", benchmark="judge"),
        conversation=[Message(role="user", content=prompt)],
        tools=[],
        golden_answers=[],
        eval_config=EvalConfig(method="exact"),
    )
    return ModelRequest(messages=[Message(role="user", content=prompt)], tools=[], sample=sample)


class JudgeScorer:
    """A judge endpoint as a pairwise comparer and (round robin) an :class:`OutputScorer`."""

    score_range = (0.0, 1.0)

    def __init__(self, model: ChatModel, *, seed: int = 0, concurrency: int = DEFAULT_CONCURRENCY) -> None:
        self.model = model
        self.name = f"judge:{model.name}"
        self.seed = seed
        self.concurrency = max(1, concurrency)
        self._loop = asyncio.new_event_loop()

    async def acompare(
        self, conversation: list[dict[str, Any]], tools: list[dict[str, Any]], first: str, second: str, key: str
    ) -> PairVerdict:
        first_is_a = seeded_rng(self.seed, "judge order", key).random() < 0.5
        a, b = (first, second) if first_is_a else (second, first)
        resp = await self.model.complete(_request(judge_prompt(tools, conversation, a, b)))
        text = resp.text if resp.error_kind != "infra" else ""
        return PairVerdict(first_is_a, parse_verdict(text), text)

    async def acompare_many(
        self,
        jobs: list[tuple[list[dict[str, Any]], list[dict[str, Any]], str, str, str]],
        on_verdict: Callable[[PairVerdict], None] | None = None,
    ) -> list[PairVerdict]:
        """Every job's verdict, in job order; ``on_verdict`` is told of each as it comes."""
        gate = asyncio.Semaphore(self.concurrency)

        async def one(job: tuple[list[dict[str, Any]], list[dict[str, Any]], str, str, str]) -> PairVerdict:
            async with gate:
                verdict = await self.acompare(*job)
            if on_verdict is not None:
                on_verdict(verdict)
            return verdict

        return list(await asyncio.gather(*(one(j) for j in jobs)))

    def compare_many(
        self,
        jobs: list[tuple[list[dict[str, Any]], list[dict[str, Any]], str, str, str]],
        on_verdict: Callable[[PairVerdict], None] | None = None,
    ) -> list[PairVerdict]:
        return self._loop.run_until_complete(self.acompare_many(jobs, on_verdict))

    def score(self, conversation: list[Message], tools: list[ToolSpec], outputs: list[str]) -> list[float]:
        if len(outputs) < 2:
            return [0.5] * len(outputs)
        conv, specs = conversation_dicts(conversation), tool_dicts(tools)
        base = stable_hash([conv, specs])
        pairs = list(combinations(range(len(outputs)), 2))
        jobs = [(conv, specs, outputs[i], outputs[j], f"{base}/{i}/{j}") for i, j in pairs]
        wins = [0.0] * len(outputs)
        for (i, j), verdict in zip(pairs, self.compare_many(jobs), strict=True):
            w = verdict.first_wins
            wins[i] += 0.5 if w is None else float(w)
            wins[j] += 0.5 if w is None else float(not w)
        return [w / (len(outputs) - 1) for w in wins]

    def close(self) -> None:
        if not self._loop.is_closed():
            self._loop.run_until_complete(self.model.aclose())
            self._loop.close()
