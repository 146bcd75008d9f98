"""The embedded local model over a real MCP server, end to end (one task, clean): ``mcp run --model
local --limit 1``. Whatever the small model does, the episode is scored (not an infrastructure error)
and its trajectory holds the tools the server listed."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mcp")


@pytest.mark.realmodel
def test_local_model_runs_one_suite_task(tmp_path: Path) -> None:
    bin_dir = Path(sys.executable).parent
    done = subprocess.run(
        [str(bin_dir / "robustcall"), "mcp", "run", "--tasks", "suite", "--task", "time-utc-to-tokyo", "--model",
         "local", "--limit", "1", "--max-steps", "3", "--out", str(tmp_path / "run")],
        capture_output=True, text=True, timeout=1200,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    (traj,) = [
        json.loads(line) for line in (tmp_path / "run" / "clean" / "trajectories.jsonl").read_text().splitlines()
    ]
    assert traj["termination"] != "infra" and traj["success"] is not None
    assert set(traj["config"]["tools"]) == {"get_current_time", "convert_time"}
