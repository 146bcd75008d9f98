"""Dispatch on ``eval_config.method``: one deterministic scorer per source (Appendix I), error
modes on incorrect records (Appendix L), infrastructure errors excluded."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from robustcall.core import Prediction, PredictionRecord, Sample, ScoreMethod, ToolCall, Verdict
from robustcall.score._bfcl_ast import check_bfcl
from robustcall.score._error_modes import error_mode
from robustcall.score._rules import (
    Judgement,
    golden_mode,
    score_apibank,
    score_exact,
    score_rotbench,
    score_toolalpaca,
    score_tooleyes,
    step_names,
)

Scorer = Callable[[Sample, list[ToolCall]], Judgement]


def score_bfcl(sample: Sample, calls: list[ToolCall]) -> Judgement:
    """Upstream BFCL's AST checker semantics (see :mod:`robustcall.score._bfcl_ast`)."""
    err = check_bfcl(sample.category, sample.tools, calls, sample.golden_answers)
    return Judgement(err is None, 1.0 if err is None else 0.0, err)


SCORERS: dict[ScoreMethod, Scorer] = {
    "bfcl_ast": score_bfcl,
    "apibank": score_apibank,
    "rotbench": score_rotbench,
    "toolalpaca": score_toolalpaca,
    "tooleyes": score_tooleyes,
    "exact": score_exact,
}
"""Scorer per ``eval_config.method``; register a new source's rule here."""


def score_prediction(sample: Sample, prediction: Prediction) -> Verdict:
    """The verdict on one prediction for one sample (``prediction.tool_calls`` already parsed)."""
    ptype = sample.perturbation.type
    component = sample.perturbation.mdp_category
    if prediction.error_kind == "infra":
        return Verdict(
            id=sample.id,
            benchmark=sample.benchmark,
            type=ptype,
            component=component,
            correct=None,
            infra_error=prediction.error or "infrastructure error",
        )
    calls = prediction.tool_calls
    judged = SCORERS[sample.eval_config.method](sample, calls)
    mode = None
    if not judged.correct:
        if sample.eval_config.method == "tooleyes":
            names: list[str] = sorted(set().union(*step_names(sample))) if sample.golden_answers else []
        else:
            names = [g.name for g in sample.golden_answers]
        mode = error_mode(prediction.raw_output, calls, names, component, alternatives=golden_mode(sample) == "any")
    detail = judged.detail
    if prediction.error_kind == "model_format" and prediction.error:
        detail = f"{detail}; {prediction.error}" if detail else prediction.error
    return Verdict(
        id=sample.id,
        benchmark=sample.benchmark,
        type=ptype,
        component=component,
        correct=judged.correct,
        score=judged.score,
        error_mode=mode,
        detail=detail,
    )


def score_record(rec: PredictionRecord) -> Verdict:
    """The verdict on one prediction record."""
    return score_prediction(rec, rec.prediction)


def score_records(recs: Iterable[PredictionRecord]) -> list[Verdict]:
    """Verdicts on many records, in order."""
    return [score_prediction(r, r.prediction) for r in recs]
