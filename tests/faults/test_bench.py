from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from policies import retry_once, run_episode
from shop_env import ShopEnv

from robustcall.core import TRAJECTORIES, Trajectory, TrajectoryRunMeta
from robustcall.faults import FaultyEnv, load_profile
from robustcall.run import read_trajectories, run_faults


async def _episode(env: FaultyEnv, task: str, seed: int) -> Trajectory:
    return run_episode(env, task, retry_once, seed=seed)


def _run(out: Path, profile_name: str = "default") -> object:
    return asyncio.run(
        run_faults(
            _episode,
            ShopEnv,
            tasks=["lamp", "mug"],
            profile=load_profile(profile_name),
            deltas=[0.0, 0.3, 1.0],
            seeds=[0, 1],
            out=out,
            meta=TrajectoryRunMeta(env="shop", model="scripted", max_steps=6),
        )
    )


def test_a_run_replays_byte_for_byte_and_resumes_after_a_kill(tmp_path: Path) -> None:
    _run(tmp_path / "a")
    _run(tmp_path / "b")
    first = (tmp_path / "a" / TRAJECTORIES).read_bytes()
    assert first == (tmp_path / "b" / TRAJECTORIES).read_bytes()
    trajs = read_trajectories(tmp_path / "a")
    assert len(trajs) == 12 and {t.config["delta"] for t in trajs} == {0.0, 0.3, 1.0}
    assert any(s.fault for t in trajs for s in t.steps)
    # a kill mid-write: five whole records and a torn sixth
    lines = first.splitlines(keepends=True)
    killed = tmp_path / "c"
    killed.mkdir()
    (killed / TRAJECTORIES).write_bytes(b"".join(lines[:5]) + lines[5][:40])
    (killed / "run.json").write_bytes((tmp_path / "a" / "run.json").read_bytes())
    stats = _run(killed)
    assert (stats.done, stats.skipped) == (7, 5)  # type: ignore[attr-defined]
    assert sorted((killed / TRAJECTORIES).read_bytes().splitlines()) == sorted(first.splitlines())
    assert _run(killed).done == 0  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="different fault profile"):
        _run(killed, "semantic")
