"""Run ``llama-server`` as a child process on a free 127.0.0.1 port, and make sure it stops.

Stopping: ``stop()`` (terminate, then kill after a grace period) from ``LocalModel.aclose()``; an
``atexit`` hook for a process that exits without closing; and on Linux ``PR_SET_PDEATHSIG`` so the
kernel sends the child SIGTERM if we die without running either (SIGKILL, a crash).
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import ctypes
import signal
import socket
import subprocess
import sys
import time
import weakref
from collections.abc import Callable, Sequence
from pathlib import Path

from robustcall.core import NotReadyError
from robustcall.models._http import HttpClient, HttpConnectionError


class ServerStartError(NotReadyError):
    """llama-server did not become healthy; the message carries the tail of its log."""


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port nothing listens on right now (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def _die_with_parent() -> Callable[[], None] | None:
    """A ``preexec_fn`` asking Linux to SIGTERM the child when its parent dies (None elsewhere)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
    except OSError:
        return None
    pr_set_pdeathsig = 1

    def preexec() -> None:
        libc.prctl(pr_set_pdeathsig, signal.SIGTERM, 0, 0, 0)

    return preexec


def _stop_process(proc: subprocess.Popen[bytes], grace_s: float) -> None:
    if proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout=grace_s)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=grace_s)


def cpu_has_amx(cpuinfo: Path = Path("/proc/cpuinfo")) -> bool:
    """Whether the CPU advertises Intel AMX. llama.cpp's native build then compiles its AMX weight
    buffers, and on such machines here (Xeon, AMX in /proc/cpuinfo) llama-server 11434 segfaults in
    ``ggml_backend_amx_mul_mat`` while warming up; ``--no-repack`` keeps weights in plain buffers."""
    try:
        text = cpuinfo.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return any(line.startswith("flags") and " amx_int8" in line for line in text.splitlines())


class LlamaServer:
    """One ``llama-server`` child serving one GGUF with our chat template."""

    def __init__(
        self,
        binary: Path,
        model: Path,
        *,
        chat_template: Path | None,
        parallel: int,
        threads: int,
        ctx_size: int = 8192,
        host: str = "127.0.0.1",
        log_dir: Path,
        extra_args: Sequence[str] = (),
        startup_timeout_s: float = 180.0,
        stop_grace_s: float = 5.0,
        port: int | None = None,
    ) -> None:
        self.binary = binary
        self.model = model
        self.chat_template = chat_template
        self.parallel = max(1, parallel)
        self.threads = max(1, threads)
        self.ctx_size = ctx_size
        self.host = host
        self.log_dir = log_dir
        self.extra_args = list(extra_args)
        self.startup_timeout_s = startup_timeout_s
        self.stop_grace_s = stop_grace_s
        self.fixed_port = port
        """The port to listen on (``model serve --port``, ``ROBUSTCALL_LOCAL_PORT``); ``None``: a free one."""
        self.port: int | None = None
        self.log_path: Path | None = None
        self._proc: subprocess.Popen[bytes] | None = None
        self._finalizer: weakref.finalize[..., LlamaServer] | None = None

    @property
    def base_url(self) -> str:
        if self.port is None:
            raise RuntimeError("llama-server is not started")
        return f"http://{self.host}:{self.port}"

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def command(self, port: int) -> list[str]:
        """The command line (see tools/server/README.md of llama.cpp for each flag)."""
        cmd = [
            str(self.binary),
            "-m",
            str(self.model),
            "--host",
            self.host,
            "--port",
            str(port),
            "--jinja",
        ]
        if self.chat_template is not None:
            cmd += ["--chat-template-file", str(self.chat_template)]
        cmd += [
            "-c",
            str(self.ctx_size),
            "-np",
            str(self.parallel),
            "--kv-unified",  # the slots share the whole context instead of ctx_size / parallel each
            "--threads",
            str(self.threads),
            *(["--no-repack"] if cpu_has_amx() else []),
            *self.extra_args,
        ]
        return cmd

    def _log_tail(self, n: int = 30) -> str:
        if self.log_path is None or not self.log_path.exists():
            return ""
        lines = self.log_path.read_text(encoding="utf-8", errors="replace").splitlines()
        return "\n".join(lines[-n:])

    def _spawn(self) -> None:
        self.port = self.fixed_port if self.fixed_port is not None else free_port(self.host)
        self.log_dir.mkdir(parents=True, exist_ok=True)
        self.log_path = self.log_dir / f"llama-server-{self.port}.log"
        with open(self.log_path, "wb") as log:
            self._proc = subprocess.Popen(
                self.command(self.port),
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                preexec_fn=_die_with_parent(),
            )
        self._finalizer = weakref.finalize(self, _stop_process, self._proc, self.stop_grace_s)
        atexit.register(self.stop)

    async def _wait_healthy(self) -> bool:
        """Poll ``/health`` until 200; False when the process exited first (e.g. port taken)."""
        deadline = time.monotonic() + self.startup_timeout_s
        client = HttpClient(self.base_url, limit=1, trust_env=False)  # our own server: never via a proxy
        try:
            while time.monotonic() < deadline:
                if not self.running:
                    return False
                with contextlib.suppress(HttpConnectionError, TimeoutError):
                    if (await client.request("GET", "/health", timeout_s=5)).status == 200:
                        return True
                await asyncio.sleep(0.2)
        finally:
            await client.aclose()
        self.stop()
        raise ServerStartError(
            f"llama-server not healthy after {self.startup_timeout_s:g}s on {self.base_url}; "
            f"log {self.log_path}:\n{self._log_tail()}"
        )

    async def start(self, attempts: int = 3) -> str:
        """Start the server and wait until it answers ``/health``; returns its base URL."""
        if self.running:
            return self.base_url
        if not self.binary.is_file():
            raise ServerStartError(f"{self.binary} not found: run `robustcall model setup`")
        for _ in range(attempts):
            self._spawn()
            if await self._wait_healthy():
                return self.base_url
            tail = self._log_tail()
            self.stop()
            port_trouble = "bind" in tail.lower() or "address" in tail.lower()
            if port_trouble and self.fixed_port is not None:
                raise ServerStartError(
                    f"llama-server could not listen on {self.host}:{self.fixed_port} (taken?): give another port; "
                    f"log {self.log_path}"
                )
            if not port_trouble:
                break  # not a port race: do not try again
        raise ServerStartError(f"llama-server exited during startup; log {self.log_path}:\n{self._log_tail()}")

    def stop(self) -> None:
        """Terminate the server (kill after a grace period); safe to call more than once."""
        proc, self._proc = self._proc, None
        if proc is not None:
            _stop_process(proc, self.stop_grace_s)
        if self._finalizer is not None:
            self._finalizer.detach()
            self._finalizer = None
        with contextlib.suppress(Exception):
            atexit.unregister(self.stop)
