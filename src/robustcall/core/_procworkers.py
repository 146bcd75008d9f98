"""The long lane's worker processes (:mod:`robustcall.core._workers`): plain child interpreters that
run pickled calls read from their stdin and write pickled results to their stdout.

Not ``multiprocessing``: its workers import the parent's ``__main__`` again (a user's script without
an ``if __name__ == "__main__"`` guard fails there) and a pool's first ``submit`` waits for its fork
server on the caller's thread. A worker here is a ``python -c`` with the
parent's ``sys.path`` running :func:`serve`; it imports what a call names on its first call (a second or two, once per
worker and run) and exits when its stdin closes (the parent's exit included).
"""

from __future__ import annotations

import atexit
import contextlib
import os
import pickle
import queue
import struct
import subprocess
import sys
import threading
from typing import IO, Any

_HEADER = struct.Struct("!Q")
WORKER_NICENESS = 10
"""How much lower a worker's CPU priority is than its parent's (``os.nice``)."""


class WorkerLost(Exception):
    """A worker process could not run a call (it died, or would not start): run it elsewhere."""


def _write(out: IO[bytes], data: bytes) -> None:
    out.write(_HEADER.pack(len(data)))
    out.write(data)
    out.flush()


def _read(inp: IO[bytes]) -> bytes | None:
    head = inp.read(_HEADER.size)
    if len(head) < _HEADER.size:
        return None
    (n,) = _HEADER.unpack(head)
    data = inp.read(n)
    return data if len(data) == n else None


def run_pickled(blob: bytes) -> Any:
    """The call ``blob`` pickles, as ``(function, arguments, keyword arguments)``."""
    fn, args, kwargs = pickle.loads(blob)
    return fn(*args, **kwargs)


class _Worker:
    def __init__(self) -> None:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
        self.proc = subprocess.Popen(
            [sys.executable, "-c", "from robustcall.core._procworkers import serve; serve()"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
        )

    def call(self, blob: bytes) -> tuple[bool, Any]:
        """``(True, result)`` or ``(False, the exception the call raised)``; raises ``WorkerLost``."""
        stdin, stdout = self.proc.stdin, self.proc.stdout
        assert stdin is not None and stdout is not None
        try:
            _write(stdin, blob)
            reply = _read(stdout)
            if reply is None:
                raise WorkerLost(f"worker process {self.proc.pid} ended")
            ok, value = pickle.loads(reply)
        except (OSError, EOFError, pickle.UnpicklingError) as exc:
            self.close()
            raise WorkerLost(str(exc)) from None
        except WorkerLost:
            self.close()
            raise
        return bool(ok), value

    def close(self) -> None:
        with contextlib.suppress(OSError):
            if self.proc.stdin is not None:
                self.proc.stdin.close()
        try:
            self.proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        if self.proc.stdout is not None:
            self.proc.stdout.close()


class WorkerPool:
    """At most ``size`` worker processes, started as calls need them; :meth:`call` blocks its thread
    (the long lane's) until a worker answers."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._idle: queue.SimpleQueue[_Worker] = queue.SimpleQueue()
        self._all: list[_Worker] = []
        self._lock = threading.Lock()

    def _take(self) -> _Worker:
        try:
            return self._idle.get_nowait()
        except queue.Empty:
            pass
        with self._lock:
            if len(self._all) < self.size:
                try:
                    worker = _Worker()
                except OSError as exc:
                    raise WorkerLost(f"cannot start a worker process: {exc}") from None
                self._all.append(worker)
                return worker
        return self._idle.get()

    def call(self, blob: bytes) -> Any:
        """The pickled call's result (or the exception it raised, raised here)."""
        worker = self._take()
        try:
            ok, value = worker.call(blob)
        except WorkerLost:
            self._drop_dead(worker)
            raise
        self._idle.put(worker)
        if not ok:
            raise value
        return value

    def _drop_dead(self, lost: _Worker) -> None:
        """Forget ``lost`` and every idle worker that has ended too (killed with it, say), so that
        the next call starts a new one instead of finding them one at a time."""
        with self._lock:
            self._all.remove(lost)
            idle: list[_Worker] = []
            while True:
                try:
                    idle.append(self._idle.get_nowait())
                except queue.Empty:
                    break
            for worker in idle:
                if worker.proc.poll() is None:
                    self._idle.put(worker)
                else:
                    self._all.remove(worker)
                    worker.close()

    def close(self) -> None:
        with self._lock:
            workers, self._all = self._all, []
        for worker in workers:
            worker.close()


_pool: WorkerPool | None = None
_pool_lock = threading.Lock()


def worker_pool(size: int) -> WorkerPool:
    """The process's one pool (closed at exit)."""
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = WorkerPool(size)
            atexit.register(_pool.close)
        return _pool


def serve() -> None:
    """A worker's loop: a pickled call in, a pickled ``(ok, value)`` out, until stdin closes."""
    # below the parent: what a worker reads (and its start, importing) never takes a core from
    # the run's own process, which writes the other records
    with contextlib.suppress(OSError, AttributeError):
        os.nice(WORKER_NICENESS)
    inp = sys.stdin.buffer
    out = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # whatever a call prints goes to stderr, not the replies
    while (blob := _read(inp)) is not None:
        try:
            reply = (True, run_pickled(blob))
        except Exception as exc:  # the caller raises it, as a thread's caller would
            reply = (False, exc)
        try:
            data = pickle.dumps(reply, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as exc:  # a result or an exception that does not pickle
            data = pickle.dumps((False, RuntimeError(f"worker result not picklable: {exc!r}")))
        _write(out, data)
