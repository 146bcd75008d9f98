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
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        raise AssertionError("no VmRSS")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])
