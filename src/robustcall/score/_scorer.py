"""Dispatch on ``eval_config.method``: one deterministic scorer per source (Appendix I), error
modes on incorrect records (Appendix L), infrastructure errors excluded.

:class:`SampleScorer` holds what one sample's verdicts need (the prepared BFCL checker, the golden
names of the error modes); :func:`score_prediction` and the batch path of :mod:`._batch` both judge
through it, so there is one set of rules.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import NamedTuple

from robustcall.core import (
    ErrorMode,
    Prediction,
    PredictionRecord,
    Sample,
    ScoreMethod,
    ToolCall,
    ToolSpec,
    Verdict,
    scored_verdict,
)
from robustcall.formats import UNREADABLE, OutputFormat, read_tool_calls, sample_format
from robustcall.score._attacks import INJECTION_TYPE, attack_success, injection_kind
from robustcall.score._bfcl_agentic import judge_agentic
from robustcall.score._bfcl_ast import BfclChecker, Call, check_bfcl
from robustcall.score._bfcl_multi_turn import HANDLER_KEY as BFCL_HANDLER
from robustcall.score._bfcl_multi_turn import judge_multi_turn
from robustcall.score._error_modes import ErrorModes
from robustcall.score._noop import NOOP_TYPE, judge_noop
from robustcall.score._rules import (
    Judgement,
    alternatives,
    score_apibank,
    score_exact,
    score_rotbench,
    score_toolalpaca,
    score_tooleyes,
    step_names,
)

Scorer = Callable[[Sample, list[ToolCall]], Judgement]


def schema_tools(sample: Sample) -> list[ToolSpec]:
    """The tools whose schemas judge a call: each name once, and where several tools share a golden
    name (the Dup-* same-name decoys, one or several per golden tool), the golden tool itself, never
    a decoy, which upstream's first-match lookup would pick whenever a decoy stands first (Dup-WrongP
    places it anywhere; released multi-call records carry several).

    Among the tools of a shared name, the ones the record lists as decoys (``metadata["position"]`` /
    ``["positions"]``: an index or a list of indices) are set aside, and of the rest the one whose
    schema fits the golden call best is kept: every golden parameter declared, every required
    parameter in the golden answer, most golden parameters declared; ties go to the first listed."""
    tools = sample.tools
    if len({t.name for t in tools}) == len(tools):  # no shared name (nearly always): no grouping to do
        return tools
    groups: dict[str, list[int]] = {}
    for i, t in enumerate(tools):
        groups.setdefault(t.name, []).append(i)
    decoys = _decoy_positions(sample)
    gold_keys: dict[str, set[str]] = {}
    for g in sample.golden_answers:
        keys = set(g.acceptable) if g.acceptable is not None else set(g.parameters)
        gold_keys.setdefault(g.name, set()).update(keys)
    keep: set[int] = set()
    for name, idx in groups.items():
        if len(idx) == 1 or name not in gold_keys:
            keep.add(idx[0])
            continue
        listed = [i for i in idx if i not in decoys] or idx
        keys = gold_keys[name]
        keep.add(max(listed, key=lambda i: (_fit(sample.tools[i], keys), -i)))
    return [t for i, t in enumerate(sample.tools) if i in keep]


def _fit(tool: ToolSpec, keys: set[str]) -> tuple[bool, bool, int]:
    props = tool.properties()
    return keys <= props.keys(), set(tool.required()) <= keys, len(keys & props.keys())


def _decoy_positions(sample: Sample) -> set[int]:
    meta = sample.perturbation.metadata
    out: set[int] = set()
    for key in ("position", "positions"):
        got = meta.get(key)
        for p in got if isinstance(got, list) else [got]:
            if isinstance(p, int) and not isinstance(p, bool):
                out.add(p)
    return out


def distractors(sample: Sample) -> list[str]:
    """The distractor names a Reward perturbation put among the tools (``metadata["distractor"]``, a
    name or a list of names), whose choice is Appendix L's ``name_bias``."""
    got = sample.perturbation.metadata.get("distractor")
    if isinstance(got, str):
        return [got]
    if isinstance(got, list):
        return [str(n) for n in got]
    return []


CHECKED_AS = "bfcl_checked_as"
"""``source.extra`` key: the category name BFCL's checker dispatches on when it is not the sample's own
(a ``format_sensitivity`` entry is checked as its original id, e.g. ``live_multiple_3-1-0``)."""


def checked_category(sample: Sample) -> str:
    """The category name the BFCL checker dispatches on (``parallel`` / ``multiple`` in it, ...)."""
    return str(sample.source.extra.get(CHECKED_AS, sample.category))


def score_bfcl(sample: Sample, calls: list[ToolCall]) -> Judgement:
    """Upstream BFCL's AST checker semantics (see :mod:`robustcall.score._bfcl_ast`)."""
    err = check_bfcl(checked_category(sample), schema_tools(sample), calls, sample.golden_answers)
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


class Scored(NamedTuple):
    """A verdict without the sample's identity fields (see :func:`to_verdict`)."""

    correct: bool
    score: float
    error_mode: ErrorMode | None = None
    detail: str | None = None


PASSED = Scored(True, 1.0)
_FAILED: dict[tuple[ErrorMode, str], Scored] = {}
"""The BFCL checker's failed verdicts by (error mode, error type): few distinct ones, each built once
(building a named tuple runs Python-level code; a verdict is immutable, so one object serves all)."""


def _failed(mode: ErrorMode, err: str) -> Scored:
    key = (mode, err)
    got = _FAILED.get(key)
    if got is None:
        if len(_FAILED) >= 4096:  # error types are a fixed set; never let odd ones pile up
            _FAILED.clear()
        got = _FAILED[key] = Scored(False, 0.0, mode, err)
    return got


