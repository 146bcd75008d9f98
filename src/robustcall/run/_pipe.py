"""A PIPE run: every task of an environment behind one interface level, through the one run loop.

Each episode is played on an ``InterfaceEnv`` (``interface``) by any model (``models``; the scripted
``expert``, ``memorise`` and ``random`` agents play the episode's environment through its expert),
annotated with PIPE's per-step ``legacy`` / ``family`` / ``executed``, and appended to
``RUN/trajectories.jsonl``; ``RUN/run.json`` (``TrajectoryRunMeta``, ``kind = "pipe"``) records what
was asked. ``concurrency`` episodes are in flight at once, each on an environment of its own (taken
from a pool, so at most ``concurrency`` environments are made); an episode depends only on its task
and the seed, so the records are the same whatever the concurrency (their order in the file is not:
read them back with ``read_trajectories``, which sorts by id). An existing run is finished with
``resume`` (like ``robustcall run``: refused without it; a different model, level, format, step
limit or seed is refused); both dual orders go into one run directory.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from robustcall.core import (
    RUN_META,
    TRAJECTORIES,
    ExistingOutputError,
    Trajectory,
    TrajectoryRunMeta,
    read_trajectories,
    read_trajectory_run_meta,
)
from robustcall.envs import ENV_NAMES, load_env, size_note
from robustcall.formats import OutputFormat
from robustcall.interface import InterfaceEnv, Mode, annotate, interface_map
from robustcall.models import make_model
from robustcall.run._episode import run_episode
from robustcall.run._episodes import run_episodes
from robustcall.run._loop import STOP_AFTER, stopped_failure

PIPE_IDENTITY = ("env", "data", "model", "level", "format", "max_steps", "seed")
"""What a resumed PIPE run must agree on (the dual order may differ: both go into one directory)."""


def pipe_episode_id(env: str, task: str, mode: Mode, order: Literal[1, 2]) -> str:
    return f"{env}/{task}/{mode}" + (f"/order{order}" if mode == "dual" else "")


def _identity(meta: TrajectoryRunMeta) -> dict[str, Any]:
    dumped = meta.model_dump(mode="json")
    return {k: dumped.get(k) for k in PIPE_IDENTITY}


def _write_meta(out: Path, meta: TrajectoryRunMeta, resume: bool) -> None:
    """``run.json`` of the run; on resume the earlier one must agree on ``PIPE_IDENTITY`` (a second
    dual order joins the first: ``order`` 0 then says both)."""
    if resume and (out / RUN_META).exists():
        before = read_trajectory_run_meta(out)
        if before.kind != "pipe":
            raise ExistingOutputError(f"{out} holds a {before.kind} run, not a PIPE run: use a new --out")
        differs = [k for k, v in _identity(meta).items() if _identity(before).get(k) != v]
        if differs:
            raise ExistingOutputError(
                f"{out} was run with another {', '.join(differs)}: use a new --out (or the same settings to resume)"
            )
        if before.order is not None and before.order != meta.order:
            meta = meta.model_copy(update={"order": 0})
    meta.write(out)


async def run_pipe(
    env_name: str,
    mode: Mode,
    model_spec: str,
    out: Path,
    *,
    data: Path | None = None,
    order: Literal[1, 2] = 1,
    limit: int | None = None,
    max_steps: int = 30,
    seed: int = 0,
    resume: bool = False,
    settings: Path | None = None,
    fmt: OutputFormat = "tool_call",
    on_episode: Callable[[Trajectory], None] | None = None,
    map_file: Path | None = None,
    concurrency: int = 1,
    stop_after: int = STOP_AFTER,
    on_note: Callable[[str], None] | None = None,
) -> list[Trajectory]:
    """Every task of the environment (the first ``limit``) under ``mode``; returns every trajectory of
    the run directory (newest per id, sorted by id). ``env_name``: a registered environment or
    ``package.module:Class`` (with ``map_file`` or a ``synonyms`` attribute). ``on_note`` hears, when the
    whole task list runs, how many tasks the environment has where that is not its paper-002 test set size
    (Tables 7/8), and why."""
    make_inner = load_env(env_name, data)
    first = make_inner()
    imap = interface_map(env_name, first, map_file)
    pool = [InterfaceEnv(first, imap, mode, order)]  # environments not in an episode now
    tasks = pool[0].task_ids()[:limit]
    note = size_note(env_name, first) if limit is None else None
    if note is not None and on_note is not None:
        on_note(note)
    config: dict[str, Any] = {"env": env_name, "level": mode, "order": order, "max_steps": max_steps, "format": fmt}
    if env_name not in ENV_NAMES or map_file is not None:
        config["interface_map"] = [list(p) for p in imap.synonyms]
    if not resume and (out / TRAJECTORIES).is_file() and (out / TRAJECTORIES).stat().st_size:
        raise ExistingOutputError(f"{out / TRAJECTORIES} already holds episodes: pass --resume to finish that run")
    model = make_model(model_spec, mode="prompt", settings_file=settings, concurrency=concurrency)
    try:
        meta = TrajectoryRunMeta(
            kind="pipe",
            env=env_name,
            data=str(data) if data is not None else None,
            model=model_spec,
            mode=model.mode,
            format=fmt,
            max_steps=max_steps,
            limit=limit,
            tasks=tasks,
            level=mode,
            order=order if mode == "dual" else None,
            seed=seed,
            **({"interface_map": config["interface_map"]} if "interface_map" in config else {}),
        )
        _write_meta(out, meta, resume)

        async def play(task: str) -> Trajectory:
            env = pool.pop() if pool else InterfaceEnv(make_inner(), imap, mode, order)
            try:
                traj = await run_episode(model, env, task, seed=seed, max_steps=max_steps, fmt=fmt)
                update = {"id": pipe_episode_id(env_name, task, mode, order), "config": traj.config | config}
                return annotate(traj.model_copy(update=update), env)
            finally:
                pool.append(env)

        def key(task: str) -> str:
            return pipe_episode_id(env_name, task, mode, order)

        stats = await run_episodes(
            tasks,
            play,
            key,
            out,
            concurrency=concurrency,
            resume=resume,
            stop_after=stop_after,
            on_episode=on_episode,
        )
    finally:
        await model.aclose()
    if stats.stopped is not None:
        raise stopped_failure(
            stop_after,
            stats.stopped,
            f"fix the endpoint or the request, then `--resume` (episodes so far are in {out})",
        )
    return read_trajectories(out, what="a PIPE run")
