"""Running PIPE episodes: an environment behind an interface level, driven by a model, one
Trajectory per episode appended to ``trajectories.jsonl`` (resumable), plus the counts PIPE needs.

Scripted policies for tests and sanity checks (``scripted:expert``, ``scripted:memorise``) act
through the environment's expert: ``expert`` reads the interface it is shown and calls the expert's
action by the name listed there (in dual mode, the family listed first: synonyms in order 1,
originals in order 2); ``memorise`` always calls the original names, like an agent that memorised
its training interface. Both are exact, so their scores, legacy calls and IR are known in advance.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from robustcall.core import ExistingOutputError, JsonlAppender, Trajectory, read_checkpoint
from robustcall.envs import make_env
from robustcall.formats import OutputFormat
from robustcall.interface._env import InterfaceEnv, Mode, NameView
from robustcall.interface._maps import MAPS
from robustcall.models import ChatModel, ModelRequest, ModelResponse, make_model
from robustcall.models import Mode as ModelMode
from robustcall.run._episode import run_episode

TRAJECTORIES = "trajectories.jsonl"


class ExpertPolicy:
    """A scripted agent acting through the environment's expert (see the module docstring)."""

    mode: ModelMode = "fc"

    def __init__(self, env: InterfaceEnv, style: Literal["expert", "memorise"]) -> None:
        self.env, self.style, self.name = env, style, f"scripted:{style}"

    async def complete(self, req: ModelRequest) -> ModelResponse:
        action = self.env.env.expert_action()  # original names
        if action is None:
            return ModelResponse(text="Done.", tool_calls=[])
        if self.style == "expert":
            # the name the agent is shown for this action; in dual mode, whichever family is listed first
            names = {action.name, self.env.shown.get(action.name, action.name)}
            shown = next(t.name for t in req.tools if t.name in names)
            action = action.model_copy(update={"name": shown})
        return ModelResponse(text="", tool_calls=[action])

    async def aclose(self) -> None:
        return None


@dataclass(frozen=True)
class EpisodeCounts:
    """PIPE's per-episode counts, read off a trajectory."""

    legacy: int
    n_ori: int
    n_syn: int


def episode_counts(traj: Trajectory) -> EpisodeCounts:
    """Legacy calls and per-family call counts of an episode run by :func:`run_pipe`."""
    view = NameView(MAPS[traj.config["env"]], traj.config["level"])
    names = [s.action.name for s in traj.steps if s.action is not None]
    return EpisodeCounts(
        legacy=sum(view.is_legacy(n) for n in names),
        n_ori=sum(view.family(n) == "original" for n in names),
        n_syn=sum(view.family(n) == "alias" for n in names),
    )


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
) -> list[Trajectory]:
    """Every task of the environment (the first ``limit``) under ``mode``; returns all trajectories."""
    env = InterfaceEnv(make_env(env_name, data), MAPS[env_name], mode, order)
    out.mkdir(parents=True, exist_ok=True)
    path = out / TRAJECTORIES
    done: dict[str, Trajectory] = {}
    if path.exists() and path.stat().st_size:
        if not resume:
            raise ExistingOutputError(f"{path} already holds episodes: pass --resume to finish that run")
        done = {t.id: t for t in read_checkpoint(path, Trajectory) if t.termination != "infra"}
    model: ChatModel
    if model_spec in ("scripted:expert", "scripted:memorise"):
        model = ExpertPolicy(env, "expert" if model_spec.endswith("expert") else "memorise")
    else:
        model = make_model(model_spec, mode="prompt", settings_file=settings)
    tasks = env.task_ids()[:limit]
    config = {"env": env_name, "level": mode, "order": order, "max_steps": max_steps, "format": fmt}
    try:
        with JsonlAppender(path) as sink:
            for task in tasks:
                tid = f"{env_name}/{task}/{mode}" + (f"/order{order}" if mode == "dual" else "")
                if tid in done:
                    continue
                traj = await run_episode(model, env, task, seed=seed, max_steps=max_steps, fmt=fmt)
                traj = traj.model_copy(update={"id": tid, "config": traj.config | config})
                sink.write(traj)
                done[tid] = traj
                if on_episode:
                    on_episode(traj)
    finally:
        await model.aclose()
    return [done[t] for t in sorted(done)]
