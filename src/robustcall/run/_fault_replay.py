"""Replay a logged fault run: the recorded model outputs, the same profile, δ and seeds.

Each episode is run again through a fresh ``FaultyEnv`` with a model that answers step i with the
text (and, in fc mode, the call) recorded at step i. The injector's decisions depend only on the
profile seed, the episode and the call index, so the same faults meet the same calls and the new
``trajectories.jsonl`` must equal the old one byte for byte; ``replay_run`` reports whether it does.
"""

from __future__ import annotations

import json
from pathlib import Path

from robustcall.core import TRAJECTORIES, Trajectory, read_trajectories, read_trajectory_run_meta
from robustcall.envs import load_env
from robustcall.faults import FaultProfile, FaultyEnv, parse_axes, with_axes
from robustcall.models import Mode, ModelRequest, ModelResponse
from robustcall.run._episode import run_episode
from robustcall.run._faults import episode_id, run_faults


class RecordedModel:
    """A ``ChatModel`` that answers with one logged episode's outputs, step by step."""

    def __init__(self, traj: Trajectory) -> None:
        self.traj = traj
        self.name = traj.model
        mode = traj.config.get("mode", "prompt")
        self.mode: Mode = "fc" if mode == "fc" else "prompt"

    async def complete(self, req: ModelRequest) -> ModelResponse:
        if req.pass_index >= len(self.traj.steps):
            return ModelResponse(text="", tool_calls=None, error="replay ran past the log", error_kind="infra")
        step = self.traj.steps[req.pass_index]
        if self.mode == "fc":
            return ModelResponse(text=step.raw_output, tool_calls=[step.action] if step.action else [])
        return ModelResponse(text=step.raw_output, tool_calls=None)

    async def aclose(self) -> None:
        return None


def _latest_lines(path: Path) -> list[bytes]:
    """The last line of every episode id, sorted (resume may have appended a newer record of an id)."""
    latest: dict[str, bytes] = {}
    for line in path.read_bytes().split(b"\n"):  # JSONL breaks lines at \n only
        if line.strip():
            record = json.loads(line)
            if record.get("termination") != "infra":
                latest[record["id"]] = line
    return sorted(latest.values())


async def replay_run(run_dir: Path, out: Path) -> bool:
    """Re-run every logged episode of ``run_dir`` into ``out``; True when the records are identical."""
    meta = read_trajectory_run_meta(run_dir)
    logged = {t.id: t for t in read_trajectories(run_dir) if t.termination != "infra"}
    axes = parse_axes(",".join(meta.axes))
    make_env = with_axes(load_env(meta.env, Path(meta.data) if meta.data else None), axes)
    profile = FaultProfile.model_validate(meta.profile)
    prompt = meta.prompt or "default"

    async def episode(env: FaultyEnv, task: str, seed: int) -> Trajectory:
        traj = logged[episode_id(env.name, task, env.profile.delta, seed)]
        model = RecordedModel(traj)
        fmt = traj.config.get("format", meta.format)
        return await run_episode(model, env, task, seed=seed, max_steps=meta.max_steps, fmt=fmt, prompt=prompt)

    tasks = sorted({t.task_id for t in logged.values()})
    for delta in sorted({float(t.config["delta"]) for t in logged.values()}):
        for task in tasks:
            seeds = sorted(t.seed for t in logged.values() if t.task_id == task and t.config["delta"] == delta)
            await run_faults(
                episode,
                make_env,
                tasks=[task],
                profile=profile,
                deltas=[delta],
                seeds=seeds,
                out=out,
                meta=meta,
                prompt=prompt,
            )
    return _latest_lines(run_dir / TRAJECTORIES) == _latest_lines(out / TRAJECTORIES)
