"""Replay of a predictions file, the settings file, spec parsing and schema conversion."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from robustcall.core import Prediction, PredictionRecord, RunMeta, Sample, ToolCall, dump_record
from robustcall.models import (
    ModelRequest,
    ModelResponse,
    ModelSettings,
    OpenAIChatModel,
    ReplayModel,
    SettingsError,
    json_schema,
    load_settings,
    make_model,
)


def _write(path: Path, sample: Sample, preds: dict[str, Prediction]) -> Path:
    lines = []
    for sid, pred in preds.items():
        rec = PredictionRecord(**sample.model_dump(), prediction=pred, model="m")
        lines.append(dump_record(rec.model_copy(update={"id": sid})))
    path.write_text("\n".join(lines) + "\n")
    return path


def _ask(model: ReplayModel, sample: Sample, sid: str, pass_index: int = 0) -> ModelResponse:
    s = sample.model_copy(update={"id": sid})
    return asyncio.run(model.complete(ModelRequest(messages=[], tools=[], sample=s, pass_index=pass_index)))


def test_replay_returns_the_stored_text_per_sample_and_pass(tmp_path, sample):
    path = _write(
        tmp_path / "p.jsonl",
        sample,
        {
            "a": Prediction(raw_output="[f(x=1)]", tool_calls=[ToolCall(name="f", arguments={"x": 1})]),
            "t": Prediction(raw_output="gave up", transition_injected=True, pass1_raw_output="[g()]"),
            "n": Prediction(raw_output="no call", transition_injected=False),
            "fc": Prediction(raw_output="", tool_calls=[ToolCall(name="f")]),
            "bad": Prediction(error="HTTP 503", error_kind="infra"),
        },
    )
    model = make_model(f"replay:{path}")
    assert isinstance(model, ReplayModel) and len(model) == 5
    a = _ask(model, sample, "a")
    assert (a.text, a.tool_calls, a.error) == ("[f(x=1)]", None, None)  # re-parsed by the caller
    assert _ask(model, sample, "t").text == "[g()]"
    assert _ask(model, sample, "t", 1).text == "gave up"
    assert _ask(model, sample, "n").text == "no call"
    assert _ask(model, sample, "n", 1).error_kind == "infra"
    assert _ask(model, sample, "fc").tool_calls == [ToolCall(name="f")]
    assert _ask(model, sample, "bad").error_kind == "infra"
    missing = _ask(model, sample, "zzz")
    assert missing.error_kind == "infra" and missing.error is not None and "not in replay file" in missing.error


def test_load_settings_reads_yaml_with_defaults_and_overrides(tmp_path):
    path = tmp_path / "models.yaml"
    path.write_text(
        "default: {timeout_s: 60}\n"
        "DeepSeek-R1-Distill-14B: {temperature: 0.6, max_tokens: 4096}\n"
        "Qwen3-8B: {mode: FC, extra_body: {chat_template_kwargs: {enable_thinking: false}}}\n"
    )
    assert load_settings(None, "x") == ModelSettings()
    assert ModelSettings().temperature == 0.0 and ModelSettings().max_tokens == 1024
    ds = load_settings(path, "DeepSeek-R1-Distill-14B")
    assert (ds.temperature, ds.max_tokens, ds.timeout_s, ds.mode) == (0.6, 4096, 60.0, "prompt")
    q = load_settings(path, "Qwen3-8B")
    assert q.mode == "fc" and q.extra_body == {"chat_template_kwargs": {"enable_thinking": False}}
    assert load_settings(path, "unlisted").timeout_s == 60.0


def test_load_settings_json_and_errors(tmp_path):
    good = tmp_path / "m.json"
    good.write_text(json.dumps({"m": {"max_tokens": "256"}}))
    assert load_settings(good, "m").max_tokens == 256
    bad = tmp_path / "bad.yaml"
    bad.write_text("m: {temprature: 0.1}\n")
    with pytest.raises(SettingsError, match="unknown setting 'temprature'"):
        load_settings(bad, "m")
    bad.write_text("m: {mode: chat}\n")
    with pytest.raises(SettingsError, match="mode must be"):
        load_settings(bad, "m")


def test_make_model_specs(tmp_path):
    settings = tmp_path / "s.yaml"
    settings.write_text("gpt-4o: {mode: fc, max_tokens: 10}\n")
    m = make_model("openai:gpt-4o@http://127.0.0.1:9/v1", settings_file=settings, concurrency=3)
    assert isinstance(m, OpenAIChatModel)
    assert (m.mode, m.settings.max_tokens, m.concurrency) == ("fc", 10, 3)
    assert m.url == "http://127.0.0.1:9/v1/chat/completions"
    assert make_model("openai:org/model@v2@http://h:1", mode="prompt").mode == "prompt"
    for bad in ("openai:gpt-4o", "nope", "openai:@http://h", "scripted:"):
        with pytest.raises(ValueError, match="bad model spec"):
            make_model(bad)


def test_json_schema_maps_bfcl_types_but_not_property_names():
    schema = {
        "type": "dict",
        "properties": {
            "type": {"type": "string", "enum": ["dict", "float"]},
            "ratio": {"type": "float"},
            "pair": {"type": "tuple", "items": {"type": "dict", "properties": {"k": {"type": "any"}}}},
        },
        "required": ["type"],
    }
    assert json_schema(schema) == {
        "type": "object",
        "properties": {
            "type": {"type": "string", "enum": ["dict", "float"]},
            "ratio": {"type": "number"},
            "pair": {"type": "array", "items": {"type": "object", "properties": {"k": {"type": "string"}}}},
        },
        "required": ["type"],
    }


def test_replay_takes_the_replayed_runs_mode(tmp_path, sample):
    """An fc run replayed in prompt mode would read text as calls the fc run never read, and ask for a
    transition's pass 2 that was never made (README's replay line: every transition record failed)."""
    preds = _write(tmp_path / "predictions.jsonl", sample, {sample.id: Prediction(raw_output="x")})
    assert make_model(f"replay:{preds}").mode == "prompt"  # no run.json beside it
    RunMeta(model="openai:m@http://h/v1", mode="fc", limit=None, shard=None).write(tmp_path)
    assert make_model(f"replay:{preds}").mode == "fc"
    assert make_model(f"replay:{preds}", mode="prompt").mode == "prompt"  # --mode still wins
    (tmp_path / "run.json").write_text("{not json")
    assert make_model(f"replay:{preds}").mode == "prompt"


def test_an_fc_replay_answers_with_the_calls_the_run_read(tmp_path, sample):
    """README's replay of an fc run: a pass-1 text the fc run did not read as a call (`[f(a=1)]` beside
    no structured call) stays no call, so no pass 2 is asked; a text beside calls keeps the calls."""
    path = _write(
        tmp_path / "p.jsonl",
        sample,
        {
            "n": Prediction(raw_output="[f(a=1)]", transition_injected=False),
            "both": Prediction(raw_output="Let me look.", tool_calls=[ToolCall(name="f", arguments={"x": 1})]),
        },
    )
    model = make_model(f"replay:{path}", mode="fc")
    assert _ask(model, sample, "n").tool_calls == []
    assert _ask(model, sample, "both").tool_calls == [ToolCall(name="f", arguments={"x": 1})]
    prompt = make_model(f"replay:{path}", mode="prompt")
    assert _ask(prompt, sample, "n").tool_calls is None  # prompt mode: the caller reads the text again
