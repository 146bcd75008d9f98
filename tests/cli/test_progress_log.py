"""Progress lines in a log (stdout not a terminal): what they say, how often, for every long command."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from robustcall.cli._progress import INTERVAL_ENV, ProgressLog, duration, log_progress
from robustcall.cli.main import app
from robustcall.core import progress

LINE = re.compile(
    r"^progress: (?P<where>.+?): (?P<done>\d+)/(?P<total>\d+) (?P<unit>\w+)(?: \(\d+%\))?, "
    r"(?:[\d.]+ \w+/min|no \w+ finished yet), (?P<infra>\d+) infra errors so far, "
    r"(?:about .+ left|done|time left unknown)$"
)


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_line_says_done_total_rate_infra_errors_and_time_left() -> None:
    lines: list[str] = []
    clock = Clock()
    log = ProgressLog(lines.append, 10.0, clock)
    log.start("runs/A", 184, done=20)
    for _ in range(6):
        clock.now += 1.5
        log.advance()
    assert lines == []  # 9 s: not yet
    clock.now += 1.5
    log.advance(infra=1)  # 10.5 s, 7 records: 40 a minute, 157 left
    assert lines == [
        "progress: runs/A: 27/184 records (15%), 40.0 records/min, 1 infra errors so far, about 3 min 56 s left"
    ]
    clock.now += 9.9
    log.tick()
    assert len(lines) == 1
    clock.now += 0.1  # a slow record: the timer's tick writes the line anyway
    log.tick()
    assert lines[-1] == (
        "progress: runs/A: 27/184 records (15%), 20.5 records/min, 1 infra errors so far, about 7 min 40 s left"
    )


def test_before_the_first_unit_the_time_left_is_unknown() -> None:
    lines: list[str] = []
    clock = Clock()
    log = ProgressLog(lines.append, 10.0, clock)
    log.tick()
    assert lines == []  # nothing started: nothing to say
    log.start("pool", 12, unit="draws")
    clock.now += 10
    log.tick()
    assert lines == ["progress: pool: 0/12 draws (0%), no draws finished yet, 0 infra errors so far, time left unknown"]


@pytest.mark.parametrize(("s", "text"), [(0.4, "0 s"), (45, "45 s"), (498, "8 min 18 s"), (3720, "1 h 02 min")])
def test_durations_read_as_a_person_says_them(s: float, text: str) -> None:
    assert duration(s) == text


def test_on_a_terminal_nothing_listens(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    with log_progress() as log:
        assert log is None
        progress().start("x", 1)  # told to nobody
        progress().advance()


def _lines(output: str) -> list[re.Match[str]]:
    got = [LINE.match(line) for line in output.splitlines() if line.startswith("progress: ")]
    assert got and all(m is not None for m in got), output
    return [m for m in got if m is not None]


def _invoke(monkeypatch: pytest.MonkeyPatch, *args: str) -> str:
    monkeypatch.setenv(INTERVAL_ENV, "0")  # a line after every unit
    res = CliRunner().invoke(app, list(args))
    assert res.exit_code == 0, res.output
    return res.output


def test_bench_in_a_log_writes_a_line_per_record_at_interval_zero(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = _invoke(monkeypatch, "bench", "--model", "scripted:oracle", "--limit", "1", "--out", str(tmp_path / "b"))
    lines = _lines(out)
    assert [int(m["done"]) for m in lines] == list(range(1, 24))  # 23 types on one clean sample
    assert {(m["where"], m["total"], m["unit"], m["infra"]) for m in lines} == {
        (str(tmp_path / "b" / "run"), "23", "records", "0")
    }
    assert lines[-1].group(0).endswith("0 infra errors so far, done")


def test_without_the_override_a_fast_command_writes_no_progress_line(tmp_path: Path) -> None:
    res = CliRunner().invoke(app, ["bench", "--model", "scripted:oracle", "--limit", "1", "--out", str(tmp_path / "b")])
    assert res.exit_code == 0 and "progress: " not in res.output  # 10 s between lines: the run took less


def test_faults_and_pipe_runs_count_episodes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = _invoke(
        monkeypatch, "faults", "run", "--env", "maze", "--model", "scripted:expert", "--limit", "2",
        "--out", str(tmp_path / "f"),
    )  # fmt: skip
    lines = _lines(out)
    assert [(m["done"], m["total"], m["unit"]) for m in lines] == [("1", "2", "episodes"), ("2", "2", "episodes")]
    out = _invoke(
        monkeypatch, "pipe", "run", "--env", "maze", "--level", "synonym", "--model", "scripted:expert",
        "--limit", "3", "--out", str(tmp_path / "p"),
    )  # fmt: skip
    assert [m["done"] for m in _lines(out)] == ["1", "2", "3"]


def test_rm_build_bench_counts_draws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = _invoke(
        monkeypatch, "rm", "build-bench", "-g", "scripted:oracle", "-g", "scripted:never_call", "--queries", "3",
        "-o", str(tmp_path / "rb.jsonl"),
    )  # fmt: skip
    lines = _lines(out)
    assert lines[-1]["done"] == lines[-1]["total"] == "6" and {m["unit"] for m in lines} == {"draws"}
