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

import io
import itertools
import json
from collections.abc import Iterator
from dataclasses import dataclass, field

from pydantic import ValidationError

from robustcall.core import Prediction, PredictionRecord, Verdict
from robustcall.formats import calls_refusal
from robustcall.metrics import Summary, summarize
from robustcall.score import score_records
from robustcall.web._bench_index import BenchIndex

MAX_ERRORS = 20
"""Problems listed in one rejection message; reading an upload stops at the last of them."""


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


def _starts_a_document(first: bytes, more_lines: bool) -> bool:
    """Whether the first non-blank line opens a JSON value (``{`` or ``[``) that does not end on
    that line while more lines follow: a single JSON document spread over several lines
    (``summary.json``, a pretty-printed array), which read line by line would give one "not JSON"
    error per line. Decided from the first line alone: the whole document is never parsed."""
    head = first.strip()
    if not more_lines or not head.startswith((b"{", b"[")):
        return False
    try:
        json.loads(head)
    except json.JSONDecodeError as exc:
        return exc.pos >= len(head)  # the value ran out of input: it goes on past this line
    except (ValueError, RecursionError):  # not UTF-8, too deep, a 4,300-digit integer: read below
        return False
    return False


def _upload_lines(data: bytes) -> Iterator[tuple[int, bytes]]:
    """``(line_number, line)`` for each non-blank line of a JSONL upload, split on ``\\n`` only
    (U+2028, U+0085 and a lone ``\\r`` are characters of a line, as in JSON itself); one line in
    memory at a time."""
    for lineno, line in enumerate(io.BytesIO(data), start=1):
        if line.strip():
            yield lineno, line


@dataclass(frozen=True)
class _Answer:
    """What an accepted line gives: its record id, the model's output (``None``: labelled an infra
    error, unanswered) and the uploader's model label."""

    id: str
    prediction: Prediction | None
    model: str


def _read_line(lineno: int, line: bytes, bench: BenchIndex, seen: dict[str, int]) -> _Answer | str:
    """The line's answer, or the problem with it."""
    try:
        obj = json.loads(line.decode("utf-8"))
    except UnicodeDecodeError as exc:
        return f"line {lineno}: not UTF-8 text ({exc.reason} at byte {exc.start})"
    except json.JSONDecodeError as exc:
        return f"line {lineno}: not JSON ({exc.msg} at column {exc.colno})"
    except RecursionError:
        return f"line {lineno}: JSON nested too deeply to read"
    except ValueError as exc:  # e.g. an integer past Python's 4,300-digit limit
        return f"line {lineno}: unreadable JSON ({str(exc)[:120]})"
    if not isinstance(obj, dict) or not isinstance(obj.get("id"), str):
        return f"line {lineno}: expected an object with a string 'id'"
    rid = obj["id"]
    if rid not in bench.samples:
        return f"line {lineno}: id {rid[:200]!r} is not in benchmark version {bench.version}"
    if rid in seen:
        return f"line {lineno}: duplicate id {rid!r} (first on line {seen[rid]})"
    seen[rid] = lineno
    try:
        prediction = _model_output(Prediction.model_validate(obj.get("prediction")))
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in ("prediction", *err["loc"]))
        return f"line {lineno}: {where}: {err['msg']}"
    except (RecursionError, ValueError) as exc:
        return f"line {lineno}: prediction unreadable ({type(exc).__name__})"
    return _Answer(rid, prediction, str(obj.get("model", ""))[:200])


def parse_upload(data: bytes, bench: BenchIndex, *, max_bytes: int) -> list[PredictionRecord]:
    """Every line checked (UTF-8 JSON, ``id`` known to this benchmark version, no duplicate, a
    valid ``prediction`` block); raises :class:`UploadError` listing the problems, else the records.

    Bounded memory whatever the upload: lines are read one at a time, reading stops at the
    :data:`MAX_ERRORS`-th problem, and what is kept (the records) is bounded by the benchmark's
    size, each id at most once."""
    if len(data) > max_bytes:
        raise UploadError(f"upload is {len(data):,} bytes; the limit is {max_bytes:,}")
    problems: list[str] = []
    seen: dict[str, int] = {}
    records: list[PredictionRecord] = []
    lines = _upload_lines(data)
    first, second = next(lines, None), next(lines, None)
    if first is not None and _starts_a_document(first[1], more_lines=second is not None):
        raise UploadError(
            "rejected: not JSONL: the first line opens a JSON value that goes on over the next lines "
            "(one JSON document, such as a summary.json or a pretty-printed array); "
            "upload a run's predictions.jsonl (one prediction record per line)"
        )
    for lineno, line in itertools.chain((x for x in (first, second) if x is not None), lines):
        got = _read_line(lineno, line, bench, seen)
        if isinstance(got, str):
            problems.append(got)
            if len(problems) == MAX_ERRORS:
                break
        elif got.prediction is not None:  # None: labelled an infra error by the uploader, unanswered
            sample = bench.samples[got.id]
            records.append(PredictionRecord(**dict(sample), prediction=got.prediction, model=got.model))
    if problems:
        more = f" (reading stopped at the {MAX_ERRORS}th problem)" if len(problems) == MAX_ERRORS else ""
        raise UploadError("rejected: " + "; ".join(problems) + more)
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
