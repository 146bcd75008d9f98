"""Best-of-n (§5.2): n draws at T = 0.6, one pick per selection method, scored against gold.

Methods: ``greedy`` (one T = 0 draw), ``majority`` (the most frequent canonical call sequence; ties
go to the sequence seen first; unreadable draws never win while a readable one exists),
``schema`` (the highest-likelihood draw among the schema-valid ones; draw order when the endpoint
gives no log-probabilities; the first draw when none is valid), ``rm:<scorer>`` (the highest score,
first on ties) and ``oracle`` (any correct draw: the ceiling of selection). Each pick is judged by
the sample's own scorer (BFCL AST for BFCL, the source rules elsewhere) and by full-sequence match
(names and argument values equal the gold, in order); incorrect picks get an error type for Table 8.

Where the golden answers are alternatives (``golden_mode`` ``any``: RoTBench's several acceptable
actions; ``any_name``: ToolEyes' library, names only), each alternative is a gold sequence of its own
(:func:`gold_sequences`): a pick matches when it equals any one of them, and an incorrect pick is
classified against the closest one (the alternative its error is found latest against: a parameter
error before a wrong name before a wrong count; the first alternative on ties).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, Field

from robustcall.core import GoldenAnswer, Sample, ToolSpec, canonical_json
from robustcall.rewards._errors import classify_error
from robustcall.rewards._output import output_calls
from robustcall.rewards._schema import schema_violations
from robustcall.rewards._scorers import OutputScorer
from robustcall.rewards._types import IRRELEVANCE_ERROR
from robustcall.score import SampleScorer, alternatives, golden_mode, rotbench_stages, step_names

__all__ = ["IRRELEVANCE_ERROR"]  # re-exported: Table 8's row


def _norm(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, list):
        return [_norm(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _norm(v) for k, v in value.items()}
    return value


def canonical_sequence(text: str, tools: list[ToolSpec] | None = None) -> str | None:
    """The vote key of an output: its calls with normalised values (``2.0`` = ``2``, strings
    stripped), keys sorted, calls as a sorted multiset (order-free, as BFCL's parallel matching);
    ``None`` for unreadable text."""
    calls = output_calls(text, tools)
    if calls is None:
        return None
    return canonical_json(sorted(canonical_json([c.name, _norm(c.arguments)]) for c in calls))


def majority_vote(texts: Sequence[str], tools: list[ToolSpec] | None = None) -> int:
    """Index of the first draw of the most frequent canonical sequence."""
    if not texts:
        raise ValueError("majority vote over no draws")
    keys = [canonical_sequence(t, tools) for t in texts]
    counts: dict[str, int] = {}
    first: dict[str, int] = {}
    for i, k in enumerate(keys):
        if k is not None:
            counts[k] = counts.get(k, 0) + 1
            first.setdefault(k, i)
    if not counts:
        return 0
    best = max(counts, key=lambda k: (counts[k], -first[k]))
    return first[best]


def schema_pick(texts: Sequence[str], logprobs: Sequence[float | None], tools: list[ToolSpec]) -> int:
    """Index of the most likely schema-valid draw (draw order without log-probabilities)."""
    valid = []
    for i, t in enumerate(texts):
        calls = output_calls(t, tools)
        if calls is not None and not schema_violations(calls, tools):
            valid.append(i)
    if not valid:
        return 0
    return max(valid, key=lambda i: (logprobs[i] if logprobs[i] is not None else float("-inf"), -i))


def rm_pick(scores: Sequence[float]) -> int:
    """Index of the highest score (the first on ties)."""
    return max(range(len(scores)), key=lambda i: (scores[i], -i))


def names_only(sample: Sample) -> bool:
    """The gold gives names and no parameters (ToolEyes' ``any_name``: parameters are not compared)."""
    return golden_mode(sample) == "any_name"


def gold_sequences(sample: Sample) -> list[list[GoldenAnswer]]:
    """The call sequences that are each the whole gold answer: the golden list, or, where its entries
    are alternatives, each one on its own (``any_name``: every acceptable name, gold order first)."""
    golden = sample.golden_answers
    if not golden or not alternatives(sample):
        return [golden]
    if names_only(sample):
        names = dict.fromkeys([g.name for g in golden] + sorted(set().union(*step_names(sample))))
        return [[GoldenAnswer(name=n, parameters={})] for n in names]
    return [[g] for g in golden]


def full_sequence_match(sample: Sample, text: str) -> bool:
    """Names and argument values equal one gold sequence's, in order (values normalised; names only
    where the gold has no parameters to compare)."""
    calls = output_calls(text, sample.tools)
    if calls is None:
        return False
    values = not names_only(sample)
    got = [(c.name, _norm(c.arguments) if values else None) for c in calls]
    return any(
        got == [(g.name, _norm(g.parameters) if values else None) for g in seq] for seq in gold_sequences(sample)
    )


class BonRecord(BaseModel):
    """One sample's Best-of-n outcome: the draws, the picks and their verdicts."""

    id: str
    benchmark: str
    category: str
    greedy: str
    draws: list[str]
    logprobs: list[float | None]
    scores: dict[str, list[float]] = Field(default_factory=dict)
    """RM name -> one score per draw."""
    picks: dict[str, int] = Field(default_factory=dict)
    """method -> index into ``draws`` (``-1``: the greedy output)."""
    correct: dict[str, bool] = Field(default_factory=dict)
    fsm: dict[str, bool] = Field(default_factory=dict)
    error_type: dict[str, str] = Field(default_factory=dict)
    """method -> error type of an incorrect pick."""
    stages: dict[str, list[bool]] = Field(default_factory=dict)
    """RoTBench samples only: method -> the pick's Tool Selection, Parameter Identification and
    Content Filling (``score.rotbench_stages``; ToolRM's Table 3)."""


_DEPTH = {"Incorrect output format": 0, "Incorrect number of functions": 0, "Incorrect Function Name": 1}
"""How far the classifier got before the error (parameter-level types: 2); the deepest is the closest."""


def error_of(sample: Sample, text: str) -> str:
    """Table 8's type of an incorrect ``text``, against the closest gold sequence (``Other``: none
    found, e.g. a rule of the source's scorer the classifier lacks)."""
    if not sample.golden_answers:
        return IRRELEVANCE_ERROR
    calls = output_calls(text, sample.tools)
    kinds = [classify_error(text, seq, sample.tools, calls) for seq in gold_sequences(sample)]
    if names_only(sample):  # parameters are not compared: a parameter "error" is no error here
        kinds = [k if k is None or k in _DEPTH else None for k in kinds]
    if None in kinds:
        return "Other"
    return max((k for k in kinds if k is not None), key=lambda k: _DEPTH.get(k, 2))


def judge_sample(
    sample: Sample,
    greedy: str,
    draws: list[str],
    logprobs: list[float | None],
    scorers: Mapping[str, OutputScorer],
) -> BonRecord:
    """Pick with every method and judge each pick."""
    rec = BonRecord(
        id=sample.id,
        benchmark=sample.benchmark,
        category=sample.category,
        greedy=greedy,
        draws=draws,
        logprobs=logprobs,
    )
    judge = SampleScorer(sample)

    def correct(text: str) -> bool:
        calls = output_calls(text, sample.tools)
        if calls is None:
            return False
        return judge.judge(text, [(c.name, c.arguments) for c in calls], calls).correct

    verdicts = [correct(t) for t in draws]
    rec.picks["greedy"] = -1
    if draws:
        rec.picks["majority"] = majority_vote(draws, sample.tools)
        rec.picks["schema"] = schema_pick(draws, logprobs, sample.tools)
        for name, scorer in scorers.items():
            rec.scores[name] = list(scorer.score(sample.conversation, sample.tools, draws))
            rec.picks[f"rm:{name}"] = rm_pick(rec.scores[name])
        rec.picks["oracle"] = next((i for i, v in enumerate(verdicts) if v), 0)
    for method, idx in rec.picks.items():
        text = greedy if idx < 0 else draws[idx]
        ok = correct(text) if idx < 0 else verdicts[idx]
        rec.correct[method] = ok
        rec.fsm[method] = full_sequence_match(sample, text)
        if not ok:
            rec.error_type[method] = error_of(sample, text)
        if sample.benchmark == "rotbench":
            calls = output_calls(text, sample.tools)
            rec.stages[method] = [False] * 3 if calls is None else list(rotbench_stages(sample, calls))
    return rec


def methods_of(records: Sequence[BonRecord]) -> list[str]:
    seen: dict[str, None] = {}
    for r in records:
        for m in r.picks:
            seen.setdefault(m)
    order = ["greedy", "majority", "schema"]
    return (
        [m for m in order if m in seen]
        + sorted(m for m in seen if m.startswith("rm:"))
        + (["oracle"] if "oracle" in seen else [])
    )
