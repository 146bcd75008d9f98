"""A fault-injection run: episodes of tasks x δ x seeds through ``FaultyEnv``, one trajectory stream.

``RUN/run.json`` records what was asked (environment, model, prompt variant, the full profile, the
δ values, seeds, step limit); ``RUN/trajectories.jsonl`` is the append-only checkpoint stream, one
``Trajectory`` per episode, with ``config = {profile, profile_hash, delta, prompt}``. The episodes go
through the one loop (:func:`~robustcall.run._episodes.run_episodes`). A run directory is always
resumable: episodes already written are skipped, infrastructure failures are played again; a
different fault profile is refused.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from robustcall.core import RUN_META, InputError, Trajectory, TrajectoryRunMeta, read_trajectory_run_meta, stable_hash
from robustcall.envs import Env
from robustcall.faults import FaultProfile, FaultyEnv
from robustcall.run._episodes import run_episodes
from robustcall.run._loop import STOP_AFTER

EpisodeFn = Callable[[FaultyEnv, str, int], Awaitable[Trajectory]]
"""Runs one episode of ``task_id`` with ``seed`` on the (already wrapped) environment."""


@dataclass(frozen=True)
class FaultRunStats:
    done: int
    skipped: int
    infra: int
    stopped: str | None = None
    """The infrastructure error that stopped the run early (``STOP_AFTER`` identical ones in a row)."""
    failure_reasons: Counter[str] = field(default_factory=Counter)
    """Infrastructure error -> how many episodes of this run ended with it."""


@dataclass(frozen=True)
class FaultEpisode:
    """One unit of a fault run: a task at one δ with one seed."""

    id: str
    task: str
    delta: float
    seed: int


def episode_id(env: str, task: str, delta: float, seed: int) -> str:
    return f"{env}/{task}/d{delta:g}/s{seed}"


def _episode_key(e: FaultEpisode) -> str:
    return e.id


async def run_faults(
    episode: EpisodeFn,
    make_env: Callable[[], Env],
    *,
    tasks: Iterable[str],
    profile: FaultProfile,
    deltas: Iterable[float],
    seeds: Iterable[int],
    out: Path,
    meta: TrajectoryRunMeta,
    prompt: str = "default",
    concurrency: int = 1,
    stop_after: int = STOP_AFTER,
) -> FaultRunStats:
    """Run every (task, δ, seed) episode not yet in ``out`` and append its trajectory; ``meta`` is
    written to ``out/run.json`` with the profile and prompt variant (an existing one must name the
    same profile)."""
    dumped = profile.model_dump(by_alias=True)
    if (out / RUN_META).exists() and read_trajectory_run_meta(out).profile != dumped:
        raise InputError(f"{out} was run with a different fault profile; use a new --out")
    meta.model_copy(update={"kind": "faults", "profile": dumped, "prompt": prompt}).write(out)
    name = make_env().name
    plan = [
        FaultEpisode(episode_id(name, task, float(d), int(s)), task, float(d), int(s))
        for d in deltas
        for task in tasks
        for s in seeds
    ]
    profile_hash = stable_hash(dumped)[:16]

    async def play(e: FaultEpisode) -> Trajectory:
        env = FaultyEnv(make_env(), profile.with_delta(e.delta))
        traj = await episode(env, e.task, e.seed)
        config = {
            **traj.config,
            "profile": profile.name,
            "profile_hash": profile_hash,
            "delta": e.delta,
            "prompt": prompt,
        }
        return traj.model_copy(update={"id": e.id, "seed": e.seed, "config": config})

    stats = await run_episodes(
        plan, play, _episode_key, out, concurrency=concurrency, resume=True, stop_after=stop_after
    )
    return FaultRunStats(
        done=stats.answered,
        skipped=stats.already_done,
        infra=stats.infra_errors,
        stopped=stats.stopped,
        failure_reasons=stats.failure_reasons,
    )
