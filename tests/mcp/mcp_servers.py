"""Reference MCP servers from PyPI for the proxy tests, and a client that drives calls through it.

``mcp-server-time`` and ``mcp-server-git`` are installed by the ``mcp`` extra (both speak mcp 2.x).
``mcp-server-sqlite`` (last release 2025.4.25) only runs on mcp 1.x, so it lives in its own virtual
environment in the user cache, built on first use; the proxy (mcp 2.x) talks to it over stdio with
the handshake-era protocol.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from mcp import Client, StdioServerParameters
from robustcall.core import cache_dir

BIN = Path(sys.executable).parent
SQLITE_VENV_PINS = ("mcp-server-sqlite==2025.4.25", "mcp>=1.6,<2")


def time_server() -> str:
    return shlex.join([str(BIN / "mcp-server-time"), "--local-timezone", "UTC"])


def git_server(repo: Path) -> str:
    return shlex.join([str(BIN / "mcp-server-git"), "--repository", str(repo)])


def sqlite_venv() -> Path | None:
    """The cached mcp-1.x virtual environment with mcp-server-sqlite (built once), or None."""
    venv = cache_dir() / "mcp-sqlite-venv"
    exe = venv / "bin" / "mcp-server-sqlite"
    if exe.exists():
        return venv
    try:
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, capture_output=True, timeout=120)
        subprocess.run(
            [str(venv / "bin" / "pip"), "install", "-q", *SQLITE_VENV_PINS],
            check=True,
            capture_output=True,
            timeout=600,
        )
    except (subprocess.SubprocessError, OSError):
        return None
    return venv if exe.exists() else None


def sqlite_server(venv: Path, db: Path) -> str:
    return shlex.join([str(venv / "bin" / "mcp-server-sqlite"), "--db-path", str(db)])


def make_git_repo(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "GIT_AUTHOR_DATE": "2024-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2024-01-01T00:00:00Z"}
    ident = ["-c", "user.email=t@example.com", "-c", "user.name=Tester"]
    subprocess.run(["git", "init", "-q", "-b", "main", str(path)], check=True)
    (path / "a.txt").write_text("hello\n")
    subprocess.run(["git", "-C", str(path), "add", "a.txt"], check=True)
    subprocess.run(["git", "-C", str(path), *ident, "commit", "-qm", "first"], check=True, env=env)
    (path / "a.txt").write_text("hello\nworld\n")
    return path


def proxy_params(upstream: str, *args: str) -> StdioServerParameters:
    """The proxy started through the CLI as a stdio MCP server."""
    return StdioServerParameters(
        command=str(BIN / "robustcall"),
        args=["faults", "mcp-proxy", "--upstream", upstream, *args],
        env=dict(os.environ),  # the SDK's default environment drops PYTHONPATH: run the sources under test
    )


@asynccontextmanager
async def client(target: StdioServerParameters | str, **kw: Any) -> AsyncIterator[Client]:
    async with Client(target, cache=None, read_timeout_seconds=60, **kw) as c:
        yield c


def upstream_params(command: str) -> StdioServerParameters:
    argv = shlex.split(command)
    return StdioServerParameters(command=argv[0], args=argv[1:])
