"""RM-guided data filtering (§5.3.1): score each training example's target output with an RM, keep
the top fraction, write TRL-ready SFT rows.

An example is a :class:`~robustcall.core.Sample` whose golden answers are its target calls. Its
score is the scorer's score of the target rendered as our output text; ties keep input order
(stable sort), and the kept rows keep their input order. Each row is TRL's conversational
``{"messages": [...], "tools": [...]}`` with the target as the last assistant turn, written in the
sample's own output format (``render_calls``), so ``SFTTrainer`` trains on what the model should say.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from robustcall.core import Sample, progress
from robustcall.formats import render_calls, render_messages, sample_format
from robustcall.rewards._output import calls_text
from robustcall.rewards._scorers import OutputScorer


def score_corpus(scorer: OutputScorer, samples: Sequence[Sample]) -> list[float]:
    """The scorer's score of each sample's target, in sample order."""
    told = progress()  # progress lines in a log
    told.start(f"rm filter {scorer.name}", len(samples), unit="examples")
    scores = []
    for s in samples:
        scores.append(scorer.score(s.conversation, s.tools, [calls_text([g.as_call() for g in s.golden_answers])])[0])
        told.advance()
    return scores


def keep_top(scores: Sequence[float], fraction: float) -> list[int]:
    """Indices of the top ``fraction`` (rounded up) by score, in input order; ties by input order."""
    if not 0.0 < fraction <= 1.0:
        raise ValueError(f"fraction must be in (0, 1], got {fraction}")
    k = math.ceil(len(scores) * fraction)
    ranked = sorted(range(len(scores)), key=lambda i: -scores[i])
    return sorted(ranked[:k])


def sft_row(sample: Sample, score: float) -> dict[str, Any]:
    """A TRL conversational SFT row (plus ``id`` and ``rm_score`` columns)."""
    fmt = sample_format(sample)
    messages = [{"role": m.role, "content": m.content} for m in render_messages(sample, "prompt")]
    target = render_calls([g.as_call() for g in sample.golden_answers], fmt)
    messages.append({"role": "assistant", "content": target})
    return {
        "id": sample.id,
        "messages": messages,
        "tools": [t.model_dump(mode="json") for t in sample.tools],
        "rm_score": score,
    }
