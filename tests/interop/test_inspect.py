"""Inspect AI: ``robustcall export inspect`` writes a log that ``inspect_ai.log.read_eval_log`` reads
back with every record, our scores and explanations; the ``robustbench`` task, run by ``inspect eval``
against a mock OpenAI-compatible server, gives the per-type accuracies of ``robustcall run`` + ``score``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mock_servers import ChatServer, completion
from typer.testing import CliRunner

import robustcall
from robustcall.cli.main import app

inspect_log = pytest.importorskip("inspect_ai.log")
runner = CliRunner()
TYPES = "clean,realistic_typos,CD_AB,same_name_A,transient_timeout"


async def _deterministic(body: dict[str, Any]) -> dict[str, Any]:
    """The answer depends on the last user turn only: ``[]`` for an even length, else a call."""
    user = [m["content"] for m in body["messages"] if m["role"] == "user"][-1]
    return completion("[]" if len(user) % 2 == 0 else "[f()]")


def _run_and_score(bench: Path, out: Path, types: str) -> dict[str, Any]:
    server = ChatServer(_deterministic)
    try:
        res = runner.invoke(
            app, ["run", "--bench", str(bench), "--out", str(out), "--model", "openai/m", "--base-url", server.base_url,
                  "--types", types],
        )  # fmt: skip
    finally:
        server.stop()
    assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["score", str(out), "--bootstrap", "100"])
    assert res.exit_code == 0, res.output
    summary: dict[str, Any] = json.loads((out / "summary.json").read_text())
    return summary


def test_export_inspect_log_reads_back(tiny_bench: Path, tmp_path: Path) -> None:
    summary = _run_and_score(tiny_bench, tmp_path / "run", "all")
    verdicts = [json.loads(x) for x in (tmp_path / "run" / "scores.jsonl").read_text().splitlines()]
    records = [json.loads(x) for x in (tmp_path / "run" / "predictions.jsonl").read_text().splitlines()]
    res = runner.invoke(app, ["export", "inspect", str(tmp_path / "run"), "--out", str(tmp_path / "log.json")])
    assert res.exit_code == 0, res.output
    again = runner.invoke(app, ["export", "inspect", str(tmp_path / "run"), "--out", str(tmp_path / "log2.json")])
    assert again.exit_code == 0
    assert (tmp_path / "log.json").read_bytes() == (tmp_path / "log2.json").read_bytes()  # deterministic

    log = inspect_log.read_eval_log(str(tmp_path / "log.json"))
    assert log.status == "success"
    assert log.eval.model == "m" and log.eval.task == "robustcall/robustbench"
    assert len(log.samples) == len(records) == len(verdicts)
    metrics = log.results.scores[0].metrics
    correct = sum(1 for v in verdicts if v["correct"])
    assert metrics["accuracy"].value == pytest.approx(correct / len(verdicts))
    for code, cell in summary["by_type"].items():
        assert metrics[f"accuracy_{code}"].value == pytest.approx(cell["accuracy"])
    assert {s.id: s.scores["robustcall"].value for s in log.samples} == {
        v["id"]: 1 if v["correct"] else 0 for v in verdicts
    }
    wrong = next(s for s in log.samples if s.scores["robustcall"].value == 0 and s.metadata["type"] == "CD_AB")
    verdict = next(v for v in verdicts if v["id"] == wrong.id)
    record = next(r for r in records if r["id"] == wrong.id)
    assert wrong.scores["robustcall"].explanation.startswith(f"wrong: {verdict['error_mode'] or 'other'}")
    assert (
        wrong.metadata["component"] == verdict["component"] == "reward"
        and wrong.metadata["error_mode"] == verdict["error_mode"]
    )
    assert wrong.output.completion == record["prediction"]["raw_output"]
    assert [m.role for m in wrong.messages] == [m["role"] for m in record["conversation"]] + ["assistant"]
    assert [t.name for t in wrong.events[0].tools] == [t["name"] for t in record["tools"]]
    injected = next(
        s for s in log.samples if s.metadata["type"] == "transient_timeout" and s.metadata["transition_injected"]
    )
    assert [m.role for m in injected.messages][-3:] == ["assistant", "tool", "assistant"]  # pass 1, the fault, pass 2


def test_inspect_eval_of_the_task_matches_run_and_score(tiny_bench: Path, tmp_path: Path) -> None:
    summary = _run_and_score(tiny_bench, tmp_path / "run", TYPES)
    task_file = Path(robustcall.__file__).parent / "inspect_task.py"
    server = ChatServer(_deterministic)
    env = {**os.environ, "MOCK_API_KEY": "x", "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "inspect_ai", "eval", f"{task_file}@robustbench", "-T", f"bench={tiny_bench}",
             "-T", f"types={TYPES}", "--model", "openai-api/mock/m", "--model-base-url", server.base_url,
             "--log-dir", str(tmp_path / "logs"), "--log-format", "json", "--display", "none"],
            env=env, capture_output=True, text=True, timeout=300,
        )  # fmt: skip
    finally:
        server.stop()
    assert proc.returncode == 0, proc.stderr[-3000:]
    (path,) = (tmp_path / "logs").glob("*.json")
    log = inspect_log.read_eval_log(str(path))
    assert log.status == "success", log.error
    metrics = {k: m.value for k, m in log.results.scores[0].metrics.items()}
    assert {k: metrics[k] for k in summary["by_type"]} == pytest.approx(
        {k: c["accuracy"] for k, c in summary["by_type"].items()}
    )
    assert len(log.samples) == sum(c["n"] for c in summary["by_type"].values())
