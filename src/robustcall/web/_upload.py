"""Validating and scoring an uploaded predictions file against the benchmark version.

Accepted lines: our ``PredictionRecord`` (a sample plus ``prediction``) or the release record
shape (sample fields plus a ``prediction`` block). Only ``id`` and ``prediction`` are taken from a
line; the sample (conversation, tools, golden answers) always comes from the server's benchmark,
so an upload cannot change what it is judged against.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from pydantic import ValidationError

from robustcall.core import Prediction, PredictionRecord, Verdict
from robustcall.metrics import Summary, summarize
from robustcall.score import score_records
from robustcall.web._bench import BenchIndex

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

    @property
    def partial(self) -> bool:
        return self.answered < self.expected


@dataclass(frozen=True)
class ScoredUpload:
    records: list[PredictionRecord]
    verdicts: list[Verdict]
    summary: Summary
    coverage: Coverage


def parse_upload(data: bytes, bench: BenchIndex, *, max_bytes: int) -> list[PredictionRecord]:
    """Every line checked (JSON, ``id`` known to this benchmark version, no duplicate, a valid
    ``prediction`` block); raises :class:`UploadError` listing the problems, else the records."""
    if len(data) > max_bytes:
        raise UploadError(f"upload is {len(data):,} bytes; the limit is {max_bytes:,}")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UploadError(f"upload is not UTF-8 text: {exc}") from None
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
            prediction = Prediction.model_validate(obj.get("prediction"))
        except ValidationError as exc:
            err = exc.errors()[0]
            where = ".".join(str(p) for p in ("prediction", *err["loc"]))
            problems.append(f"line {lineno}: {where}: {err['msg']}")
            continue
        records.append(PredictionRecord(**dict(sample), prediction=prediction, model=str(obj.get("model", ""))))
    if problems:
        more = f" (and {len(problems) - MAX_ERRORS} more)" if len(problems) > MAX_ERRORS else ""
        raise UploadError("rejected: " + "; ".join(problems[:MAX_ERRORS]) + more)
    if not records:
        raise UploadError("rejected: the upload holds no prediction records")
    return records


def coverage(records: list[PredictionRecord], bench: BenchIndex) -> Coverage:
    ids = {r.id for r in records}
    missing = {t: len(expected - ids) for t, expected in sorted(bench.ids_by_type.items())}
    return Coverage(len(ids), len(bench.samples), {t: n for t, n in missing.items() if n})


def score_upload(data: bytes, bench: BenchIndex, *, max_bytes: int) -> ScoredUpload:
    """Parse, validate and score an upload with the same scorer as ``robustcall score``."""
    records = parse_upload(data, bench, max_bytes=max_bytes)
    verdicts = sorted(score_records(records), key=lambda v: (v.type, v.id))
    return ScoredUpload(records, verdicts, summarize(verdicts, seed=0), coverage(records, bench))
