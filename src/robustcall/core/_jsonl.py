"""JSONL reading and append-only writing with errors that name the file and line."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, TextIO, TypeVar

import orjson
from pydantic import BaseModel, ValidationError

from robustcall.core._errors import InputError

M = TypeVar("M", bound=BaseModel)


class JsonlError(InputError):
    """A line of a JSONL file could not be read; the message names the file and line."""

    def __init__(self, path: Path | str, line: int, reason: str) -> None:
        super().__init__(f"{path}:{line}: {reason}")
        self.path = str(path)
        self.line = line
        self.reason = reason


def dump_record(record: BaseModel) -> str:
    """One canonical JSON line (no trailing newline): aliases, no nulls, stable key order."""
    return record.model_dump_json(by_alias=True, exclude_none=True)


def jsonl_lines(text: str) -> list[str]:
    """The lines of a JSONL text, split on ``\\n`` only. JSON strings may hold U+2028, U+2029,
    U+0085 and other characters that ``str.splitlines`` (and Python's universal newlines) break
    lines at; JSONL's only line break is ``\\n`` (a ``\\r`` before it is JSON whitespace)."""
    return text.split("\n")


def open_jsonl(path: Path | str) -> TextIO:
    """``path`` opened for reading as UTF-8 text whose lines end at ``\\n`` only (see :func:`jsonl_lines`)."""
    return open(path, encoding="utf-8", newline="\n")


def iter_json_lines(path: Path | str) -> Iterator[tuple[int, Any]]:
    """Yield ``(line_number, parsed_json)`` for every non-blank line (lines end at ``\n`` only)."""
    with open(path, "rb") as fh:
        for lineno, raw in enumerate(fh, start=1):
            if not raw.strip():
                continue
            yield lineno, json_line(path, lineno, raw)


def json_value(text: str | bytes) -> Any:
    """``json.loads(text)``, by ``orjson`` (several times faster) where it reads the text; what it
    refuses (``NaN``, integers beyond 64 bits, invalid JSON) goes to ``json.loads``, whose value or
    ``JSONDecodeError`` is the answer."""
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return json.loads(text)


def json_line(path: Path | str, lineno: int, raw: bytes) -> Any:
    """The JSON value of one line of a JSONL file, read as UTF-8 (JSONL's encoding: ``json.loads``
    would guess another from the bytes, and name a ``utf-16-le`` codec for a binary line); raises
    ``JsonlError`` naming the file and line."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise JsonlError(
            path, lineno, f"not UTF-8 text (byte 0x{raw[exc.start]:02x} at column {exc.start + 1})"
        ) from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise JsonlError(path, lineno, f"invalid JSON ({exc.msg} at column {exc.colno})") from None


TORN_LAST_LINE = "torn last line"
"""What ``validate``, ``score`` and ``report`` call a last line without its newline (a run killed
mid-write leaves one)."""


def torn_last_line(path: Path | str, block: int = 1 << 20) -> int | None:
    """The number of ``path``'s last line when it is torn (no newline after it: what a process
    killed mid-write leaves), else ``None`` (also for an empty or absent file)."""
    p = Path(path)
    if not p.is_file() or p.stat().st_size == 0:
        return None
    with open(p, "rb") as fh:
        fh.seek(-1, os.SEEK_END)
        if fh.read(1) == b"\n":
            return None
        fh.seek(0)
        lines = 1
        while chunk := fh.read(block):
            lines += chunk.count(b"\n")
    return lines


def read_jsonl(path: Path | str, model: type[M]) -> list[M]:
    """Read and validate every line; a bad line raises ``JsonlError`` naming file, line and field."""
    out: list[M] = []
    for lineno, obj in iter_json_lines(path):
        out.append(validate_line(path, lineno, obj, model))
    return out


def validate_line(path: Path | str, lineno: int, obj: Any, model: type[M]) -> M:
    try:
        return model.model_validate(obj)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "<record>"
        raise JsonlError(path, lineno, f"field {where}: {first['msg']}") from None


def read_checkpoint(path: Path | str, model: type[M]) -> list[M]:
    """Read an append-only stream written by ``JsonlAppender``, tolerating a torn last line.

    A process killed mid-write leaves a partial final line; it is cut off (the file is truncated
    to the last complete record) so that resuming appends after whole records only.
    """
    return list(iter_checkpoint(path, model))


def iter_checkpoint(path: Path | str, model: type[M]) -> Iterator[M]:
    """:func:`read_checkpoint` one record at a time (memory: one line, whatever the file's size).

    The torn last line, if any, is cut off before the first record is read."""
    p = Path(path)
    if not p.exists():
        return
    _cut_torn_tail(p)
    with open(p, "rb") as fh:
        for lineno, raw in enumerate(fh, start=1):
            if not raw.strip():
                continue
            yield _parse_line(p, lineno, raw, model)


def _parse_line(path: Path, lineno: int, raw: bytes, model: type[M]) -> M:
    """One line as ``model``: pydantic's own JSON parser first (one pass, no Python dicts built:
    most of the time of reading a large run); a line it refuses goes through ``json_line`` and
    ``validate_line`` so that the error names the file, line and field as they do."""
    try:
        return model.model_validate_json(raw)
    except ValidationError:
        return validate_line(path, lineno, json_line(path, lineno, raw), model)


def _cut_torn_tail(p: Path, block: int = 1 << 16) -> None:
    """Truncate ``p`` after its last newline (reading only the tail of the file)."""
    size = p.stat().st_size
    if size == 0:
        return
    with open(p, "r+b") as fh:
        end = size
        while end > 0:
            start = max(0, end - block)
            fh.seek(start)
            chunk = fh.read(end - start)
            if end == size and chunk.endswith(b"\n"):
                return  # whole
            at = chunk.rfind(b"\n")
            if at >= 0:
                fh.truncate(start + at + 1)
                return
            end = start
        fh.truncate(0)


class JsonlAppender:
    """Append records one whole line per ``write(2)`` on an ``O_APPEND`` descriptor: no user-space
    buffer, so a killed process loses at most the line in flight (``fsync`` also survives a crash
    of the machine)."""

    def __init__(self, path: Path | str, *, fsync: bool = False) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        self._fsync = fsync

    def write(self, record: BaseModel) -> None:
        self.write_line(dump_record(record))

    def write_line(self, line: str) -> None:
        """Append one already-serialised record (``line`` without its newline)."""
        self.write_lines([line])

    def write_lines(self, lines: list[str]) -> None:
        """Append several already-serialised records in one system call."""
        data = "".join(line + "\n" for line in lines).encode("utf-8")
        while data:  # a regular file takes it in one call; a short write only on a full disk
            data = data[os.write(self._fd, data) :]
        if self._fsync:
            os.fsync(self._fd)

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def __enter__(self) -> JsonlAppender:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def write_jsonl(path: Path | str, records: Iterable[BaseModel]) -> int:
    """Write records to a fresh file atomically (temp file, fsync, rename); return the count."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_name(p.name + TMP_SUFFIX)
    n = 0
    with open(tmp, "w", encoding="utf-8", newline="\n") as fh:
        for r in records:
            fh.write(dump_record(r) + "\n")
            n += 1
        fh.flush()
        os.fsync(fh.fileno())
    _replace(tmp, p)
    return n


