"""Metadata files are written atomically (issue 22, item 8): a kill -9 in mid-write leaves the old
``run.json`` or the new one, never a torn one, and ``--resume`` removes stale ``*.tmp`` files and
gets past a torn ``run.json`` left by an older version."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_engine import _sample

from robustcall.core import atomic_write_text, remove_stale_tmp, write_jsonl

WRITER = """
import sys
from pathlib import Path
from robustcall.run import write_meta
out = Path(sys.argv[1])
big = "x" * 20_000_000  # 20 MB: the write itself takes a while
print("ready", flush=True)
i = 0
while True:
    write_meta(out, {"i": i, "pad": big})
    i += 1
"""


def test_kill_during_run_json_writes_never_leaves_it_torn(tmp_path: Path) -> None:
    rng = random.Random(22)
    out = tmp_path / "run"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    for _ in range(12):
        proc = subprocess.Popen([sys.executable, "-c", WRITER, str(out)], stdout=subprocess.PIPE, env=env)
        assert proc.stdout is not None and proc.stdout.readline().strip() == b"ready"
        time.sleep(rng.uniform(0.05, 0.4))
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        meta = out / "run.json"
        if meta.exists():  # absent only if the kill came before the first rename
            assert isinstance(json.loads(meta.read_text())["i"], int)
    remove_stale_tmp(out)
    assert sorted(p.name for p in out.iterdir()) == ["run.json"]


def test_an_interrupted_atomic_write_keeps_the_old_content(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "run.json"
    atomic_write_text(path, '{"v": 1}\n')

    def killed(src: object, dst: object) -> None:
        raise KeyboardInterrupt  # the process dies between the write and the rename

    monkeypatch.setattr(os, "replace", killed)
    with pytest.raises(KeyboardInterrupt):
        atomic_write_text(path, '{"v": 2}\n')
    monkeypatch.undo()
    assert path.read_text() == '{"v": 1}\n'
    assert remove_stale_tmp(tmp_path) == [tmp_path / "run.json.tmp"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.json"]


def test_resume_gets_past_a_torn_run_json_and_removes_stale_tmp(tmp_path: Path) -> None:
    bench = tmp_path / "bench"
    write_jsonl(bench / "clean.jsonl", [_sample(0, True), _sample(1, False)])
    (bench / "manifest.json").write_text("{}\n")  # what marks a finished build
    out = tmp_path / "run"
    cmd = [
        sys.executable, "-m", "robustcall.cli.main", "run", "--bench", str(bench), "--out", str(out),
        "--model", "scripted:oracle", "--types", "clean",
    ]  # fmt: skip
    first = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert first.returncode == 0, first.stderr
    (out / "run.json").write_text("")  # what an in-place write cut by a kill left (old versions)
    (out / "run.json.tmp").write_text('{"half": ')
    (out / "predictions.jsonl.tmp").write_text("junk")
    again = subprocess.run([*cmd, "--resume"], capture_output=True, text=True, timeout=120)
    assert again.returncode == 0, again.stderr
    assert "Traceback" not in again.stderr
    assert json.loads((out / "run.json").read_text())["model"] == "scripted:oracle"
    assert not list(out.glob("*.tmp"))
