"""Model kinds, scripted models and environments are registered by name, one place each."""

from __future__ import annotations

import asyncio

import pytest

from robustcall.core import Sample
from robustcall.envs import ENV_NAMES, ENVS, EnvKind, MazeEnv, env_names, make_env, register_env
from robustcall.models import (
    MODEL_KINDS,
    SCRIPTED_MODELS,
    SPEC_HELP,
    ChatModel,
    Mode,
    ModelKind,
    ModelRequest,
    ModelResponse,
    ModelSpec,
    ReplayModel,
    ScriptedModel,
    check_spec,
    make_model,
    register_model_kind,
    scripted_model,
    scripted_names,
    spec_help,
)


def test_the_built_in_kinds_and_their_help() -> None:
    assert list(MODEL_KINDS) == ["local", "openai", "replay", "scripted"]
    assert SPEC_HELP == (
        "local | local:<gguf> | openai/<model> (with --base-url or OPENAI_BASE_URL) | openai:<model>@<base_url> | "
        "replay:<predictions.jsonl> | scripted:<policy>"
    )


class _Echo:
    def __init__(self, spec: ModelSpec) -> None:
        self.name = spec.spec
        self.mode: Mode = spec.mode or "prompt"
        self.spec = spec

    async def complete(self, req: ModelRequest) -> ModelResponse:
        return ModelResponse(text=self.spec.rest, tool_calls=None)

    async def aclose(self) -> None:
        return None


def test_a_registered_kind_is_built_and_listed_in_errors() -> None:
    register_model_kind(ModelKind("echo", "echo:<text>", _Echo))
    try:
        model = make_model("echo:hi", mode="fc", concurrency=7)
        assert isinstance(model, _Echo) and isinstance(model, ChatModel)
        assert (model.spec.kind, model.spec.rest, model.spec.mode, model.spec.concurrency) == ("echo", "hi", "fc", 7)
        assert spec_help().endswith("| scripted:<policy> | echo:<text>")
        with pytest.raises(ValueError, match=r"bad model spec 'nope:x': expected .*\| echo:<text>$"):
            make_model("nope:x")
        for bad in ("echo", "echo:", "echo/hi"):  # no argument, or a separator echo does not take
            with pytest.raises(ValueError, match="bad model spec"):
                check_spec(bad)
        with pytest.raises(ValueError, match="--base-url applies to openai/<model> specs, not 'echo:hi'"):
            make_model("echo:hi", base_url="http://h:1/v1")
    finally:
        del MODEL_KINDS["echo"]
    assert spec_help() == SPEC_HELP


def test_the_built_in_kinds_read_their_specs(tmp_path) -> None:
    (tmp_path / "p.jsonl").write_text("")
    replay = make_model(f"replay:{tmp_path / 'p.jsonl'}")
    assert isinstance(replay, ReplayModel) and replay.mode == "prompt"
    scripted = make_model("scripted:oracle")
    assert isinstance(scripted, ScriptedModel) and (scripted.name, scripted.mode) == ("scripted:oracle", "fc")
    check_spec("openai/gpt-4o", base_url="http://h:1/v1")
    for bad in ("local/x", "openai", "replay", "scripted:", "openai/"):
        with pytest.raises(ValueError, match="bad model spec"):
            check_spec(bad)


def test_a_scripted_model_is_registered_by_name() -> None:
    seen: list[Mode | None] = []

    @scripted_model("constant_test")
    def constant(mode: Mode | None) -> ChatModel:
        seen.append(mode)
        return ScriptedModel("oracle", mode=mode or "prompt")

    try:
        assert "constant_test" in scripted_names() and "oracle" in scripted_names()
        model = make_model("scripted:constant_test")
        assert isinstance(model, ScriptedModel) and model.mode == "prompt" and seen == [None]
        make_model("scripted:constant_test", mode="fc")
        assert seen == [None, "fc"]
        with pytest.raises(ValueError, match=r"unknown scripted policy 'nope' \(known: .*constant_test"):
            make_model("scripted:nope")
    finally:
        del SCRIPTED_MODELS["constant_test"]


def test_a_scripted_policy_answers_through_the_registry(sample: Sample) -> None:
    model = make_model("scripted:oracle")
    resp = asyncio.run(model.complete(ModelRequest(messages=sample.conversation, tools=sample.tools, sample=sample)))
    assert resp.text == '[{"name": "weather.get_forecast", "parameters": {"city": "Paris", "days": 3}}]'
    assert resp.tool_calls is not None and [c.name for c in resp.tool_calls] == ["weather.get_forecast"]


def test_environments_are_registered_by_name(tmp_path) -> None:
    assert ENV_NAMES == ("babyai", "bfcl_multi_turn", "dbbench", "maze", "sciworld", "textcraft", "wordle")
    assert isinstance(make_env("maze"), MazeEnv)
    with pytest.raises(ValueError, match="wordle needs --data"):
        make_env("wordle")
    register_env(EnvKind("maze_test", lambda data: MazeEnv()))
    try:
        assert "maze_test" in env_names() and isinstance(make_env("maze_test"), MazeEnv)
        with pytest.raises(ValueError, match=r"unknown environment 'nope'; known: babyai, .*maze_test"):
            make_env("nope")
    finally:
        del ENVS["maze_test"]
