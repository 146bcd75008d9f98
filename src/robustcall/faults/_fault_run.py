"""A fault-injection run: episodes of tasks x δ x seeds through ``FaultyEnv``, one trajectory stream.

``RUN/run.json`` records what was asked (environment, model, prompt variant, the full profile, the
δ values, seeds, step limit); ``RUN/trajectories.jsonl`` is the append-only checkpoint stream, one
``Trajectory`` per episode, with ``config = {profile, profile_hash, delta, prompt}``. A killed run
resumes where it stopped: episodes already written are skipped, infrastructure failures are run
again (the newest record of an id wins when reading).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from robustcall.core import (
    JsonlAppender,
    MissingInputError,
    Trajectory,
    atomic_write_text,
    read_checkpoint,
    stable_hash,
)
from robustcall.envs import Env
from robustcall.envs import load_env as load_env  # re-exported: fault runs resolve --env with it
from robustcall.faults._env import FaultyEnv
from robustcall.faults._profile import FaultProfile

TRAJECTORIES = "trajectories.jsonl"
RUN_META = "run.json"

EpisodeFn = Callable[[FaultyEnv, str, int], Awaitable[Trajectory]]
"""Runs one episode of ``task_id`` with ``seed`` on the (already wrapped) environment."""


@dataclass(frozen=True)
class FaultRunStats:
    done: int
    skipped: int
    infra: int


def episode_id(env: str, task: str, delta: float, seed: int) -> str:
    return f"{env}/{task}/d{delta:g}/s{seed}"


def read_trajectories(run_dir: Path) -> list[Trajectory]:
    """The newest record of every episode of a run (resume may have re-run infra failures)."""
    path = run_dir / TRAJECTORIES
    if not path.is_file():
        raise MissingInputError(f"{path} not found: not a fault-injection run directory")
    latest: dict[str, Trajectory] = {}
    for t in read_checkpoint(path, Trajectory):
        latest[t.id] = t
    return sorted(latest.values(), key=lambda t: t.id)


async def run_faults(
    episode: EpisodeFn,
    make_env: Callable[[], Env],
    *,
    tasks: Iterable[str],
    profile: FaultProfile,
    deltas: Iterable[float],
    seeds: Iterable[int],
    out: Path,
    meta: dict[str, Any],
    prompt: str = "default",
    concurrency: int = 1,
) -> FaultRunStats:
    """Run every (task, δ, seed) episode not yet in ``out`` and append its trajectory."""
    out.mkdir(parents=True, exist_ok=True)
    meta_path = out / RUN_META
    full_meta = {**meta, "profile": profile.model_dump(by_alias=True), "prompt": prompt}
    if meta_path.exists():
        old = json.loads(meta_path.read_text())
        if old.get("profile") != full_meta["profile"]:
            raise ValueError(f"{out} was run with a different fault profile; use a new --out")
    atomic_write_text(meta_path, json.dumps(full_meta, indent=2, sort_keys=True) + "\n")
    done = {t.id for t in read_checkpoint(out / TRAJECTORIES, Trajectory) if t.termination != "infra"}
    probe = make_env()
    plan = [
        (task, float(d), int(s))
        for d in deltas
        for task in tasks
        for s in seeds
        if episode_id(probe.name, task, float(d), int(s)) not in done
    ]
    profile_hash = stable_hash(profile.model_dump(by_alias=True))[:16]
    gate = asyncio.Semaphore(max(1, concurrency))
    infra = 0

    async def one(task: str, delta: float, seed: int, sink: JsonlAppender) -> None:
        nonlocal infra
        async with gate:
            env = FaultyEnv(make_env(), profile.with_delta(delta))
            traj = await episode(env, task, seed)
        config = {
            **traj.config,
            "profile": profile.name,
            "profile_hash": profile_hash,
            "delta": delta,
            "prompt": prompt,
        }
        traj = traj.model_copy(update={"id": episode_id(env.name, task, delta, seed), "seed": seed, "config": config})
        infra += traj.termination == "infra"
        sink.write(traj)

    with JsonlAppender(out / TRAJECTORIES) as sink:
        await asyncio.gather(*(one(t, d, s, sink) for t, d, s in plan))
    return FaultRunStats(done=len(plan), skipped=len(done), infra=infra)
