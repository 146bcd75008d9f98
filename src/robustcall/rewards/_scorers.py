"""The scorer protocol and the rule scorers: schema validation and our BFCL scorer (gold needed)."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from robustcall.core import GoldenAnswer, Message, Sample, ToolSpec, stable_hash
from robustcall.rewards._output import output_calls
from robustcall.rewards._schema import schema_reward
from robustcall.score import BfclChecker


@runtime_checkable
class OutputScorer(Protocol):
    """Scores candidate outputs for one input: one raw score per output text, higher is better.

    Raw scores are on the scorer's own scale (a classifier's logit, a judge's win rate, a rule's
    ±1); :func:`robustcall.rewards.toolrm_reward` maps them onto [-3, 3].
    """

    name: str

    def score(self, conversation: list[Message], tools: list[ToolSpec], outputs: list[str]) -> list[float]: ...


class SchemaScorer:
    """Rule baseline: R_schema of each output (+1 schema-valid, -1 otherwise or unreadable)."""

    name = "schema"
    score_range = (-1.0, 1.0)

    def score(self, conversation: list[Message], tools: list[ToolSpec], outputs: list[str]) -> list[float]:
        return [schema_reward(output_calls(o, tools), tools) for o in outputs]


def input_key(conversation: list[Message], tools: list[ToolSpec]) -> str:
    """A content key of one input (conversation text and tool names), to look gold up by."""
    return stable_hash([[m.role, m.content] for m in conversation] + [t.name for t in tools])


class BfclScorer:
    """Our scorer against gold: +1 when BFCL's AST rules pass the output, 0 otherwise.

    The protocol carries no gold, so gold is registered per input first (:meth:`add`, or
    :meth:`from_samples`); an input without gold scores 0 for every output (no preference).
    """

    name = "bfcl"
    score_range = (0.0, 1.0)

    def __init__(self) -> None:
        self._gold: dict[str, tuple[str, list[GoldenAnswer]]] = {}

    def add(
        self, conversation: list[Message], tools: list[ToolSpec], golden: list[GoldenAnswer], category: str
    ) -> None:
        self._gold[input_key(conversation, tools)] = (category, golden)

    @classmethod
    def from_samples(cls, samples: list[Sample]) -> BfclScorer:
        scorer = cls()
        for s in samples:
            scorer.add(s.conversation, s.tools, s.golden_answers, s.category)
        return scorer

    def __len__(self) -> int:
        return len(self._gold)

    def score(self, conversation: list[Message], tools: list[ToolSpec], outputs: list[str]) -> list[float]:
        gold = self._gold.get(input_key(conversation, tools))
        if gold is None:
            return [0.0] * len(outputs)
        checker = BfclChecker(gold[0], tools, gold[1])
        scores: list[float] = []
        for o in outputs:
            calls = output_calls(o, tools)
            ok = calls is not None and checker.check([(c.name, c.arguments) for c in calls]) is None
            scores.append(1.0 if ok else 0.0)
        return scores
