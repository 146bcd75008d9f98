"""``robustcall leaderboard serve`` as a user starts it: a real process on 127.0.0.1."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_serve_accepts_an_upload_and_survives_a_restart(lb_data: dict[str, Path], tmp_path: Path) -> None:
    port = _free_port()
    db = f"sqlite:///{tmp_path / 'lb.db'}"
    cmd = [
        sys.executable,
        "-m",
        "robustcall.cli.main",
        "leaderboard",
        "serve",
        "--bench",
        str(lb_data["bench"]),
        "--db",
        db,
        "--port",
        str(port),
    ]
    base = f"http://127.0.0.1:{port}/api/submissions"

    def wait_ready(proc: subprocess.Popen[bytes]) -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                urllib.request.urlopen(base, timeout=2).read()
                return
            except (urllib.error.URLError, ConnectionError):
                assert proc.poll() is None, "server exited"
                time.sleep(0.2)
        raise AssertionError("server did not start")

    env = os.environ | {"ROBUSTCALL_ADMIN_TOKEN": "tok"}
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_ready(proc)
        req = urllib.request.Request(base + "?model=cli", data=lb_data["partial"].read_bytes(), method="POST")
        assert json.loads(urllib.request.urlopen(req, timeout=60).read())["model"] == "cli"
    finally:
        proc.terminate()
        proc.wait(20)
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_ready(proc)
        rows = json.loads(urllib.request.urlopen(base, timeout=10).read())
        assert [r["model"] for r in rows] == ["cli"]
    finally:
        proc.terminate()
        proc.wait(20)
