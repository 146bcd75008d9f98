"""CPU smoke runs: one or two GRPO steps and one SFT step on a tiny Qwen2 built from a config."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from robustcall.cli.main import app
from robustcall.core import Message, ToolCall
from robustcall.faults._sft import chat, recovery_turn
from robustcall.train import save_rows
from robustcall.train._grpo import GrpoSettings, batch_plan, run_grpo
from robustcall.train._sft import SftSettings, mix, run_sft

pytest.importorskip("trl")

SYSTEM = (
    "You are a helpful multi-turn dialogue assistant.\n\n**Available Tools**\n"
    "In your response, you can use the following tools:\n"
    "1. Name: get_weather\nDescription: Returns the current weather report for the given city, "
    "including the temperature and the wind.\n"
    'Parameters: {"city": {"type": "string", '
    '"description": "The name of the city to get the weather report for.", "default": ""}}'
    "\n\n**Steps for Each Turn**\n1. **Think:** Recall relevant context."
)


def _rlla_row(i: int, city: str) -> dict[str, Any]:
    user = f"**Dialogue Records History**\n<user> What is the weather in {city}? </user>"
    call = json.dumps({"name": "get_weather", "parameters": {"city": city}})
    gt = f"<think> weather </think>\n<tool_call>\n{call}\n</tool_call>"
    return {
        "data_source": "rlla",
        "prompt": [{"content": SYSTEM, "role": "system"}, {"content": user, "role": "user"}],
        "ability": "math",
        "reward_model": {"ground_truth": gt, "style": "rule"},
        "extra_info": {"index": i, "input": user, "instruction": SYSTEM, "output": gt, "split": "train"},
    }


def test_batch_plan_maps_table16_onto_trl() -> None:
    s = GrpoSettings(train=Path("x"), output_dir=Path("y"))
    # 64 prompts x K=4 per rollout, 32 x 4 per optimizer step, 16 completions / GPU, 2 GPUs
    assert batch_plan(s, 2) == {
        "per_device_train_batch_size": 16,
        "gradient_accumulation_steps": 4,
        "steps_per_generation": 8,
    }
    with pytest.raises(ValueError, match="multiple"):
        batch_plan(s.model_copy(update={"micro_batch_size": 48}), 1)


def test_grpo_two_steps_log_loss_and_rewards(tmp_path: Path) -> None:
    train = save_rows(
        [_rlla_row(i, c) for i, c in enumerate(["Paris", "Lyon", "Nice", "Lille"])], tmp_path / "t.parquet"
    )
    s = GrpoSettings(
        model="tiny",
        train=train,
        output_dir=tmp_path / "out",
        rewards=["toolrl_format", "toolrl_correctness", "schema"],
        num_generations=2,
        train_batch_size=2,
        mini_batch_size=2,
        micro_batch_size=4,
        max_completion_length=12,
        max_steps=2,
        save_steps=2,
        learning_rate=1e-3,
    )
    summary = run_grpo(s)
    logs = [h for h in summary["log_history"] if "loss" in h]
    assert summary["steps"] == 2 and len(logs) == 2
    for h in logs:
        assert "reward" in h and -4.0 <= h["reward"] <= 5.0
        assert {"rewards/toolrl_format/mean", "rewards/toolrl_correctness/mean", "rewards/schema/mean"} <= set(h)
    assert (tmp_path / "out" / "checkpoint-2" / "config.json").is_file()
    assert json.loads((tmp_path / "out" / "robustcall_train.json").read_text())["steps"] == 2


def _recovery_rows() -> list[dict[str, Any]]:
    rows = []
    for city, code, cls in [("Paris", "http_503", "execution"), ("Lyon", "empty_result", "semantic")]:
        call = ToolCall(name="get_weather", arguments={"city": city})
        kind_text = recovery_turn({"fault_type": code, "fault_class": cls}, call, call, "tool_call")
        assert kind_text is not None
        transcript = [
            Message(role="system", content="You are a weather agent."),
            Message(role="user", content=f"Weather in {city}?"),
            Message(role="assistant", content="", tool_calls=[call]),
            Message(role="tool", name="get_weather", content=f"error {code}"),
        ]
        rows.append({"messages": [*chat(transcript, "tool_call"), {"role": "assistant", "content": kind_text[1]}]})
    return rows


def test_sft_mix_weights_recovery_by_alpha() -> None:
    std = [{"k": i} for i in range(10)]
    rec = [{"r": i} for i in range(4)]
    rows, counts = mix(std, rec, 0.5, 0)
    assert counts == {"standard": 10, "recovery_unique": 4, "recovery_drawn": 5} and len(rows) == 15
    assert mix(std, rec, 0.5, 0) == (rows, counts)
    assert mix([], rec, 3.0, 0)[1]["recovery_drawn"] == 4


def test_sft_one_step_logs_loss(tmp_path: Path) -> None:
    rec = tmp_path / "recovery.jsonl"
    save_rows(_recovery_rows(), rec)
    s = SftSettings(
        model="tiny",
        recovery=rec,
        output_dir=tmp_path / "sft",
        max_steps=1,
        max_length=512,
        per_device_train_batch_size=2,
    )
    summary = run_sft(s)
    logs = [h for h in summary["log_history"] if "loss" in h]
    assert summary["steps"] == 1 and logs and logs[0]["loss"] > 0
    assert (tmp_path / "sft" / "sft_mix.parquet").is_file()


def test_cli_dr_data_on_synthetic_rows(tmp_path: Path) -> None:
    src = save_rows(
        [_rlla_row(i, c) for i, c in enumerate(["Paris", "Lyon", "Nice", "Lille"] * 8)], tmp_path / "mini.parquet"
    )
    result = CliRunner().invoke(app, ["train", "dr-data", str(src), "--out", str(tmp_path / "dr")])
    assert result.exit_code == 0, result.output
    assert "uniform within one: True" in result.output
    manifest = json.loads((tmp_path / "dr" / "manifest.json").read_text())
    assert manifest["outputs"]["dr_full/mini.parquet"]["rows"] == 32


def test_toolrm_reward_scores_each_prompt_group_with_the_scorer() -> None:
    from robustcall.train._rewards import reward_functions

    tools = json.dumps([{"name": "f", "parameters": {"type": "object", "properties": {"a": {"type": "integer"}},
                                                     "required": ["a"]}}])  # fmt: skip
    good = '<tool_call>\n{"name": "f", "parameters": {"a": 1}}\n</tool_call>'
    bad = '<tool_call>\n{"name": "g", "parameters": {}}\n</tool_call>'
    (toolrm,) = reward_functions(["toolrm"], toolrm_scorer="schema")
    # R_ToolRM maps the schema scorer's range [-1, 1] linearly onto [-3, 3]
    assert toolrm(prompts=["p", "p", "q"], completions=[good, bad, good], tools=[tools] * 3) == [3.0, -3.0, 3.0]


def test_recovery_sft_trains_only_the_recovery_turn(tmp_path: Path) -> None:
    from robustcall.train._sft import build_sft_trainer

    rows = _recovery_rows()[:1]
    rec = save_rows(rows, tmp_path / "recovery.jsonl")
    trainer, _ = build_sft_trainer(
        SftSettings(model="tiny", recovery=rec, output_dir=tmp_path / "sft", max_steps=1, max_length=512)
    )
    assert trainer.args.completion_only_loss is True and trainer.args.assistant_only_loss is False
    example = trainer.train_dataset[0]
    trained = [t for t, label in zip(example["input_ids"], example["labels"], strict=True) if label != -100]
    text = trainer.processing_class.decode(trained)
    recovery = rows[0]["messages"][-1]["content"]
    # the recovery turn and its end-of-turn marker, nothing of the transcript before it
    assert text == recovery + "<|im_end|>\n", text


def test_docs_name_the_loss_flag_the_code_uses() -> None:
    docs = (Path(__file__).parents[2] / "docs" / "faults.md").read_text(encoding="utf-8")
    assert "completion_only_loss=True" in docs and "assistant_only_loss=True`) trains" not in docs


class _ChatML:
    """A tokenizer stand-in with Qwen's ChatML template (what the RM's own tokenizer renders)."""

    pad_token = "<|endoftext|>"

    def apply_chat_template(self, messages: list[dict[str, str]], tokenize: bool = False) -> str:
        return "".join(f"<|im_start|>{m['role']}\n{m['content']}<|im_end|>\n" for m in messages)


def test_grpo_reward_model_sees_exactly_listing_1() -> None:
    from robustcall.rewards import HFClassifierScorer
    from robustcall.train._rewards import toolrm_fn

    seen: list[str] = []

    class Recording(HFClassifierScorer):
        def __init__(self) -> None:
            self.name, self.tokenizer = "recording", _ChatML()

        def score_texts(self, texts: list[str]) -> list[float]:
            seen.extend(texts)
            return [0.0] * len(texts)

    row = _rlla_row(0, "Paris")
    tools = json.dumps([{"name": "get_weather", "description": "Weather.", "parameters": {
        "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}])  # fmt: skip
    completion = row["reward_model"]["ground_truth"]
    assert toolrm_fn(Recording())(prompts=[row["prompt"]], completions=[completion], tools=[tools]) == [0.0]
    assert seen == [
        "<|im_start|>system\n"
        "You are provided with a user query, a catalog of tools available to fulfill that user query, and a list of "
        "tool calls that use tools available in the catalog to fulfill user request.\n"
        "Your job is to assess whether the tool calls adequately fulfill the user request or not.\n\n"
        "You have the following tools available:\n\n"
        "```json\n[\n"
        '    {"name": "get_weather", "description": "Weather.", "parameters": {"type": "object", '
        '"properties": {"city": {"type": "string"}}, "required": ["city"]}}\n'
        "]\n```\n<|im_end|>\n"
        "<|im_start|>user\n**Dialogue Records History**\n<user> What is the weather in Paris? </user><|im_end|>\n"
        '<|im_start|>assistant\n```json\n[\n    {"get_weather": {"city": "Paris"}}\n]\n```<|im_end|>\n'
    ]  # the policy's own system turn (its instructions and tool list) is not in the RM's input


def test_grpo_recipes_fill_the_papers_hyperparameters(tmp_path: Path) -> None:
    table16 = GrpoSettings(train=Path("x"), output_dir=Path("y"))
    assert table16.recipe == "toolrl-dr"
    assert (table16.train_batch_size, table16.mini_batch_size, table16.micro_batch_size) == (64, 32, 16)
    assert (table16.num_train_epochs, table16.num_generations, table16.learning_rate) == (3.0, 4, 1e-6)
    assert table16.rewards == ["toolrl_format", "toolrl_correctness"]
    table9 = GrpoSettings(train=Path("x"), output_dir=Path("y"), recipe="toolrm")
    assert (table9.train_batch_size, table9.mini_batch_size, table9.num_train_epochs) == (512, 128, 15.0)
    assert (table9.num_generations, table9.learning_rate, table9.max_prompt_length) == (4, 1e-6, 2048)
    assert table9.max_completion_length == 1024 and table9.rewards == ["toolrl_format", "toolrm"]
    assert (
        GrpoSettings(train=Path("x"), output_dir=Path("y"), recipe="toolrm", num_train_epochs=1).num_train_epochs == 1
    )
    # 512 prompts x K=4 per rollout, 128 x 4 per optimizer step, 16 completions per GPU on 2 GPUs
    assert batch_plan(table9, 2) == {
        "per_device_train_batch_size": 16,
        "gradient_accumulation_steps": 16,
        "steps_per_generation": 64,
    }


def test_cli_grpo_recipe_dry_run(tmp_path: Path) -> None:
    train = tmp_path / "t.parquet"
    train.touch()  # --dry-run checks that the file is there, as train verl does, and reads nothing
    common = ["train", "grpo", "--train", str(train), "--out", str(tmp_path), "--dry-run"]
    unscored = CliRunner().invoke(app, [*common, "--recipe", "toolrm"])
    assert unscored.exit_code == 2 and "the toolrm reward needs --toolrm-scorer" in unscored.output
    toolrm = CliRunner().invoke(app, [*common, "--recipe", "toolrm", "--toolrm-scorer", "schema", "--epochs", "2"])
    assert toolrm.exit_code == 0, toolrm.output
    assert toolrm.output.startswith("recipe toolrm: ToolRM, Table 9\n")
    settings = json.loads(toolrm.output.split("\n", 1)[1])
    assert (settings["train_batch_size"], settings["mini_batch_size"], settings["num_train_epochs"]) == (512, 128, 2.0)
    default = CliRunner().invoke(app, common)
    assert default.output.startswith("recipe toolrl-dr: ToolRL-DR, Table 16\n")
    assert json.loads(default.output.split("\n", 1)[1])["train_batch_size"] == 64
    bad = CliRunner().invoke(app, [*common, "--recipe", "nope"])
    assert bad.exit_code == 2 and "unknown recipe 'nope'; valid: toolrl-dr, toolrm" in bad.output
