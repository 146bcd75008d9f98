"""Progress lines in a log: when stdout is not a terminal (``> run.log``, ``nohup``, CI), every
long command writes ``progress: <where> <done>/<total> <unit>, <rate>, <infra> infra errors so far,
<time left>`` to stderr at least every :data:`INTERVAL_S` seconds; on a terminal nothing changes
(``run`` and ``bench`` keep their bar).

The loops tell ``robustcall.core.progress()`` what they do; :func:`log_progress` listens for the
whole command (installed once, in ``cli.main``)."""

from __future__ import annotations

import contextlib
import math
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import TextIO

from robustcall.core import progress_to

INTERVAL_S = 10.0
"""Seconds between two progress lines at most."""
INTERVAL_ENV = "ROBUSTCALL_PROGRESS_INTERVAL_S"
"""Overrides :data:`INTERVAL_S` (tests; 0 writes a line after every unit)."""


def interval_s() -> float:
    raw = os.environ.get(INTERVAL_ENV, "").strip()
    try:
        return max(0.0, float(raw)) if raw else INTERVAL_S
    except ValueError:
        return INTERVAL_S


def duration(seconds: float) -> str:
    """``8 min 18 s``, ``45 s``, ``1 h 02 min``."""
    s = max(0, round(seconds))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60} s"
    return f"{s // 3600} h {s % 3600 // 60:02d} min"


class ProgressLog:
    """Counts what the loops tell and writes a line when ``interval_s`` has passed since the last one
    (checked on every unit, and by :meth:`tick`, which a timer thread calls while a unit is slow)."""

    def __init__(self, write: Callable[[str], None], interval_s: float, clock: Callable[[], float] = time.monotonic):
        self.write = write
        self.interval_s = interval_s
        self.clock = clock
        self._lock = threading.Lock()
        self.where = ""
        self.unit = "records"
        self.total = 0
        self.done = 0
        self.infra = 0
        self._done_at_start = 0
        self._t0 = 0.0
        self._last = 0.0
        self.started = False

    def start(self, where: str, total: int, *, done: int = 0, unit: str = "records") -> None:
        with self._lock:
            self.where, self.unit, self.total, self.done, self.infra = where, unit, total, done, 0
            self._done_at_start = done
            self._t0 = self._last = self.clock()
            self.started = True

    def advance(self, n: int = 1, *, infra: int = 0) -> None:
        with self._lock:
            self.done += n
            self.infra += infra
            self._maybe_write()

    def tick(self) -> None:
        with self._lock:
            if self.started:
                self._maybe_write()

    def _maybe_write(self) -> None:
        now = self.clock()
        if now - self._last >= self.interval_s:
            self._last = now
            self.write(self.line(now))

    def line(self, now: float) -> str:
        """The progress line at ``now``."""
        elapsed = now - self._t0
        new = self.done - self._done_at_start
        per_s = new / elapsed if elapsed > 0 else 0.0
        rate = f"{60 * per_s:.1f} {self.unit}/min" if per_s > 0 else f"no {self.unit} finished yet"
        left = self.total - self.done
        if left <= 0:
            eta = "done"
        elif per_s > 0 and math.isfinite(left / per_s):
            eta = f"about {duration(left / per_s)} left"
        else:
            eta = "time left unknown"
        pct = f" ({100 * self.done / self.total:.0f}%)" if self.total else ""
        where = f"{self.where}: " if self.where else ""
        return (
            f"progress: {where}{self.done}/{self.total} {self.unit}{pct}, {rate}, "
            f"{self.infra} infra errors so far, {eta}"
        )


@contextlib.contextmanager
def log_progress(stream: TextIO | None = None) -> Iterator[ProgressLog | None]:
    """Progress lines to ``stream`` (stderr) for everything inside, when stdout is not a terminal."""
    if sys.stdout.isatty():
        yield None
        return
    out = stream if stream is not None else sys.stderr

    def write(line: str) -> None:
        with contextlib.suppress(OSError, ValueError):  # a closed pipe must not end the run
            out.write(line + "\n")
            out.flush()

    log = ProgressLog(write, interval_s())
    stop = threading.Event()
    ticker: threading.Thread | None = None
    if log.interval_s > 0:
        poll = min(1.0, max(0.05, log.interval_s / 20))

        def run() -> None:
            while not stop.wait(poll):
                log.tick()

        ticker = threading.Thread(target=run, name="robustcall-progress", daemon=True)
        ticker.start()
    try:
        with progress_to(log):
            yield log
    finally:
        stop.set()
        if ticker is not None:
            ticker.join(timeout=2)