class SampleScorer:
    """Judges predictions for one sample; the per-sample work (the BFCL checker, golden names) is
    done once, so that scoring the same sample many times costs only the per-prediction part."""

    __slots__ = ("_checker", "_modes", "fmt", "method", "sample")

    def __init__(self, sample: Sample, fmt: OutputFormat | None = None) -> None:
        self.sample = sample
        self.method = sample.eval_config.method
        self.fmt: OutputFormat = fmt or sample_format(sample)
        # alternatives() reads golden_mode: a mode this method does not read is an error, never a fallback
        alt = alternatives(sample)
        self._checker: BfclChecker | None = None
        if SCORERS.get(self.method) is score_bfcl:
            self._checker = BfclChecker(checked_category(sample), schema_tools(sample), sample.golden_answers)
        names: list[str]
        if self.method == "tooleyes":
            names = sorted(set().union(*step_names(sample))) if sample.golden_answers else []
        else:
            names = [g.name for g in sample.golden_answers]
        self._modes = ErrorModes(
            names, sample.perturbation.mdp_category, alternatives=alt, distractors=distractors(sample)
        )

    def judge(self, raw: str, calls: list[Call], tool_calls: list[ToolCall] | None = None) -> Scored:
        """The verdict on ``calls`` (``(name, arguments)`` pairs) read from ``raw``; ``tool_calls``:
        the same calls as ``ToolCall``s when the caller has them (built otherwise, non-BFCL only).

        A call carrying an argument the parser could not read (an f-string, a lambda, ``x[0]``...:
        the ``{"__unreadable__": why}`` marker) fails, whatever the source's rule, with the detail
        ``unreadable_value: <param>: <why>``; upstream BFCL's decoder rejects such an answer too."""
        bad = unreadable_argument(calls)
        if bad is not None:
            return Scored(False, 0.0, self._modes.classify(raw, calls), bad)
        if self.method in ("bfcl_multi_turn", "bfcl_agentic"):
            if self.method == "bfcl_agentic":
                err = judge_agentic(self.sample, raw, self.sample.source.extra.get(BFCL_HANDLER) == "fc")
            else:
                err = judge_multi_turn(self.sample, raw)
            return PASSED if err is None else _failed("other", err)  # Appendix L modes read single-turn calls
        if self.sample.perturbation.type == NOOP_TYPE:
            if tool_calls is None:
                tool_calls = [ToolCall(name=name, arguments=args) for name, args in calls]
            noop = judge_noop(self.sample, tool_calls, raw)
            mode = None if noop.correct else self._modes.classify(raw, calls)
            return Scored(noop.correct, noop.score, mode, noop.detail)
        if self._checker is not None:
            err = self._checker.check(calls)
            if err is None:
                return PASSED
            return _failed(self._modes.classify(raw, calls), err)
        if tool_calls is None:
            tool_calls = [ToolCall(name=name, arguments=args) for name, args in calls]
        judged = SCORERS[self.method](self.sample, tool_calls)
        if judged.correct:
            return Scored(True, judged.score, None, judged.detail)
        return Scored(False, judged.score, self._modes.classify(raw, calls), judged.detail)

    def score_text(self, text: str) -> Scored:
        """Parse ``text`` in this sample's output format and judge the calls."""
        return self.judge(text, read_tool_calls(text, self.fmt, self.sample.tools))


def unreadable_argument(calls: list[Call]) -> str | None:
    """``unreadable_value: <name>.<param>: <why>`` for the first argument the parser could not read."""
    for name, args in calls:
        for param, value in args.items():
            if type(value) is dict and UNREADABLE in value and len(value) == 1:
                return f"unreadable_value: {name}.{param}: {value[UNREADABLE]}"
    return None


def to_verdict(sample: Sample, scored: Scored) -> Verdict:
    """The ``Verdict`` record of a :class:`Scored` result on ``sample``."""
    perturbation = sample.perturbation
    return scored_verdict(
        sample.id,
        sample.benchmark,
        perturbation.type,
        perturbation.mdp_category,
        scored.correct,
        scored.score,
        scored.error_mode,
        scored.detail,
    )


def score_prediction(sample: Sample, prediction: Prediction) -> Verdict:
    """The verdict on one prediction for one sample (``prediction.tool_calls`` already parsed)."""
    if prediction.error_kind == "infra":
        return Verdict(
            id=sample.id,
            benchmark=sample.benchmark,
            type=sample.perturbation.type,
            component=sample.perturbation.mdp_category,
            correct=None,
            infra_error=prediction.error or "infrastructure error",
        )
    calls = prediction.tool_calls
    pairs: list[Call] = [(c.name, c.arguments) for c in calls]
    scored = SampleScorer(sample).judge(prediction.raw_output, pairs, calls)
    if prediction.error_kind == "model_format" and prediction.error:
        detail = f"{scored.detail}; {prediction.error}" if scored.detail else prediction.error
        scored = scored._replace(detail=detail)
    verdict = to_verdict(sample, scored)
    if sample.perturbation.type == INJECTION_TYPE:  # attack_success is None on every other type
        attacked = attack_success(sample, calls, prediction.raw_output)
        if attacked is not None:
            verdict.attack_success = attacked
            verdict.injection_kind = injection_kind(sample)
    return verdict


def score_record(rec: PredictionRecord) -> Verdict:
    """The verdict on one prediction record (with its trial, in a run of several)."""
    verdict = score_prediction(rec, rec.prediction)
    if rec.trial is not None:
        verdict.trial = rec.trial
    return verdict


def score_records(recs: Iterable[PredictionRecord]) -> list[Verdict]:
    """Verdicts on many records, in order."""
    return [score_prediction(r, r.prediction) for r in recs]
