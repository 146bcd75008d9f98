"""Output-token budgets from what the gold calls need (an option; Table 15's fixed 1,024 is the default).

A small model that starts repeating a call writes until ``max_tokens`` runs out: on 2 cores one such
answer of 1,024 tokens takes over a minute, as long as a dozen normal ones. A correct answer is about
as long as the gold calls written in the sample's output format, so a budget of a few times that
length never cuts one short, and cuts a runaway answer early.

The budget is per (benchmark, category) group, from the longest gold rendering in the group (groups
without gold calls, such as BFCL irrelevance, take their benchmark's longest), so that one sample's
short gold does not cut a longer but still correct answer of that sample.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field

from robustcall.core import Sample
from robustcall.formats import render_calls, sample_format

CHARS_PER_TOKEN = 2.5
"""A low estimate of characters per token for code and JSON (so token counts are over-estimated)."""

FACTOR = 2.0
"""Budget = FACTOR x the longest gold rendering of the group (in estimated tokens) + MARGIN."""

MARGIN = 64
"""Room for a code fence, a short preamble or a closing remark."""


def gold_tokens(sample: Sample) -> int:
    """Estimated tokens of the sample's gold calls written in its output format (0 without gold)."""
    if not sample.golden_answers:
        return 0
    text = render_calls([g.as_call() for g in sample.golden_answers], sample_format(sample))
    return math.ceil(len(text) / CHARS_PER_TOKEN)


@dataclass
class GoldBudget:
    """``max_tokens`` per sample from the gold calls of its (benchmark, category) group.

    ``cap`` is never exceeded (the settings' ``max_tokens``)."""

    cap: int
    groups: dict[tuple[str, str], int] = field(default_factory=dict)
    benchmarks: dict[str, int] = field(default_factory=dict)

    @classmethod
    def from_samples(cls, samples: Iterable[Sample], cap: int) -> GoldBudget:
        budget = cls(cap)
        for s in samples:
            n = gold_tokens(s)
            key = (s.benchmark, s.category)
            budget.groups[key] = max(budget.groups.get(key, 0), n)
            budget.benchmarks[s.benchmark] = max(budget.benchmarks.get(s.benchmark, 0), n)
        return budget

    def __call__(self, sample: Sample) -> int:
        longest = self.groups.get((sample.benchmark, sample.category), 0)
        if longest == 0:
            longest = self.benchmarks.get(sample.benchmark, 0)
        if longest == 0:
            longest = gold_tokens(sample)
        if longest == 0:
            return self.cap
        return min(self.cap, MARGIN + math.ceil(FACTOR * longest))
