"""Bring-your-own benchmark: samples in the RobustBench-TC release record shape, one per line."""

from __future__ import annotations

from pathlib import Path

from robustcall.core import JsonlError, Sample, file_sha256, iter_json_lines, validate_line
from robustcall.sources._types import LoadResult, MissingDataError


def load_jsonl_samples(path: Path) -> LoadResult:
    """Every line of ``path`` as a ``Sample``; a bad line or a repeated id raises ``JsonlError`` (file:line)."""
    path = Path(path)
    if not path.is_file():
        raise MissingDataError(f"no such JSONL file: {path}")
    samples: list[Sample] = []
    first_line: dict[str, int] = {}
    for lineno, obj in iter_json_lines(path):
        sample = validate_line(path, lineno, obj, Sample)
        if sample.id in first_line:
            raise JsonlError(path, lineno, f"duplicate id {sample.id!r} (first on line {first_line[sample.id]})")
        first_line[sample.id] = lineno
        samples.append(sample)
    return LoadResult(source="jsonl", samples=samples, skipped={}, versions={path.name: file_sha256(path)})
