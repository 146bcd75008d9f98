"""The local model beyond these machines: ``robustcall model setup`` takes a GGUF path, a Hugging Face
repo id (only when the Hub is reachable) and an existing ``llama-server`` (``--llama-server PATH`` or
one on ``PATH``); ``--model local:<gguf>`` runs it. A stand-in ``llama-server`` (tests only) serves
an OpenAI chat endpoint on 127.0.0.1 so that the whole path runs without a real model."""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

import pytest
from mock_servers import HubServer, free_port
from typer.testing import CliRunner

from robustcall.cli.main import app

runner = CliRunner()
FAKE = Path(__file__).with_name("fake_llama_server.py")


def _fake_server(folder: Path) -> Path:
    """An executable ``llama-server`` that runs the stand-in with this interpreter."""
    folder.mkdir(parents=True, exist_ok=True)
    binary = folder / "llama-server"
    binary.write_text(f'#!/bin/sh\nexec {sys.executable} {FAKE} "$@"\n')
    binary.chmod(binary.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return binary


def _gguf(path: Path) -> Path:
    path.write_bytes(b"GGUF" + bytes(60))
    return path


def _check_says_ready(cache: Path, spec: str) -> None:
    """``model setup --check`` recognises a model adopted with --gguf / --hf-repo: ready, no embedded
    model asked for (it would suggest the 491 MB download)."""
    res = runner.invoke(app, ["model", "setup", "--check", "--cache", str(cache)])
    assert res.exit_code == 0, res.output
    said = " ".join(res.stdout.split())
    assert f"(--model {spec})" in said and said.endswith("ready") and "missing" not in said, said
    assert res.stderr == ""


def test_check_with_an_adopted_model_whose_file_changed_is_not_ready(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    gguf = _gguf(tmp_path / "mine.gguf")
    res = runner.invoke(
        app,
        ["model", "setup", "--cache", str(cache), "--gguf", str(gguf), "--llama-server", str(_fake_server(tmp_path))],
    )
    assert res.exit_code == 0, res.output
    _check_says_ready(cache, "local:mine")
    gguf.write_bytes(b"GGUF" + bytes(10))  # another file now: its marker no longer holds
    res = runner.invoke(app, ["model", "setup", "--check", "--cache", str(cache)])
    assert res.exit_code == 1
    assert res.stderr.startswith("error: not ready\n") and "robustcall model setup" in res.stderr


def test_gguf_path_and_llama_server_path_then_run_local_gguf(
    tiny_bench: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"
    gguf = _gguf(tmp_path / "my-model-Q4_K_M.gguf")
    binary = _fake_server(tmp_path / "bin")
    res = runner.invoke(
        app, ["model", "setup", "--cache", str(cache), "--gguf", str(gguf), "--llama-server", str(binary)]
    )
    assert res.exit_code == 0, res.output
    assert "--model local:my-model-Q4_K_M" in res.output
    assert (cache / "models" / gguf.name).resolve() == gguf.resolve()  # linked, not copied
    assert (cache / "bin" / "llama-server").resolve() == binary.resolve()
    _check_says_ready(cache, "local:my-model-Q4_K_M")
    monkeypatch.setenv("ROBUSTCALL_CACHE", str(cache))
    monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{free_port()}")  # a dead proxy: our own server ignores it
    for spec in ("local:my-model-Q4_K_M", f"local:{gguf}"):
        out = tmp_path / spec.replace("/", "_").replace(":", "_")
        res = runner.invoke(app, ["run", "--bench", str(tiny_bench), "--out", str(out), "--model", spec,
                                  "--types", "clean", "--concurrency", "2"])  # fmt: skip
        assert res.exit_code == 0, res.output
        records = [json.loads(x) for x in (out / "predictions.jsonl").read_text().splitlines()]
        assert len(records) == 4
        assert {r["model"] for r in records} == {"local:my-model-Q4_K_M"}
        # the server got this GGUF and no chat template of ours (the GGUF brings its own)
        assert all(r["prediction"]["raw_output"].endswith(f"{gguf.name} template=None") for r in records)
    res = runner.invoke(app, ["run", "--bench", str(tiny_bench), "--out", str(tmp_path / "x"), "--model",
                              "local:nope", "--types", "clean"])  # fmt: skip
    assert res.exit_code != 0 and "nope" in res.output


def test_llama_server_on_path_is_adopted_instead_of_building(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    binary = _fake_server(tmp_path / "bin")
    monkeypatch.setenv("PATH", f"{binary.parent}{os.pathsep}{os.environ['PATH']}")
    cache = tmp_path / "cache"
    res = runner.invoke(app, ["model", "setup", "--cache", str(cache), "--gguf", str(_gguf(tmp_path / "m.gguf"))])
    assert res.exit_code == 0, res.output
    assert (cache / "bin" / "llama-server").resolve() == binary.resolve()
    assert not (cache / "sdist").exists() and not (cache / "build").exists()  # nothing built


def test_bad_gguf_and_unreachable_hub_fail_in_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"NOPE")
    res = runner.invoke(app, ["model", "setup", "--cache", str(tmp_path / "c"), "--gguf", str(bad)])
    assert res.exit_code == 1 and "is not a GGUF file" in " ".join(res.output.split())
    monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{free_port()}")  # nothing listens there
    res = runner.invoke(app, ["model", "setup", "--cache", str(tmp_path / "c"), "--hf-repo", "org/model-GGUF"])
    assert res.exit_code == 1
    said = " ".join(res.output.split())
    assert "not reachable" in said and "--gguf" in said
    assert not (tmp_path / "c" / "hub").exists()  # huggingface_hub was never asked


def test_hf_repo_through_huggingface_hub_then_run(
    tiny_bench: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A reachable Hub (a stand-in on 127.0.0.1): the repo's one Q4_K_M GGUF is fetched by
    huggingface_hub, adopted, and runs as ``local:<stem>``."""
    pytest.importorskip("huggingface_hub")
    gguf = b"GGUF" + bytes(200)
    hub = HubServer("org/tiny-GGUF", {"tiny-Q8_0.gguf": gguf, "tiny-Q4_K_M.gguf": gguf, "README.md": b"hi"})
    monkeypatch.setenv("HF_ENDPOINT", hub.url)
    monkeypatch.setenv("HF_HUB_DISABLE_TELEMETRY", "1")
    cache = tmp_path / "cache"
    try:
        res = runner.invoke(app, ["model", "setup", "--cache", str(cache), "--hf-repo", "org/tiny-GGUF",
                                  "--llama-server", str(_fake_server(tmp_path / "bin"))])  # fmt: skip
    finally:
        hub.stop()
    assert res.exit_code == 0, res.output
    assert "--model local:tiny-Q4_K_M" in " ".join(res.output.split())
    assert "GET /org/tiny-GGUF/resolve/main/tiny-Q4_K_M.gguf" in hub.seen
    assert (cache / "models" / "tiny-Q4_K_M.gguf").read_bytes() == gguf
    _check_says_ready(cache, "local:tiny-Q4_K_M")
    monkeypatch.setenv("ROBUSTCALL_CACHE", str(cache))
    res = runner.invoke(app, ["run", "--bench", str(tiny_bench), "--out", str(tmp_path / "run"), "--model",
                              "local:tiny-Q4_K_M", "--types", "clean"])  # fmt: skip
    assert res.exit_code == 0, res.output
    records = [json.loads(x) for x in (tmp_path / "run" / "predictions.jsonl").read_text().splitlines()]
    assert len(records) == 4 and {r["model"] for r in records} == {"local:tiny-Q4_K_M"}
