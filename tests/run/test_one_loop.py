"""One loop for all three kinds of run: single-turn, fault injection and PIPE, each killed midway and
resumed, loses and duplicates nothing and ends with the records an uninterrupted run writes."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mock_openai import Reply, completion, mock_openai, serve_chat
from typer.testing import CliRunner

from robustcall.cli.main import app
from robustcall.core import (
    PREDICTIONS,
    TRAJECTORIES,
    EvalConfig,
    ExistingOutputError,
    GoldenAnswer,
    Message,
    Sample,
    SourceInfo,
    ToolCall,
    ToolSpec,
    Trajectory,
    TrajectoryRunMeta,
    read_trajectory_run_meta,
    write_jsonl,
)
from robustcall.envs import MazeEnv, load_env
from robustcall.faults import FaultyEnv, load_profile
from robustcall.models import (
    ENV_POLICIES,
    SCRIPTED_MODELS,
    BindsToEnv,
    ChatModel,
    ExpertEnv,
    ModelRequest,
    ModelResponse,
    env_policy,
    make_model,
)
from robustcall.run import (
    FaultRunStats,
    parse_types,
    plan_work,
    read_trajectories,
    run_episode,
    run_faults,
    run_items,
    run_pipe,
)


class Killed(BaseException):
    """What the process gets at the kill (not an ``Exception``: nothing records it as an error)."""


class KilledAfter:
    """``inner``, until its ``n``-th request: that one kills the run (for every episode it is bound to)."""

    def __init__(self, inner: ChatModel, n: int, count: list[int] | None = None) -> None:
        self.inner, self.n, self.count = inner, n, count if count is not None else [0]
        self.name, self.mode = inner.name, inner.mode

    def bind(self, env: ExpertEnv, seed: int) -> KilledAfter:
        assert isinstance(self.inner, BindsToEnv)
        return KilledAfter(self.inner.bind(env, seed), self.n, self.count)

    async def complete(self, req: ModelRequest) -> ModelResponse:
        self.count[0] += 1
        if self.count[0] >= self.n:
            raise Killed
        return await self.inner.complete(req)

    async def aclose(self) -> None:
        await self.inner.aclose()


def _lines(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines()


# single-turn -------------------------------------------------------------------------------------


def _sample(i: int) -> Sample:
    tool = ToolSpec(name=f"capital_{i}", description="The capital.", parameters={"type": "dict", "properties": {}})
    return Sample(
        id=f"bfcl_v3__simple_{i}",
        benchmark="bfcl_v3",
        category="simple",
        source=SourceInfo(original_id=f"simple_{i}", benchmark="bfcl_v3"),
        conversation=[Message(role="user", content=f"The capital of country {i}?")],
        tools=[tool],
        golden_answers=[GoldenAnswer(name=tool.name, parameters={})],
        eval_config=EvalConfig(method="bfcl_ast", output_format="bfcl"),
    )


def test_a_single_turn_run_killed_midway_resumes_to_the_uninterrupted_records(tmp_path: Path) -> None:
    bench = tmp_path / "bench"
    write_jsonl(bench / "clean.jsonl", [_sample(i) for i in range(6)])
    (bench / "manifest.json").write_text("{}\n")
    items = plan_work(bench, parse_types("clean,transition"))  # 6 x (clean + 6 transitions) = 42 records
    asyncio.run(run_items(items, make_model("scripted:oracle"), tmp_path / "whole", concurrency=4))
    whole = _lines(tmp_path / "whole" / PREDICTIONS)
    assert len(whole) == 42

    killed = tmp_path / "killed"
    with pytest.raises(Killed):  # request 30 of 78 kills it (a transition item asks twice)
        asyncio.run(run_items(items, KilledAfter(make_model("scripted:oracle"), 30), killed, concurrency=4))
    partial = len(_lines(killed / PREDICTIONS))
    assert 0 < partial < 42
    with pytest.raises(ExistingOutputError, match="--resume"):
        asyncio.run(run_items(items, make_model("scripted:oracle"), killed))
    stats = asyncio.run(run_items(items, make_model("scripted:oracle"), killed, concurrency=4, resume=True))
    assert (stats.already_done, stats.answered) == (partial, 42 - partial)
    assert sorted(_lines(killed / PREDICTIONS)) == sorted(whole)


# fault injection ---------------------------------------------------------------------------------


def _fault_run(out: Path, model: ChatModel, concurrency: int) -> FaultRunStats:
    async def episode(env: FaultyEnv, task: str, seed: int) -> Trajectory:
        return await run_episode(model, env, task, seed=seed, max_steps=8)

    make_env = load_env("maze")
    return asyncio.run(
        run_faults(
            episode,
            make_env,
            tasks=make_env().task_ids()[:4],
            profile=load_profile("default"),
            deltas=[0.0, 0.5],
            seeds=[0, 1],
            out=out,
            meta=TrajectoryRunMeta(env="maze", model=model.name, max_steps=8),
            concurrency=concurrency,
        )
    )


def test_a_fault_run_killed_midway_resumes_to_the_uninterrupted_trajectories(tmp_path: Path) -> None:
    _fault_run(tmp_path / "whole", make_model("scripted:expert"), 1)
    whole = _lines(tmp_path / "whole" / TRAJECTORIES)
    assert len(whole) == 16
    with pytest.raises(Killed):
        _fault_run(tmp_path / "killed", KilledAfter(make_model("scripted:expert"), 40), 3)
    partial = len(_lines(tmp_path / "killed" / TRAJECTORIES))
    assert 0 < partial < 16
    stats = _fault_run(tmp_path / "killed", make_model("scripted:expert"), 3)
    assert (stats.skipped, stats.done) == (partial, 16 - partial)
    assert sorted(_lines(tmp_path / "killed" / TRAJECTORIES)) == sorted(whole)
    meta = read_trajectory_run_meta(tmp_path / "killed")
    assert (meta.kind, meta.model, meta.prompt) == ("faults", "scripted:expert", "default")
    assert meta.profile == load_profile("default").model_dump(by_alias=True)


# PIPE --------------------------------------------------------------------------------------------


@pytest.fixture()
def killing_policy() -> Iterator[list[int]]:
    """``scripted:test_killed_expert``: the expert, until its request number ``state[0]`` (counted in
    ``state[1]``) kills the run."""
    state = [10**9, 0]
    expert = ENV_POLICIES["expert"]

    def killed_expert(action: ToolCall, original: str, req: ModelRequest, seed: int) -> ToolCall:
        state[1] += 1
        if state[1] >= state[0]:
            raise Killed
        return expert(action, original, req, seed)

    env_policy("test_killed_expert")(killed_expert)
    try:
        yield state
    finally:
        del ENV_POLICIES["test_killed_expert"], SCRIPTED_MODELS["test_killed_expert"]


def test_a_pipe_run_killed_midway_resumes_to_the_uninterrupted_trajectories(
    tmp_path: Path, killing_policy: list[int]
) -> None:
    def pipe(out: Path, *, concurrency: int = 1, resume: bool = False) -> list[Trajectory]:
        return asyncio.run(
            run_pipe("maze", "dual", "scripted:test_killed_expert", out, order=2, max_steps=30,
                     concurrency=concurrency, resume=resume)
        )  # fmt: skip

    whole = pipe(tmp_path / "whole")
    assert len(whole) == MAZE_TASKS and all(t.success for t in whole)
    killing_policy[:] = [60, 0]
    with pytest.raises(Killed):
        pipe(tmp_path / "killed", concurrency=4)
    partial = len(_lines(tmp_path / "killed" / TRAJECTORIES))
    assert 0 < partial < MAZE_TASKS
    killing_policy[:] = [10**9, 0]
    with pytest.raises(ExistingOutputError, match="--resume"):
        pipe(tmp_path / "killed")
    assert pipe(tmp_path / "killed", concurrency=4, resume=True) == whole
    assert sorted(_lines(tmp_path / "killed" / TRAJECTORIES)) == sorted(_lines(tmp_path / "whole" / TRAJECTORIES))


MAZE_TASKS = len(MazeEnv().task_ids())
"""The default maze task list (Table 8's 25)."""
MAZE_CALL = '<tool_call>\n{"name": "move_down", "arguments": {}}\n</tool_call>'


def _pipe_cmd(url: str, out: Path, *more: str) -> list[str]:
    return [
        sys.executable, "-m", "robustcall.cli.main", "pipe", "run", "--env", "maze", "--level", "synonym",
        "--model", f"openai:mock@{url}", "--max-steps", "3", "--out", str(out), *more,
    ]  # fmt: skip


def test_pipe_run_sigkilled_through_the_cli_resumes_and_concurrency_changes_no_record(tmp_path: Path) -> None:
    """Kill -9 a real `robustcall pipe run --concurrency 2` against a slow endpoint, then --resume; the
    records equal those of an uninterrupted run at --concurrency 1 and at --concurrency 6."""
    with mock_openai(reply=MAZE_CALL, latency_s=0.1) as url:
        out = tmp_path / "killed"
        proc = subprocess.Popen(
            _pipe_cmd(url, out, "--concurrency", "2"), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        traj = out / TRAJECTORIES
        deadline = time.time() + 60
        while time.time() < deadline and not (traj.exists() and traj.read_bytes().count(b"\n") >= 2):
            time.sleep(0.02)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        partial = traj.read_bytes().count(b"\n")
        assert 2 <= partial < MAZE_TASKS, partial
        refused = subprocess.run(_pipe_cmd(url, out), capture_output=True, text=True, timeout=120)
        assert refused.returncode != 0 and "--resume" in refused.stderr
        other = subprocess.run(
            _pipe_cmd(url, out, "--resume", "--max-steps", "4"), capture_output=True, text=True, timeout=120
        )
        assert other.returncode != 0 and "max_steps" in other.stderr
        done = subprocess.run(
            _pipe_cmd(url, out, "--resume", "--concurrency", "2"), capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 0, done.stderr
        for c in ("1", "6"):
            result = CliRunner().invoke(app, _pipe_cmd(url, tmp_path / c, "--concurrency", c)[3:])
            assert result.exit_code == 0, result.output
    killed = read_trajectories(out)
    assert [t.id for t in killed] == sorted(f"maze/{task}/synonym" for task in MazeEnv().task_ids())
    assert len(_lines(traj)) == MAZE_TASKS  # nothing twice
    for c in ("1", "6"):
        assert killed == read_trajectories(tmp_path / c)
        assert sorted(_lines(traj)) == sorted(_lines(tmp_path / c / TRAJECTORIES))
    meta = json.loads((out / "run.json").read_text())
    assert (meta["kind"], meta["level"], meta["max_steps"]) == ("pipe", "synonym", 3)


def test_an_episode_run_stops_on_repeated_identical_infra_errors_and_resume_plays_them_again(tmp_path: Path) -> None:
    """5 identical endpoint failures in a row stop a PIPE run (exit 3 through the CLI); --resume drops
    the infra records and plays those episodes again."""
    status = [400]

    async def chat(body: dict[str, Any]) -> Reply:
        if status[0] != 200:
            return status[0], {"error": {"message": "no such model"}}, {}
        return completion(MAZE_CALL)

    with serve_chat(chat) as url:
        args = _pipe_cmd(url, tmp_path / "run", "--concurrency", "1")[3:]
        stopped = CliRunner().invoke(app, args)
        assert stopped.exit_code == 3 and "stopped after 5 identical failures" in stopped.output
        records = [Trajectory.model_validate_json(line) for line in _lines(tmp_path / "run" / TRAJECTORIES)]
        assert [t.termination for t in records] == ["infra"] * 5
        status[0] = 200
        resumed = CliRunner().invoke(app, [*args, "--resume"])
        assert resumed.exit_code == 0, resumed.output
        whole = CliRunner().invoke(app, _pipe_cmd(url, tmp_path / "whole")[3:])
        assert whole.exit_code == 0, whole.output
    assert len(_lines(tmp_path / "run" / TRAJECTORIES)) == MAZE_TASKS  # the infra records were dropped, not kept
    assert read_trajectories(tmp_path / "run") == read_trajectories(tmp_path / "whole")
