"""The llama-server lifecycle (start on a free port, /health, stop, die with us) on a fake binary."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from robustcall.core import Message
from robustcall.models import ModelRequest
from robustcall.models.local import (
    MODEL_SHA256,
    LlamaServer,
    LocalModel,
    LocalModelNotReady,
    ServerStartError,
    local_paths,
)
from robustcall.models.local import _server as server_module
from robustcall.models.local._artifacts import write_marker

FAKE_SERVER = textwrap.dedent(
    """\
    #!{python}
    # A stand-in for llama-server: 503 on /health for 0.3 s, then 200; chat answers count the chat
    # requests and echo the flags.
    import json, sys, time
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
    args = sys.argv[1:]
    if "--version" in args:
        print("version: fake"); sys.exit(0)
    if "--fail" in args:
        print("error: failed to load model"); sys.exit(1)
    port = int(args[args.index("--port") + 1])
    t0 = time.monotonic()
    asked = [0]
    class H(BaseHTTPRequestHandler):
        def log_message(self, *a): pass
        def _send(self, code, obj):
            data = json.dumps(obj).encode()
            self.send_response(code); self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data))); self.end_headers(); self.wfile.write(data)
        def do_GET(self):
            ok = time.monotonic() - t0 > 0.3
            self._send(200 if ok else 503, {{"status": "ok" if ok else "loading"}})
        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            asked[0] += 1
            text = f"n={{asked[0]}} args=" + " ".join(args) + " tools=" + str("tools" in body)
            msg = {{"role": "assistant", "content": text}}
            self._send(200, {{"choices": [{{"index": 0, "message": msg}}]}})
    print("listening", flush=True)
    ThreadingHTTPServer(("127.0.0.1", port), H).serve_forever()
    """
)


@pytest.fixture()
def fake_binary(tmp_path: Path) -> Path:
    path = tmp_path / "llama-server"
    path.write_text(FAKE_SERVER.format(python=sys.executable))
    path.chmod(0o755)
    return path


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie still answers kill(0): check its state
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except OSError:
        return False


def _wait_dead(pid: int, timeout: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not _alive(pid):
            return True
        time.sleep(0.05)
    return False


def _server(binary: Path, tmp_path: Path, *extra: str) -> LlamaServer:
    return LlamaServer(
        binary, tmp_path / "m.gguf", chat_template=None, parallel=2, threads=1, log_dir=tmp_path, extra_args=extra
    )


def test_server_starts_on_a_free_port_waits_for_health_and_stops(fake_binary, tmp_path):
    server = _server(fake_binary, tmp_path)
    url = asyncio.run(server.start())
    assert url.startswith("http://127.0.0.1:") and server.running
    proc = server._proc
    assert proc is not None
    cmd = server.command(server.port or 0)
    assert cmd[cmd.index("-np") + 1] == "2" and "--jinja" in cmd and "--kv-unified" in cmd
    server.stop()
    assert proc.poll() is not None and not server.running
    server.stop()  # idempotent


def test_a_server_that_exits_at_startup_reports_its_log(fake_binary, tmp_path):
    server = _server(fake_binary, tmp_path, "--fail")
    with pytest.raises(ServerStartError, match="failed to load model"):
        asyncio.run(server.start())
    assert not server.running


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux-only")
@pytest.mark.parametrize("how", ["sigkill", "exit"])
def test_the_server_dies_with_its_parent(fake_binary, tmp_path, how):
    script = textwrap.dedent(
        f"""
        import asyncio, os, signal, sys
        from pathlib import Path
        from robustcall.models.local import LlamaServer
        s = LlamaServer(Path({str(fake_binary)!r}), Path("m"), chat_template=None, parallel=1, threads=1,
                        log_dir=Path({str(tmp_path)!r}))
        asyncio.run(s.start())
        print(s._proc.pid, flush=True)
        if {how!r} == "sigkill":
            os.kill(os.getpid(), signal.SIGKILL)
        sys.exit(0)  # without stop(): atexit must stop it
        """
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=30)
    pid = int(out.stdout.split()[0])
    assert _wait_dead(pid), f"llama-server (pid {pid}) outlived its parent ({how})"


def _install(fake_binary: Path, tmp_path: Path) -> None:
    paths = local_paths(tmp_path)
    paths.gguf.parent.mkdir(parents=True)
    paths.gguf.write_bytes(b"gguf")
    write_marker(paths.gguf, MODEL_SHA256)
    paths.server.parent.mkdir(parents=True)
    paths.server.write_bytes(fake_binary.read_bytes())
    paths.server.chmod(0o755)
    write_marker(paths.server, "x")


def test_local_model_starts_the_server_lazily_and_aclose_stops_it(fake_binary, tmp_path, sample):
    _install(fake_binary, tmp_path)

    async def go() -> str:
        model = LocalModel(root=tmp_path, concurrency=3, threads=1)
        assert model.mode == "prompt" and not model.server.running
        try:
            req = ModelRequest(messages=[Message(role="user", content="hi")], tools=sample.tools, sample=sample)
            r = await model.complete(req)
            assert r.error is None, r.error
            return r.text
        finally:
            await model.aclose()
            assert not model.server.running

    text = asyncio.run(go())
    assert "--chat-template-file" in text and "qwen_tools.jinja" in text and "-np 3" in text
    assert text.endswith("tools=False")  # prompt mode: tools were rendered by the caller, not sent


@pytest.mark.parametrize(
    ("temperature", "reuse", "expected"),
    [
        (0.0, True, ["n=1", "n=1", "n=2", "n=1"]),  # the identical request answered once
        (0.0, False, ["n=1", "n=2", "n=3", "n=4"]),
        (0.7, True, ["n=1", "n=2", "n=3", "n=4"]),  # sampled answers are never reused
    ],
)
def test_local_model_reuses_the_answer_of_an_identical_request(
    fake_binary, tmp_path, sample, temperature, reuse, expected
):
    from robustcall.models import ModelSettings

    _install(fake_binary, tmp_path)
    hi = [Message(role="user", content="hi")]
    requests = [
        ModelRequest(messages=hi, tools=sample.tools, sample=sample),
        ModelRequest(messages=hi, tools=sample.tools, sample=sample.model_copy(update={"id": "other"})),
        ModelRequest(messages=hi, tools=sample.tools, sample=sample, max_tokens=64),  # another body
        ModelRequest(messages=hi, tools=sample.tools, sample=sample),
    ]

    async def go() -> tuple[list[str], list[float], int]:
        model = LocalModel(ModelSettings(temperature=temperature), root=tmp_path, threads=1, reuse_answers=reuse)
        try:
            got = [await model.complete(r) for r in requests]
            return [r.text.split()[0] for r in got], [r.latency_s for r in got], model.reused
        finally:
            await model.aclose()

    texts, latencies, reused = asyncio.run(go())
    assert texts == expected
    assert reused == expected.count("n=1") - 1
    assert [lat == 0.0 for lat in latencies] == [i > 0 and t == "n=1" for i, t in enumerate(expected)]


def test_local_model_not_set_up_says_what_to_run(tmp_path):
    from robustcall.models.local import LocalModelNotReady

    with pytest.raises(LocalModelNotReady, match="robustcall model setup"):
        LocalModel(root=tmp_path)


@pytest.mark.parametrize(
    ("flags", "amx"),
    [("fpu avx2 avx512_vnni amx_bf16 amx_tile amx_int8 avx512_fp16", True), ("fpu avx2 avx512_vnni", False)],
)
def test_an_amx_cpu_gets_plain_weight_buffers(tmp_path, monkeypatch, flags, amx):
    info = tmp_path / "cpuinfo"
    info.write_text(f"processor\t: 0\nflags\t\t: {flags}\n\nprocessor\t: 1\nflags\t\t: {flags}\n")
    assert server_module.cpu_has_amx(info) is amx
    assert server_module.cpu_has_amx(tmp_path / "missing") is False
    monkeypatch.setattr(server_module, "cpu_has_amx", lambda: amx)
    server = LlamaServer(
        Path("llama-server"), Path("m.gguf"), chat_template=None, parallel=1, threads=1, log_dir=tmp_path
    )
    assert ("--no-repack" in server.command(8080)) is amx


def test_the_threads_variable_fixes_llama_servers_threads(fake_binary, tmp_path, monkeypatch):
    _install(fake_binary, tmp_path)
    monkeypatch.setenv("ROBUSTCALL_LLAMA_THREADS", "2")
    model = LocalModel(root=tmp_path)
    assert model.server.threads == 2 and "--threads 2" in " ".join(model.server.command(1))
    assert LocalModel(root=tmp_path, threads=1).server.threads == 1  # an explicit count wins
    for bad in ("0", "two", "-1"):
        monkeypatch.setenv("ROBUSTCALL_LLAMA_THREADS", bad)
        with pytest.raises(LocalModelNotReady, match="ROBUSTCALL_LLAMA_THREADS"):
            LocalModel(root=tmp_path)
