"""``--settings paper:<Model>``: the paper's Table 15 row reaches the endpoint as the request, and the
run records the entry it used (a mock OpenAI server on 127.0.0.1 captures the request bodies)."""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from robustcall.cli.main import app
from robustcall.core import PAPER_MODELS_FILE, paper_reference
from robustcall.models import ModelSettings, SettingsError, load_settings, make_model

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "run"))
from mock_openai import completion, serve_chat, write_capital_bench

runner = CliRunner()


def _run(tmp_path: Path, model: str, settings: str, *extra: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Run 2 samples of a capital bench against a capturing server: (request bodies, run.json)."""
    bodies: list[dict[str, Any]] = []

    async def capture(body: dict[str, Any]) -> dict[str, Any]:
        bodies.append(body)
        return completion("[capital_0(country='C0')]")

    bench = write_capital_bench(tmp_path / "bench", 2)
    out = tmp_path / "run"
    with serve_chat(capture) as url:
        result = runner.invoke(
            app,
            ["run", "--bench", str(bench), "--model", model, "--base-url", url, "--settings", settings,
             "--out", str(out), "--types", "clean", *extra],
        )  # fmt: skip
    assert result.exit_code == 0, result.output
    return bodies, json.loads((out / "run.json").read_text())


def test_paper_qwen3_8b_sends_table_15s_request(tmp_path: Path) -> None:
    # Table 15: Qwen3-8B, FC (tools=), thinking off, temperature 0.0, max_tokens 1024
    bodies, meta = _run(tmp_path, "openai/Qwen/Qwen3-8B", "paper:Qwen3-8B")
    assert len(bodies) == 2
    for body in bodies:
        assert body["model"] == "Qwen/Qwen3-8B"
        assert (body["temperature"], body["max_tokens"]) == (0.0, 1024)
        assert body["chat_template_kwargs"] == {"enable_thinking": False}
        assert [t["function"]["name"] for t in body["tools"]] in (["capital_0"], ["capital_1"])
    assert meta["settings_entry"] == "paper:Qwen3-8B"
    assert meta["mode"] == "fc"
    assert meta["answer_settings"] == {
        "temperature": 0.0,
        "max_tokens": 1024,
        "extra_body": {"chat_template_kwargs": {"enable_thinking": False}},
    }
    assert meta["settings_digest"] == hashlib.sha256(PAPER_MODELS_FILE.read_bytes()).hexdigest()


def test_bare_paper_matches_the_served_hf_id(tmp_path: Path) -> None:
    # DeepSeek-R1-Distill: Prompt mode (no tools=), temperature 0.6, max_tokens 4,096, no thinking switch
    bodies, meta = _run(tmp_path, "openai/deepseek-ai/DeepSeek-R1-Distill-Qwen-14B", "paper")
    assert bodies and all((b["temperature"], b["max_tokens"]) == (0.6, 4096) for b in bodies)
    assert all("tools" not in b and "chat_template_kwargs" not in b for b in bodies)
    assert (meta["settings_entry"], meta["mode"]) == ("paper:DeepSeek-R1-Distill-14B", "prompt")


def test_mode_on_the_command_line_still_wins(tmp_path: Path) -> None:
    bodies, meta = _run(tmp_path, "openai/Qwen/Qwen3-8B", "paper:Qwen3-8B", "--mode", "prompt")
    assert all("tools" not in b and b["chat_template_kwargs"] == {"enable_thinking": False} for b in bodies)
    assert (meta["settings_entry"], meta["mode"]) == ("paper:Qwen3-8B", "prompt")


@pytest.mark.parametrize(
    ("settings", "model", "message"),
    [
        ("paper:Qwen9-1B", "openai:Qwen/Qwen3-8B@http://127.0.0.1:9/v1", "no row of the paper's Table 15 is named"),
        ("paper", "openai:my-model@http://127.0.0.1:9/v1", "no row of the paper's Table 15 is named 'my-model'"),
        ("paper:o4-mini", "scripted:oracle", "o4-mini has no row in the paper's Table 15"),
    ],
)
def test_unknown_or_rowless_models_are_refused(tmp_path: Path, settings: str, model: str, message: str) -> None:
    bench = write_capital_bench(tmp_path / "bench", 1)
    result = runner.invoke(
        app,
        [
            "run",
            "--bench",
            str(bench),
            "--model",
            model,
            "--settings",
            settings,
            "--types",
            "clean",
            "--out",
            str(tmp_path / "r"),
        ],
    )
    assert result.exit_code == 1, result.output
    assert "error:" in result.output and message in result.output
    assert "Traceback" not in result.output


def test_every_table_15_row_gives_its_settings() -> None:
    rows = [m for m in paper_reference().models if m.serving is not None]
    assert len(rows) == 20  # Table 15 lists 20 of the 21 models; o4-mini ran on OpenAI's API
    for m in rows:
        assert m.serving is not None
        s = load_settings(Path(f"paper:{m.name}"), "whatever")
        assert (s.mode, s.temperature, s.max_tokens, s.entry) == (
            m.serving.mode,
            m.serving.temperature,
            m.serving.max_tokens,
            f"paper:{m.name}",
        )
        assert s.extra_body == (
            {"chat_template_kwargs": {"enable_thinking": False}} if m.serving.thinking is False else {}
        )
        assert s.timeout_s == ModelSettings().timeout_s  # the client's own settings stay the defaults
    thinking_off = sorted(m.name for m in rows if m.serving and m.serving.thinking is False)
    assert thinking_off == sorted(
        ["LoopTool-8B", "LoopTool-32B", "MUA-RL-8B", "MUA-RL-14B", "MUA-RL-32B", "Qwen3-8B", "Qwen3-14B", "Qwen3-32B",
         "Qwen3.5-9B"]
    )  # fmt: skip
    # a model named by its HF id, any case; unmatched names are refused
    assert load_settings(Path("paper"), "QWEN/QWEN3-32B").entry == "paper:Qwen3-32B"
    with pytest.raises(SettingsError, match="hint: give paper:<Model>"):
        load_settings(Path("paper"), "gpt-4o")


def test_a_settings_file_records_the_entries_it_applied(tmp_path: Path) -> None:
    path = tmp_path / "models.yaml"
    path.write_text("default: {max_tokens: 512}\nQwen3-8B: {temperature: 0.2}\n")
    assert load_settings(path, "Qwen3-8B").entry == f"{path}:default+Qwen3-8B"
    assert load_settings(path, "other").entry == f"{path}:default"
    assert load_settings(None, "x").entry is None
    model = make_model("openai:Qwen3-8B@http://127.0.0.1:9/v1", settings_file=Path("paper:Qwen3-8B"))
    assert isinstance(model.settings, ModelSettings) and model.mode == "fc"  # type: ignore[attr-defined]


def test_docs_print_each_rows_vllm_command() -> None:
    docs = (Path(__file__).resolve().parents[2] / "docs" / "models.md").read_text()
    for m in paper_reference().models:
        s = m.serving
        if s is None:
            continue
        think = "off" if s.thinking is False else "—"
        row = f"| {m.name} | `{m.vllm_command()}` | {s.mode} | {think} | {s.temperature} | {s.max_tokens:,} |"
        assert row in docs, row
    qwen = paper_reference().find("Qwen3-8B")
    assert qwen is not None and qwen.vllm_command() == (
        "vllm serve Qwen/Qwen3-8B --dtype bfloat16 --max-model-len 16384 "
        "--enable-auto-tool-choice --tool-call-parser hermes"
    )
