"""``mcp run``: every task of a task file under the clean condition and each requested perturbation,
rename and fault profile, through ``run``'s one episode loop (bounded concurrency, checkpoint, resume,
infra re-ask, stop-after).

``OUT/<condition>/`` is a standard multi-turn run directory (``run.json`` + ``trajectories.jsonl``, one
``Trajectory`` per task), so ``faults report``, ``compare`` and ``card`` read it like a fault run (the
clean, perturbation and rename conditions are fault runs at δ = 0); ``OUT/mcp.json`` lists the
conditions. A rename condition's trajectories carry PIPE's ``level`` and ``interface_map``, as PIPE
runs do, so legacy calls are counted by ``interface.episode_counts``.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from robustcall.core import (
    RUN_META,
    TRAJECTORIES,
    ExistingOutputError,
    InputError,
    ToolCall,
    Trajectory,
    TrajectoryRunMeta,
    read_trajectories,
    read_trajectory_run_meta,
)
from robustcall.faults import load_profile
from robustcall.formats import OutputFormat
from robustcall.mcp._env import BackgroundLoop, Condition, EpisodeSources, McpTaskEnv
from robustcall.mcp._record import NotRecorded
from robustcall.mcp._tasks import TaskFile, fill
from robustcall.mcp._view import parse_perturb
from robustcall.models import make_model
from robustcall.perturb import Rewriter
from robustcall.run import STOP_AFTER, run_episode, run_episodes, stopped_failure
from robustcall.score import injection_followed

MANIFEST = "mcp.json"
CLEAN = "clean"


def parse_conditions(
    perturb: str, rename: Sequence[str], profiles: Sequence[str], delta: float | None, rewriter: Rewriter | None = None
) -> list[Condition]:
    """The clean condition, then one per perturbation type, rename level and fault profile."""
    out = [Condition(CLEAN)]
    try:
        codes = parse_perturb(perturb)
    except KeyError as exc:
        raise InputError(str(exc.args[0])) from None
    out += [Condition(f"perturb-{c}", perturb=(c,), rewriter=rewriter) for c in codes]
    for level in rename:
        if level == "dual":  # both orders, counterbalanced (PIPE, Appendix F): what IR needs
            out += [
                Condition("rename-dual1", rename="dual", order=1),
                Condition("rename-dual2", rename="dual", order=2),
            ]
        elif level in ("synonym", "symbol"):
            out.append(Condition(f"rename-{level}", rename="synonym" if level == "synonym" else "symbol"))
        else:
            raise InputError(f"--rename must be synonym, symbol or dual, got {level!r}")
    for spec in profiles:
        try:
            prof = load_profile(spec)
        except (OSError, ValueError) as exc:
            raise InputError(f"--profile {spec}: {exc}") from None
        if delta is not None:
            prof = prof.with_delta(delta)
        slug = re.sub(r"[^A-Za-z0-9_.-]+", "_", Path(spec).stem if spec.endswith((".yaml", ".yml", ".json")) else spec)
        out.append(Condition(f"faults-{slug}-d{prof.delta:g}", profile=prof))
    return out


SERVER_HINTS = {
    "mcp-server-sqlite": "it needs mcp 1.x, so give it its own environment: python -m venv "
    "~/.cache/robustcall/mcp-sqlite-venv && ~/.cache/robustcall/mcp-sqlite-venv/bin/pip install "
    "mcp-server-sqlite==2025.4.25 'mcp>=1.6,<2'",
}


def check_servers(tasks: TaskFile, task_ids: Sequence[str], workroot: Path) -> None:
    """Every server the chosen tasks start is installed (one line naming the first that is not)."""
    wanted = {t.server for t in tasks.tasks if t.id in set(task_ids)}
    for name in sorted(wanted):
        argv = shlex.split(str(fill(tasks.servers[name].command, workroot)))
        exe = argv[0] if argv else ""
        if not exe or (shutil.which(exe) is None and not Path(exe).is_file()):
            hint = SERVER_HINTS.get(Path(exe).name, "install it, or fix `command` in the task file")
            raise InputError(f"server {name!r} is not installed ({exe or 'empty command'}): {hint}")


def episode_id(task: str, condition: str) -> str:
    return f"mcp/{task}/{condition}"


def _infra(task: str, condition: Condition, model: str, seed: int, why: str) -> Trajectory:
    return Trajectory(id=episode_id(task, condition.name), env="mcp", task_id=task, model=model, seed=seed,
                      config={"condition": condition.name}, success=None, termination="infra",
                      infra_error=why)  # fmt: skip


async def run_mcp(
    tasks: TaskFile,
    tasks_path: Path,
    model_spec: str,
    out: Path,
    conditions: Sequence[Condition],
    *,
    limit: int | None = None,
    only: Sequence[str] | None = None,
    seed: int = 0,
    max_steps: int = 10,
    fmt: OutputFormat = "tool_call",
    mode: str | None = None,
    concurrency: int = 1,
    resume: bool = False,
    record: Path | None = None,
    replay: Path | None = None,
    settings: Path | None = None,
    stop_after: int = STOP_AFTER,
    on_episode: Callable[[Trajectory], None] | None = None,
) -> dict[str, list[Trajectory]]:
    """Play every (condition, task) episode not yet in ``OUT``; returns each condition's trajectories."""
    chosen = [t for t in tasks.tasks if only is None or t.id in only]
    if only is not None and len(chosen) != len(set(only)):
        unknown = sorted(set(only) - {t.id for t in tasks.tasks})
        raise InputError(f"no task {', '.join(unknown)} in {tasks_path}")
    task_ids = [t.id for t in chosen][:limit]
    if replay is None:
        check_servers(tasks, task_ids, out / "work")
    if not resume and any((out / c.name / TRAJECTORIES).is_file() for c in conditions):
        raise ExistingOutputError(f"{out} already holds episodes: pass --resume to finish that run, or a new --out")
    model = make_model(model_spec, mode=mode, settings_file=settings, concurrency=concurrency)  # type: ignore[arg-type]
    bg = BackgroundLoop()
    results: dict[str, list[Trajectory]] = {}
    try:
        out.mkdir(parents=True, exist_ok=True)
        manifest = {"tasks": str(tasks_path), "model": model_spec, "seed": seed, "limit": limit,
                    "record": str(record) if record else None, "replay": str(replay) if replay else None,
                    "conditions": [c.name for c in conditions]}  # fmt: skip
        (out / MANIFEST).write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        for cond in conditions:
            cdir = out / cond.name
            meta = TrajectoryRunMeta(kind="faults", env=f"mcp:{tasks_path.name}", model=model_spec, mode=model.mode,
                                     format=fmt, max_steps=max_steps, seeds=[seed], tasks=task_ids, limit=limit,
                                     deltas=[cond.profile.delta], profile=cond.profile.model_dump(by_alias=True),
                                     prompt="default", level=cond.rename, seed=seed)  # fmt: skip
            if resume and (cdir / RUN_META).exists() and read_trajectory_run_meta(cdir).profile != meta.profile:
                raise ExistingOutputError(f"{cdir} was run with a different fault profile; use a new --out")
            meta.write(cdir)
            sources = EpisodeSources(out / "work", record=record, replay=replay)

            async def play(task: str, cond: Condition = cond, sources: EpisodeSources = sources) -> Trajectory:
                env = McpTaskEnv(tasks, cond, sources, bg)
                try:
                    traj = await run_episode(model, env, task, seed=seed, max_steps=max_steps, fmt=fmt)
                    if traj.termination != "infra":
                        env.solved()
                except (NotRecorded, TimeoutError, OSError, RuntimeError) as exc:
                    return _infra(task, cond, model.name, seed, f"{type(exc).__name__}: {exc}")
                except Exception as exc:  # the server died or spoke nonsense: the episode is not scored
                    if isinstance(exc, InputError):
                        raise
                    return _infra(task, cond, model.name, seed, f"{type(exc).__name__}: {exc}")
                finally:
                    env.close()
                return _finish(traj, env, cond)

            def key(task: str, cond: Condition = cond) -> str:
                return episode_id(task, cond.name)

            stats = await run_episodes(task_ids, play, key, cdir, concurrency=concurrency, resume=True,
                                       stop_after=stop_after, on_episode=on_episode)  # fmt: skip
            if stats.stopped is not None:
                raise stopped_failure(stop_after, stats.stopped, f"fix it, then `--resume` (episodes are in {out})")
            results[cond.name] = read_trajectories(cdir, what="an MCP run")
    finally:
        bg.close()
        await model.aclose()
    return results


def _finish(traj: Trajectory, env: McpTaskEnv, cond: Condition) -> Trajectory:
    config: dict[str, Any] = {**traj.config, "condition": cond.name, "profile": cond.profile.name,
                              "delta": cond.profile.delta, "prompt": "default",
                              "distractor_calls": sum(r.outcome == "distractor" for r in env.rows),
                              "upstream_calls": sum(r.upstream is not None for r in env.rows)}  # fmt: skip
    if cond.perturb:
        config["perturb"] = list(cond.perturb)
    if env.injection is not None:  # Appendix N's attack success, read as ``score`` reads it
        after = [i for i, r in enumerate(env.rows) if r.injected]
        calls = [ToolCall(name=r.tool, arguments=r.arguments) for r in env.rows[after[0] + 1 :]] if after else []
        config["injection"] = env.injection
        config["injection_followed"] = bool(after) and injection_followed(env.injection, calls, env.final_text)
    if cond.rename is not None and env.actor is None and env.names_map:
        config.update({"env": "mcp", "level": cond.rename, "interface_map": env.names_map})
    return traj.model_copy(update={"id": episode_id(traj.task_id, cond.name), "config": config})
