"""A leaderboard server run as a child process, for the tests that need a real one (the ``serve``
fixture in conftest.py starts it)."""

from __future__ import annotations

import socket
import subprocess
from dataclasses import dataclass
from pathlib import Path


@dataclass
class LiveServer:
    """``robustcall leaderboard serve`` running as a child process on 127.0.0.1."""

    proc: subprocess.Popen[bytes]
    port: int

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def rss_mb(self) -> float:
        """The server process's resident memory, from /proc."""
        return rss_mb(self.proc.pid)

    def helpers_rss_mb(self) -> dict[int, float]:
        """Resident memory of every process below the server (the scoring process and the
        forkserver it is forked from), by pid."""
        out: dict[int, float] = {}
        todo = [self.proc.pid]
        while todo:
            parent = todo.pop()
            for pid in _children(parent):
                try:
                    out[pid] = rss_mb(pid)
                except (OSError, AssertionError):  # gone meanwhile
                    continue
                todo.append(pid)
        return out


def rss_mb(pid: int) -> float:
    """A process's resident memory, from /proc."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


def _children(pid: int) -> list[int]:
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                out.append(int(entry.name))
    return out


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])
