"""``robustcall model serve`` (the embedded model for other tools) and a fixed port for ``--model local``,
on a stand-in llama-server."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest
from test_local_server import FAKE_SERVER, _install, _wait_dead
from typer.testing import CliRunner

from robustcall.cli.main import app
from robustcall.core import PredictionRecord, read_checkpoint
from robustcall.models.local import free_port

SRC = Path(__file__).resolve().parents[2] / "src"


@pytest.fixture()
def stand_in(tmp_path: Path) -> Path:
    """The stand-in llama-server of test_local_server (echoes its flags in every answer)."""
    path = tmp_path / "llama-server"
    path.write_text(FAKE_SERVER.format(python=sys.executable))
    path.chmod(0o755)
    return path


def _chat(base_url: str) -> str:
    body = json.dumps({"model": "any", "messages": [{"role": "user", "content": "hi"}]}).encode()
    req = urllib.request.Request(f"{base_url}/chat/completions", body, {"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as resp:
        return str(json.loads(resp.read())["choices"][0]["message"]["content"])


def test_serve_prints_the_base_url_serves_local_flags_and_stops_on_ctrl_c(stand_in: Path, tmp_path: Path) -> None:
    _install(stand_in, tmp_path)
    port = free_port()
    env = {**os.environ, "ROBUSTCALL_CACHE": str(tmp_path), "PYTHONPATH": str(SRC)}
    cmd = [sys.executable, "-m", "robustcall.cli.main", "model", "serve", "--port", str(port)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().strip()
        assert url == f"http://127.0.0.1:{port}/v1"
        text = _chat(url)  # what any OpenAI client gets; the stand-in echoes llama-server's flags
        assert f"--host 127.0.0.1 --port {port} --jinja --chat-template-file" in text
        assert "qwen_tools.jinja" in text and "-np 1 --kv-unified" in text
        server_pid = int(next(p for p in os.listdir("/proc") if p.isdigit() and _child_of(int(p), proc.pid)))
    finally:
        proc.send_signal(signal.SIGINT)  # Ctrl-C
        _, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert "Traceback" not in err and err.strip().splitlines()[-1] == "stopped"
    assert "Ctrl-C stops it" in err
    assert _wait_dead(server_pid)


def _child_of(pid: int, parent: int) -> bool:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1]) == parent
    except (OSError, ValueError, IndexError):
        return False


def test_serve_without_a_setup_says_what_to_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ROBUSTCALL_CACHE", str(tmp_path))
    res = CliRunner().invoke(app, ["model", "serve", "--port", "9"])
    assert res.exit_code == 1 and "robustcall model setup" in res.output and "Traceback" not in res.output


def test_serve_takes_only_the_local_model(tmp_path: Path) -> None:
    res = CliRunner().invoke(app, ["model", "serve", "--model", "openai:x@http://h/v1"])
    assert res.exit_code == 1 and "serve takes local or local:<gguf>" in res.output


def test_a_local_run_listens_on_the_port_the_variable_names(
    stand_in: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _install(stand_in, tmp_path)
    monkeypatch.setenv("ROBUSTCALL_CACHE", str(tmp_path))
    port = free_port()
    monkeypatch.setenv("ROBUSTCALL_LOCAL_PORT", str(port))
    bench = tmp_path / "bench"
    runner = CliRunner()
    res = runner.invoke(app, ["build", "--sources", "bfcl", "--per-source", "bfcl=1", "--out", str(bench)])
    assert res.exit_code == 0, res.output
    out = tmp_path / "run"
    res = runner.invoke(app, ["run", "--bench", str(bench), "--types", "clean", "--model", "local", "--out", str(out)])
    assert res.exit_code == 0, res.output
    (rec,) = read_checkpoint(out / "predictions.jsonl", PredictionRecord)
    assert f"--port {port} " in rec.prediction.raw_output


def test_a_port_variable_that_is_no_port_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ROBUSTCALL_LOCAL_PORT", "eighty")
    res = CliRunner().invoke(app, ["model", "serve"])
    assert res.exit_code == 1 and "ROBUSTCALL_LOCAL_PORT='eighty': give a port number" in res.output
