"""Pairwise accuracy on FC-RewardBench (§5.1): a record counts when the chosen output is preferred.

Pointwise scorers (classifiers, rules) must score chosen strictly above rejected (a tie is a miss,
as "exceeds" in the paper); a judge must pick the chosen side of the pair, an unparseable verdict
is a miss and is counted separately.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from robustcall.core import Message, ToolSpec, progress
from robustcall.rewards._judge import JudgeScorer
from robustcall.rewards._scorers import OutputScorer
from robustcall.rewards._types import RewardPair


@dataclass
class PairwiseResult:
    """One scorer's accuracy, overall and per error type."""

    scorer: str
    total: int = 0
    correct: int = 0
    unparseable: int | None = None
    """Judges only: verdicts naming neither side."""
    by_type: dict[str, list[int]] = field(default_factory=dict)
    """error type -> [records, correct]."""
    hits: list[bool] = field(default_factory=list)
    """Per record, in input order."""

    def add(self, error_type: str, hit: bool) -> None:
        self.total += 1
        self.correct += int(hit)
        cell = self.by_type.setdefault(error_type, [0, 0])
        cell[0] += 1
        cell[1] += int(hit)
        self.hits.append(hit)

    @property
    def accuracy(self) -> float:
        return self.correct / self.total if self.total else 0.0

    def as_dict(self) -> dict[str, Any]:
        return {
            "scorer": self.scorer,
            "total": self.total,
            "correct": self.correct,
            "accuracy": self.accuracy,
            "unparseable": self.unparseable,
            "by_type": {
                t: {"n": n, "correct": c, "accuracy": c / n if n else 0.0} for t, (n, c) in self.by_type.items()
            },
        }


def _inputs(r: RewardPair) -> tuple[list[Message], list[ToolSpec]]:
    conv = [Message(role=m.get("role", "user"), content=str(m.get("content", ""))) for m in r.conversation]
    return conv, [ToolSpec.model_validate(t) for t in r.tools]


def eval_pointwise(
    scorer: OutputScorer, records: Sequence[RewardPair], on_pair: Callable[[int], None] | None = None
) -> PairwiseResult:
    res = PairwiseResult(scorer.name)
    told = progress()  # progress lines in a log
    told.start(f"rm eval {scorer.name}", len(records), unit="pairs")
    for i, r in enumerate(records):
        conv, tools = _inputs(r)
        chosen, rejected = scorer.score(conv, tools, [r.chosen_output, r.rejected_output])
        res.add(r.error_type, chosen > rejected)
        told.advance()
        if on_pair is not None:
            on_pair(i + 1)
    return res


def eval_judge(judge: JudgeScorer, records: Sequence[RewardPair]) -> PairwiseResult:
    jobs = [(r.conversation, r.tools, r.chosen_output, r.rejected_output, r.test_id) for r in records]
    res = PairwiseResult(judge.name, unparseable=0)
    told = progress()  # progress lines in a log
    told.start(f"rm eval {judge.name}", len(records), unit="pairs")
    verdicts = judge.compare_many(jobs, on_verdict=lambda _: told.advance())
    for r, v in zip(records, verdicts, strict=True):
        if v.side is None:
            res.unparseable = (res.unparseable or 0) + 1
        res.add(r.error_type, v.first_wins is True)
    return res


def evaluate(scorer: OutputScorer, records: Sequence[RewardPair]) -> PairwiseResult:
    """Pairwise accuracy of any scorer (judges pairwise, the rest pointwise)."""
    if isinstance(scorer, JudgeScorer):
        return eval_judge(scorer, records)
    return eval_pointwise(scorer, records)
