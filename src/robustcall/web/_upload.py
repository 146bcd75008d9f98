"""Validating and scoring an uploaded predictions file against the benchmark version.

Accepted lines: our ``PredictionRecord`` (a sample plus ``prediction``) or the release record
shape (sample fields plus a ``prediction`` block). Only ``id`` and the model's own output in
``prediction`` (``raw_output``, ``tool_calls`` and the transition pass-1 fields) are taken from a
line; the sample (conversation, tools, golden answers) always comes from the server's benchmark,
and nothing verdict-like is believed: ``error`` / ``error_kind`` (an ``infra`` label included),
``latency_s`` and any verdict field are ignored. A record labelled ``infra`` is a record the model
did not answer: it counts as unanswered, like a missing one, and every unanswered record is scored
wrong (ranking uses every expected record; docs/leaderboard.md).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from pydantic import ValidationError

from robustcall.core import Prediction, PredictionRecord, Verdict
from robustcall.formats import calls_refusal
from robustcall.metrics import Summary, summarize
from robustcall.score import score_records
from robustcall.web._bench_index import BenchIndex

MAX_ERRORS = 20
"""Problems listed in one rejection message (the count of the rest is given)."""


class UploadError(ValueError):
    """The upload is rejected; the message says why, with line numbers."""


@dataclass(frozen=True)
class Coverage:
    """Which expected records a submission answers."""

    answered: int
    expected: int
    missing_by_type: dict[str, int] = field(default_factory=dict)
    """Unanswered records per type: missing from the upload, or labelled infra errors in it."""

    @property
    def partial(self) -> bool:
        return self.answered < self.expected


@dataclass(frozen=True)
class ScoredUpload:
    records: list[PredictionRecord]
    verdicts: list[Verdict]
    summary: Summary
    coverage: Coverage


def _one_json_document(text: str) -> bool:
    """Whether ``text`` is a single multi-line JSON document (``summary.json``, a JSON array),
    which read line by line would give one "not JSON" error per line."""
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if len(lines) < 2:
        return False
    try:
        json.loads(lines[0])
        return False  # the first line is a record of its own: JSONL (perhaps with bad lines)
    except json.JSONDecodeError:
        pass
    try:
        json.loads(text)
    except json.JSONDecodeError:
        return False
    return True


def parse_upload(data: bytes, bench: BenchIndex, *, max_bytes: int) -> list[PredictionRecord]:
    """Every line checked (JSON, ``id`` known to this benchmark version, no duplicate, a valid
    ``prediction`` block); raises :class:`UploadError` listing the problems, else the records."""
    if len(data) > max_bytes:
        raise UploadError(f"upload is {len(data):,} bytes; the limit is {max_bytes:,}")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UploadError(f"upload is not UTF-8 text: {exc}") from None
    if _one_json_document(text):
        raise UploadError(
            "rejected: not JSONL: the upload is one JSON document spread over several lines; "
            "upload a run's predictions.jsonl (one prediction record per line)"
        )
    problems: list[str] = []
    seen: dict[str, int] = {}
    records: list[PredictionRecord] = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            problems.append(f"line {lineno}: not JSON ({exc.msg} at column {exc.colno})")
            continue
        except RecursionError:
            problems.append(f"line {lineno}: JSON nested too deeply to read")
            continue
        except ValueError as exc:  # e.g. an integer past Python's 4,300-digit limit
            problems.append(f"line {lineno}: unreadable JSON ({str(exc)[:120]})")
            continue
        if not isinstance(obj, dict) or not isinstance(obj.get("id"), str):
            problems.append(f"line {lineno}: expected an object with a string 'id'")
            continue
        rid = obj["id"]
        sample = bench.samples.get(rid)
        if sample is None:
            problems.append(f"line {lineno}: id {rid!r} is not in benchmark version {bench.version}")
            continue
        if rid in seen:
            problems.append(f"line {lineno}: duplicate id {rid!r} (first on line {seen[rid]})")
            continue
        seen[rid] = lineno
        try:
            prediction = _model_output(Prediction.model_validate(obj.get("prediction")))
        except ValidationError as exc:
            err = exc.errors()[0]
            where = ".".join(str(p) for p in ("prediction", *err["loc"]))
            problems.append(f"line {lineno}: {where}: {err['msg']}")
            continue
        except (RecursionError, ValueError) as exc:
            problems.append(f"line {lineno}: prediction unreadable ({type(exc).__name__})")
            continue
        if prediction is None:  # labelled an infra error by the uploader: unanswered
            continue
        records.append(PredictionRecord(**dict(sample), prediction=prediction, model=str(obj.get("model", ""))))
    if problems:
        more = f" (and {len(problems) - MAX_ERRORS} more)" if len(problems) > MAX_ERRORS else ""
        raise UploadError("rejected: " + "; ".join(problems[:MAX_ERRORS]) + more)
    if not records:
        raise UploadError("rejected: the upload answers no record (none, or all labelled infrastructure errors)")
    return records


def _model_output(pred: Prediction) -> Prediction | None:
    """What the server takes of an uploaded prediction: the model's output only. ``None`` for a
    record its uploader labelled an infrastructure error (the model did not answer it)."""
    if pred.error_kind == "infra":
        return None
    calls, pass1 = pred.tool_calls, pred.pass1_tool_calls
    if calls_refusal([c.arguments for c in calls]) is not None:
        calls = []  # arguments nested past the parser's bound: unreadable output, scored as no call
    if pass1 is not None and calls_refusal([c.arguments for c in pass1]) is not None:
        pass1 = []
    return Prediction(
        raw_output=pred.raw_output,
        tool_calls=calls,
        transition_injected=pred.transition_injected,
        pass1_raw_output=pred.pass1_raw_output,
        pass1_tool_calls=pass1,
    )


UNANSWERED = "unanswered: no answer in the upload (missing, or labelled an infrastructure error)"


def unanswered_verdict(rid: str, bench: BenchIndex) -> Verdict:
    """A record the upload does not answer: wrong (``empty``), so that partial and infra-labelled
    submissions are ranked on every expected record."""
    sample = bench.samples[rid]
    return Verdict(
        id=rid,
        benchmark=sample.benchmark,
        type=sample.perturbation.type,
        component=sample.perturbation.mdp_category,
        correct=False,
        score=0.0,
        error_mode="empty",
        detail=UNANSWERED,
    )


def coverage(records: list[PredictionRecord], bench: BenchIndex) -> Coverage:
    ids = {r.id for r in records} - bench.optional
    missing = {t: len(expected - ids) for t, expected in sorted(bench.ids_by_type.items())}
    return Coverage(len(ids), bench.expected, {t: n for t, n in missing.items() if n})


def score_upload(data: bytes, bench: BenchIndex, *, max_bytes: int) -> ScoredUpload:
    """Parse, validate and score an upload with the same scorer as ``robustcall score``; every
    expected record the upload does not answer is a wrong verdict (:func:`unanswered_verdict`)."""
    answered = parse_upload(data, bench, max_bytes=max_bytes)
    cov = coverage(answered, bench)
    scored = score_records(answered)
    done = {v.id for v in scored}
    scored += [unanswered_verdict(rid, bench) for rid in bench.samples if rid not in done and rid not in bench.optional]
    verdicts = sorted(scored, key=lambda v: (v.type, v.id))
    return ScoredUpload(answered, verdicts, summarize(verdicts, seed=0), cov)