TMP_SUFFIX = ".tmp"
"""What an atomic write's temporary file adds to the name (``run.json.tmp``); one left by a kill is
removed by :func:`remove_stale_tmp` when the run resumes."""


def atomic_write_text(path: Path | str, text: str) -> None:
    """Write ``text`` so that ``path`` holds either its old content or all of ``text``, never a part:
    a temporary file beside it, fsync, rename over it, fsync of the directory."""
    atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_bytes(path: Path | str, data: bytes) -> None:
    """:func:`atomic_write_text` for bytes."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_name(p.name + TMP_SUFFIX)
    with open(tmp, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    _replace(tmp, p)


def _replace(tmp: Path, p: Path) -> None:
    os.replace(tmp, p)
    try:  # the rename itself survives a crash once the directory is synced
        fd = os.open(p.parent, os.O_RDONLY)
    except OSError:  # e.g. a platform without directory descriptors
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def remove_stale_tmp(directory: Path | str) -> list[Path]:
    """Delete the temporary files (``*.tmp``) an interrupted atomic write left in ``directory``;
    returns them."""
    d = Path(directory)
    if not d.is_dir():
        return []
    stale = sorted(d.glob("*" + TMP_SUFFIX))
    for f in stale:
        f.unlink(missing_ok=True)
    return stale
