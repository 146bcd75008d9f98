"""Multi-turn runs through the one loop: an episode is played into one ``trajectories.jsonl`` line.

Fault-injection runs (:mod:`robustcall.run._faults`) and PIPE runs (:mod:`robustcall.run._pipe`) plan
their episodes and say how to play one; :func:`run_episodes` does the rest with the loop single-turn
runs use (bounded concurrency, the checkpoint stream, resume, infra re-run, stop-after). A trajectory's
``id`` is its key; one that ended as ``infra`` is played again on resume. Every episode depends only
on its own environment, task and seed, so the records do not depend on the concurrency: only their
order in the file does, and :func:`read_trajectories` reads them back sorted by id.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import TypeVar

from robustcall.core import TRAJECTORIES, Trajectory, dump_record
from robustcall.models import DEFAULT_CONCURRENCY
from robustcall.run._loop import STOP_AFTER, Checkpoint, Outcome, RunStats, run_loop

U = TypeVar("U")


def _is_infra(t: Trajectory) -> bool:
    return t.termination == "infra"


def _trajectory_id(t: Trajectory) -> str:
    return t.id


TRAJECTORY_CHECKPOINT: Checkpoint[Trajectory, str] = Checkpoint(Trajectory, _trajectory_id, _is_infra)
"""A trajectories file read back: one record per episode id; infra failures are played again."""


def trajectory_outcome(traj: Trajectory) -> Outcome:
    """A finished episode as the loop records it."""
    infra = (traj.infra_error or "endpoint failure") if traj.termination == "infra" else None
    return Outcome(dump_record(traj), traj.id, infra)


async def run_episodes(
    episodes: Sequence[U],
    play: Callable[[U], Awaitable[Trajectory]],
    key: Callable[[U], str],
    out: Path,
    *,
    concurrency: int = DEFAULT_CONCURRENCY,
    resume: bool = False,
    stop_after: int = STOP_AFTER,
    on_episode: Callable[[Trajectory], None] | None = None,
) -> RunStats:
    """Play every episode whose id (``key``) is not yet in ``out/trajectories.jsonl``; ``play`` returns
    its trajectory with that id. ``on_episode`` sees each trajectory as it is recorded."""

    async def work(episode: U) -> Outcome:
        traj = await play(episode)
        if on_episode is not None:
            on_episode(traj)
        return trajectory_outcome(traj)

    return await run_loop(
        episodes,
        work,
        key,
        out / TRAJECTORIES,
        TRAJECTORY_CHECKPOINT,
        concurrency=concurrency,
        resume=resume,
        stop_after=stop_after,
        what="episodes",
    )
