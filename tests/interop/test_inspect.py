"""Inspect AI: ``robustcall export inspect`` writes a log that ``inspect_ai.log.read_eval_log`` reads
back with every record, our scores and explanations; the ``robustbench`` task, run by ``inspect eval``
against a mock OpenAI-compatible server, gives the per-type accuracies of ``robustcall run`` + ``score``."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mock_servers import ChatServer, completion
from typer.testing import CliRunner

import robustcall
from robustcall.cli.main import app
from robustcall.core import TRANSITION_MESSAGES, type_info

inspect_log = pytest.importorskip("inspect_ai.log")
runner = CliRunner()
TYPES = "clean,realistic_typos,CD_AB,same_name_A,transient_timeout"


async def _deterministic(body: dict[str, Any]) -> dict[str, Any]:
    """The answer depends on the last user turn only: ``[]`` for an even length, else a call."""
    user = [m["content"] for m in body["messages"] if m["role"] == "user"][-1]
    return completion("[]" if len(user) % 2 == 0 else "[f()]")


def _run_and_score(bench: Path, out: Path, types: str, server: ChatServer | None = None) -> dict[str, Any]:
    server = server or ChatServer(_deterministic)
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
    for code, cell in summary["by_type"].items():  # named as score, report and the card name them
        metric = metrics[type_info(code).display]
        assert metric.value == pytest.approx(cell["accuracy"]) and metric.metadata == {"type": code}
    # each sample's time is its record's latency (inspect view's DURATION), its tokens the server's counts
    latency = {r["id"]: r["prediction"].get("latency_s") or 0.0 for r in records}
    assert {s.id: s.total_time for s in log.samples} == latency == {s.id: s.working_time for s in log.samples}
    assert any(t > 0 for t in latency.values())
    usage = {r["id"]: r["prediction"].get("usage") for r in records}
    assert any(u is not None for u in usage.values())
    for s in log.samples:
        u = usage[s.id]
        counted = [(m.input_tokens, m.output_tokens) for m in s.model_usage.values()]
        assert counted == ([] if u is None else [(u["prompt_tokens"], u["completion_tokens"])]), s.id
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
    # pass 1, the injected error as the prompt-mode turn pass 2 saw, pass 2
    assert [m.role for m in injected.messages][-3:] == ["assistant", "user", "assistant"]


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
    assert {k: metrics[type_info(k).display] for k in summary["by_type"]} == pytest.approx(
        {k: c["accuracy"] for k, c in summary["by_type"].items()}
    )
    assert not set(summary["by_type"]) & set(metrics)  # no metric named by a raw code
    assert len(log.samples) == sum(c["n"] for c in summary["by_type"].values())


def test_exported_eval_log_streams_and_shows_the_injected_error(tiny_bench: Path, tmp_path: Path) -> None:
    """``read_eval_log_samples`` (Inspect's streaming reader, which needs the header's ``sample_ids``)
    reads every record of an exported ``.eval``; a transition record's turn before pass 2 is the text
    the model was sent, the type's Appendix G message in it."""
    server = ChatServer(_always_call)
    _run_and_score(tiny_bench, tmp_path / "run", "clean,transient_timeout", server)
    records = [json.loads(x) for x in (tmp_path / "run" / "predictions.jsonl").read_text().splitlines()]
    res = runner.invoke(app, ["export", "inspect", str(tmp_path / "run"), "--out", str(tmp_path / "log.eval")])
    assert res.exit_code == 0, res.output
    samples = list(inspect_log.read_eval_log_samples(str(tmp_path / "log.eval")))
    assert sorted(s.id for s in samples) == sorted(r["id"] for r in records)
    injected = [s for s in samples if s.metadata["transition_injected"]]
    assert injected, "every answer calls a tool, so every transition record had its error injected"
    pass2_prompts = [seen.body["messages"] for seen in server.seen if len(seen.body["messages"]) > 2]
    message = TRANSITION_MESSAGES["transient_timeout"]
    for sample in injected:
        shown = sample.messages[-2]
        assert message in shown.text
        pass1 = sample.messages[-3].text
        assert any(m[-1]["content"] == shown.text and m[-2]["content"] == pass1 for m in pass2_prompts)


async def _always_call(body: dict[str, Any]) -> dict[str, Any]:
    return completion("[f()]")


def _inspect_env(**extra: str) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p), **extra}


def test_task_without_a_benchmark_names_the_option(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "inspect_ai", "eval", "robustcall/robustbench", "--model", "mockllm/model",
         "--log-dir", str(tmp_path / "logs"), "--display", "plain"],
        cwd=tmp_path, env=_inspect_env(), capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    shown = " ".join((proc.stderr + proc.stdout).split())  # Inspect wraps the line to the terminal
    assert proc.returncode != 0 and "Traceback" not in shown
    assert "no benchmark in ./bench or ./runs/bench/bench (the defaults); pass -T bench=DIR" in shown
    assert not (tmp_path / "logs").exists()  # stopped before any sample


