"""A small built benchmark and scripted-policy submissions for the leaderboard tests."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from _live_server import LiveServer, free_port
from typer.testing import CliRunner

from robustcall.cli.main import app

PG_URL = os.environ.get("ROBUSTCALL_TEST_PG_URL")


def _invoke(*args: str) -> None:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.output


@pytest.fixture(scope="session")
def lb_data(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """``bench``; ``oracle`` (every record), ``first_tool`` (every record), ``partial`` (4 sources)."""
    root = tmp_path_factory.mktemp("leaderboard")
    bench = root / "bench"
    _invoke("build", "--sources", "bfcl", "--seed", "0", "--out", str(bench))
    out = {"bench": bench}
    for name, policy, limit in (
        ("oracle", "oracle", None),
        ("first_tool", "always_first_tool", None),
        ("partial", "give_up_after_error", "4"),
    ):
        run = root / name
        _invoke(
            "run",
            "--bench",
            str(bench),
            "--model",
            f"scripted:{policy}",
            "--out",
            str(run),
            *(["--limit", limit] if limit else []),
        )
        out[name] = run / "predictions.jsonl"
    return out


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh store: a SQLite file, or a real PostgreSQL (``ROBUSTCALL_TEST_PG_URL``, set by .ci/run)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'lb.db'}"
        return
    if not PG_URL:
        pytest.skip("ROBUSTCALL_TEST_PG_URL not set (.ci/run starts PostgreSQL and sets it)")
    from sqlalchemy import create_engine, text

    engine = create_engine(PG_URL)
    with engine.begin() as conn:
        conn.execute(text("DROP TABLE IF EXISTS submissions"))
    engine.dispose()
    yield PG_URL


@pytest.fixture
def serve(lb_data: dict[str, Path], tmp_path: Path) -> Iterator[Callable[..., LiveServer]]:
    """Start ``leaderboard serve`` with extra options (and ``nofile``: its ``ulimit -n``); every
    server started is stopped at the end of the test."""
    started: list[subprocess.Popen[bytes]] = []

    def start(*options: str, nofile: int | None = None) -> LiveServer:
        port = free_port()
        cmd = [
            sys.executable, "-m", "robustcall.cli.main", "leaderboard", "serve", "--bench", str(lb_data["bench"]),
            "--db", f"sqlite:///{tmp_path / f'lb{len(started)}.db'}", "--port", str(port), *options,
        ]  # fmt: skip

        def limit_descriptors() -> None:
            if nofile is not None:
                resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))

        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, preexec_fn=limit_descriptors)
        started.append(proc)
        server = LiveServer(proc, port)
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(f"{server.base}/api/submissions", timeout=2).read()
                return server
            except OSError:
                assert proc.poll() is None and time.monotonic() < deadline, "server did not start"
                time.sleep(0.2)

    yield start
    for proc in started:
        proc.terminate()
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)
