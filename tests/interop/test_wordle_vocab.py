"""``envs serve --env wordle``: AgentGym's clients get the short list of answers as the vocabulary
(it goes into their first prompt); ``--full-vocab`` gives every valid guess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from robustcall.models.local import free_port

SRC = Path(__file__).resolve().parents[2] / "src"


def _words(path: Path) -> set[str]:
    return {w.strip() for w in path.read_text().splitlines() if len(w.strip()) == 5}


def _call(url: str, body: dict[str, object] | None = None) -> object:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data, {"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as resp:
        return json.loads(resp.read())


def _served_vocab(data: Path, *flags: str) -> list[str]:
    port = free_port()
    cmd = [sys.executable, "-m", "robustcall.cli.main", "envs", "serve", "--env", "wordle", "--data", str(data),
           "--port", str(port), *flags]  # fmt: skip
    proc = subprocess.Popen(cmd, env={**os.environ, "PYTHONPATH": str(SRC)}, stderr=subprocess.PIPE, text=True)
    base = f"http://127.0.0.1:{port}/wordle"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                created = _call(f"{base}/create", {})
                break
            except OSError:
                assert proc.poll() is None and time.monotonic() < deadline, "envs serve did not start"
                time.sleep(0.2)
        assert isinstance(created, dict)
        vocab = _call(f"{base}/filtered_vocab?id={created['id']}")
        assert isinstance(vocab, list)
        return [str(w) for w in vocab]
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.mark.parametrize("full", [False, True])
def test_wordle_serves_the_short_list_unless_told_the_full_one(shared_data: Path, full: bool) -> None:
    data = shared_data / "wordle"
    answers = _words(data / "wordle_official_200.txt")
    vocab = _served_vocab(data, *(["--full-vocab"] if full else []))
    if full:
        assert set(vocab) == answers | _words(data / "wordle_official_guess.txt") and len(vocab) > 12_900
    else:
        assert vocab == sorted(answers) and len(json.dumps(vocab)) < 3_000  # not 80,839 characters