def _docs_commands() -> list[list[str]]:
    """docs/interop.md's ``inspect eval`` commands of the task, as printed (continuation lines joined)."""
    text = (Path(__file__).parents[2] / "docs" / "interop.md").read_text().replace("\\\n", " ")
    return [ln.split("#")[0].split() for ln in text.splitlines() if "inspect eval robustcall/robustbench" in ln]


def _docs_command() -> list[str]:
    """The first of them: the task at an OpenAI-compatible server."""
    return _docs_commands()[0]


def test_docs_inspect_eval_on_the_served_model_asks_the_url_model_serve_prints() -> None:
    from robustcall.cli.model_cmd import DEFAULT_SERVE_PORT

    (served,) = _docs_commands()[1:]
    text = (Path(__file__).parents[2] / "docs" / "interop.md").read_text()
    assert f"robustcall model serve --port {DEFAULT_SERVE_PORT} &" in text
    url = served[served.index("--model-base-url") + 1]
    assert url == f"http://127.0.0.1:{DEFAULT_SERVE_PORT}/v1" and served[0] == "OPENAI_API_KEY=none"
    assert served[served.index("--model") + 1].startswith("openai/")  # the task's chat-completions route


def test_docs_inspect_eval_command_runs_as_printed(tiny_bench: Path, tmp_path: Path) -> None:
    """The command docs/interop.md prints, with the default benchmark (``./bench``) and ``openai/<name>``
    at a chat-completions server: Inspect's own CLI runs it; every request is a chat completion at
    temperature 0 (Inspect alone sends an unknown ``openai/`` name to the Responses API and drops it)."""
    words = _docs_command()
    env_words = [w for w in words[: words.index("inspect")] if "=" in w]
    assert env_words == ["OPENAI_API_KEY=none"]  # the one variable the printed command sets
    args = words[words.index("eval") + 1 :]
    args[args.index("--model-base-url") + 1] = "URL"
    assert not any(a.startswith("bench=") for a in args)  # the default benchmark, ./bench
    shutil.copytree(tiny_bench, tmp_path / "bench")
    server = ChatServer(_deterministic)
    args[args.index("URL")] = server.base_url
    args = ["limit=1" if a.startswith("limit=") else a for a in args]  # keep the run small
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "inspect_ai", "eval", *args, "--log-dir", str(tmp_path / "logs"),
             "--log-format", "json", "--display", "none"],
            cwd=tmp_path, env=_inspect_env(OPENAI_API_KEY="none"), capture_output=True, text=True, timeout=300,
        )  # fmt: skip
    finally:
        server.stop()
    assert proc.returncode == 0, proc.stderr[-3000:]
    (path,) = (tmp_path / "logs").glob("*.json")
    log = inspect_log.read_eval_log(str(path))
    assert log.status == "success", log.error
    assert log.samples and not any(s.error for s in log.samples)
    assert server.other == []  # no Responses API call
    assert server.seen and [s.body.get("temperature") for s in server.seen] == [0] * len(server.seen)


def test_openai_name_sends_temperature_zero_with_responses_api_off(
    tiny_bench: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``-M responses_api=false`` alone reaches chat completions, but Inspect still drops the
    temperature for a name it does not know; the task sends 0 either way."""
    import inspect_ai

    from robustcall.inspect_task import robustbench

    monkeypatch.setenv("OPENAI_API_KEY", "none")
    server = ChatServer(_deterministic)
    try:
        (log,) = inspect_ai.eval(
            robustbench(bench=str(tiny_bench), types="clean", limit=2),
            model="openai/qwen3-8b",
            model_base_url=server.base_url,
            model_args={"responses_api": False},
            log_dir=str(tmp_path / "logs"),
            display="none",
        )
    finally:
        server.stop()
    assert log.status == "success", log.error
    assert server.other == []
    assert len(server.seen) == 2 and [s.body.get("temperature") for s in server.seen] == [0, 0]


def test_tokens_a_record_holds_become_inspect_usage() -> None:
    from types import SimpleNamespace

    from robustcall.interop._inspect_log import token_usage

    assert token_usage(SimpleNamespace()) is None and token_usage(SimpleNamespace(usage=None)) is None
    got = token_usage(SimpleNamespace(usage={"prompt_tokens": 312, "completion_tokens": 41}))
    assert got is not None and (got.input_tokens, got.output_tokens, got.total_tokens) == (312, 41, 353)
    got = token_usage(SimpleNamespace(usage=SimpleNamespace(input_tokens=5, output_tokens=2, total_tokens=9)))
    assert got is not None and (got.input_tokens, got.output_tokens, got.total_tokens) == (5, 2, 9)
