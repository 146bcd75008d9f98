"""Running PIPE episodes: an environment behind an interface level, driven by a model, one
Trajectory per episode appended to ``trajectories.jsonl`` (resumable), plus the counts PIPE needs.

Scripted policies for tests and sanity checks (``scripted:expert``, ``scripted:memorise``,
``scripted:random``) act through the environment's expert: ``expert`` reads the interface it is shown
and calls the expert's action by the name listed there (in dual mode, the family listed first:
synonyms in order 1, originals in order 2); ``memorise`` always calls the original names, like an
agent that memorised its training interface; ``random`` calls the expert's action by one of its
names drawn at random, each name weighted by how often it appears in everything the agent has been
shown (system prompt, instruction, tool list, observations) — a reader with no preference of its
own, so its IR measures what the prompt leans towards (≈ 1 when both families are presented evenly).
``expert`` and ``memorise`` are exact, so their scores, legacy calls and IR are known in advance;
``random`` is seeded (run seed, task, step).

Every step of a PIPE trajectory records ``legacy`` and ``family`` (:meth:`NameView.classify`) and
``executed``: the call the environment ran, in its original names (``None`` when the wrapper refused
a deprecated name). The environment is a registered name or ``package.module:Class`` (like fault
runs); a class of your own brings its interface map as a ``synonyms`` attribute (``((original,
synonym), ...)``, symbols numbered in that order) or ``--map FILE`` (a JSON object original ->
synonym); the map is then recorded in each trajectory's config so the counts can be read back.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from robustcall.core import ExistingOutputError, JsonlAppender, Step, ToolCall, Trajectory, read_checkpoint, seeded_rng
from robustcall.envs import ENV_NAMES, Env, load_env
from robustcall.formats import OutputFormat
from robustcall.interface._env import InterfaceEnv, Mode, NameView
from robustcall.interface._maps import MAPS, InterfaceMap, check_map
from robustcall.models import ChatModel, ModelRequest, ModelResponse, make_model
from robustcall.models import Mode as ModelMode
from robustcall.run._episode import run_episode

TRAJECTORIES = "trajectories.jsonl"


Style = Literal["expert", "memorise", "random"]
STYLES: tuple[Style, ...] = ("expert", "memorise", "random")


def mentions(req: ModelRequest, name: str) -> int:
    """Whole-word occurrences of ``name`` (or of it spelled with spaces for ``_``) in everything the
    request shows the agent."""
    spellings = sorted({re.escape(name), re.escape(name.replace("_", " "))}, key=len, reverse=True)
    pattern = re.compile(r"(?<![\w])(?:" + "|".join(spellings) + r")(?![\w])")
    texts = [m.content for m in req.messages] + [f"{t.name} {t.description}" for t in req.tools]
    return sum(len(pattern.findall(text)) for text in texts)


class ExpertPolicy:
    """A scripted agent acting through the environment's expert (see the module docstring)."""

    mode: ModelMode = "fc"

    def __init__(self, env: InterfaceEnv, style: Style, seed: int = 0) -> None:
        self.env, self.style, self.name, self.seed = env, style, f"scripted:{style}", seed

    async def complete(self, req: ModelRequest) -> ModelResponse:
        action = self.env.env.expert_action()  # original names
        if action is None:
            return ModelResponse(text="Done.", tool_calls=[])
        if self.style == "random":
            names = sorted({action.name, self.env.shown.get(action.name, action.name)})
            weights = [mentions(req, n) for n in names]
            if sum(weights):
                rng = seeded_rng(self.seed, "pipe-random", req.sample.id, str(req.pass_index))
                pick = rng.choices(names, weights=weights)[0]
                action = action.model_copy(update={"name": pick})
        elif self.style == "expert":
            # the name the agent is shown for this action; in dual mode, whichever family is listed first
            both = {action.name, self.env.shown.get(action.name, action.name)}
            shown = next(t.name for t in req.tools if t.name in both)
            action = action.model_copy(update={"name": shown})
        return ModelResponse(text="", tool_calls=[action])

    async def aclose(self) -> None:
        return None


@dataclass(frozen=True)
class EpisodeCounts:
    """PIPE's per-episode counts, read off a trajectory."""

    legacy: int
    """Table 9's legacy calls: deprecated + hallucinated."""
    n_ori: int
    n_syn: int
    deprecated: int = 0
    """Original names the strict interface hides."""
    hallucinated: int = 0
    """Names that are no action of the environment under any name."""


def trajectory_view(traj: Trajectory) -> NameView:
    """The interface an episode of :func:`run_pipe` was run under (its map and level)."""
    pairs = traj.config.get("interface_map")
    env = str(traj.config["env"])
    imap = InterfaceMap(env, tuple((str(o), str(s)) for o, s in pairs), "user") if pairs else MAPS[env]
    return NameView(imap, traj.config["level"])


def episode_counts(traj: Trajectory) -> EpisodeCounts:
    """Legacy calls (deprecated or hallucinated, Table 9) and per-family call counts of an episode run
    by :func:`run_pipe` (recomputed from the names, so every recorded run reads the same)."""
    view = trajectory_view(traj)
    names = [s.action.name for s in traj.steps if s.action is not None]
    return EpisodeCounts(
        legacy=sum(view.is_legacy(n) for n in names),
        n_ori=sum(view.family(n) == "original" for n in names),
        n_syn=sum(view.family(n) == "alias" for n in names),
        deprecated=sum(view.is_deprecated(n) for n in names),
        hallucinated=sum(view.is_hallucinated(n) for n in names),
    )


def annotate(traj: Trajectory, view: InterfaceEnv) -> Trajectory:
    """Set ``legacy``, ``family`` and ``executed`` (original names) on every step."""
    steps: list[Step] = []
    for s in traj.steps:
        if s.action is None:
            steps.append(s)
            continue
        legacy, family = view.classify(s.action.name)
        executed: ToolCall | None = None
        if not view.is_deprecated(s.action.name):
            executed = s.action.model_copy(update={"name": view.back.get(s.action.name, s.action.name)})
        steps.append(s.model_copy(update={"legacy": legacy, "family": family, "executed": executed}))
    return traj.model_copy(update={"steps": steps})


def interface_map(spec: str, env: Env, map_file: Path | None = None) -> InterfaceMap:
    """The map of a registered environment, or of your own: ``map_file`` (a JSON object original ->
    synonym) or the class's ``synonyms`` attribute."""
    if map_file is None and spec in MAPS:
        return MAPS[spec]
    pairs: Any
    if map_file is not None:
        try:
            pairs = list(json.loads(map_file.read_text(encoding="utf-8")).items())
        except (OSError, ValueError, AttributeError) as exc:
            raise ValueError(f"--map {map_file}: not a JSON object of original -> synonym names ({exc})") from None
        source = str(map_file)
    else:
        pairs = getattr(env, "synonyms", None)
        source = f"{spec}.synonyms"
        if pairs is None:
            raise ValueError(f"{spec} has no interface map: give --map FILE or a `synonyms` attribute on the class")
    imap = InterfaceMap(env.name, tuple((str(o), str(s)) for o, s in pairs), source)
    check_map(imap)
    return imap


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
) -> list[Trajectory]:
    """Every task of the environment (the first ``limit``) under ``mode``; returns all trajectories.
    ``env_name``: a registered environment or ``package.module:Class`` (see the module docstring)."""
    inner = load_env(env_name, data)()
    imap = interface_map(env_name, inner, map_file)
    env = InterfaceEnv(inner, imap, mode, order)
    out.mkdir(parents=True, exist_ok=True)
    path = out / TRAJECTORIES
    done: dict[str, Trajectory] = {}
    if path.exists() and path.stat().st_size:
        if not resume:
            raise ExistingOutputError(f"{path} already holds episodes: pass --resume to finish that run")
        done = {t.id: t for t in read_checkpoint(path, Trajectory) if t.termination != "infra"}
    model: ChatModel
    style = model_spec.removeprefix("scripted:")
    if model_spec.startswith("scripted:") and style in STYLES:
        model = ExpertPolicy(env, style, seed)
    else:
        model = make_model(model_spec, mode="prompt", settings_file=settings)
    tasks = env.task_ids()[:limit]
    config: dict[str, Any] = {"env": env_name, "level": mode, "order": order, "max_steps": max_steps, "format": fmt}
    if env_name not in ENV_NAMES or map_file is not None:
        config["interface_map"] = [list(p) for p in imap.synonyms]
    try:
        with JsonlAppender(path) as sink:
            for task in tasks:
                tid = f"{env_name}/{task}/{mode}" + (f"/order{order}" if mode == "dual" else "")
                if tid in done:
                    continue
                traj = await run_episode(model, env, task, seed=seed, max_steps=max_steps, fmt=fmt)
                traj = annotate(traj.model_copy(update={"id": tid, "config": traj.config | config}), env)
                sink.write(traj)
                done[tid] = traj
                if on_episode:
                    on_episode(traj)
    finally:
        await model.aclose()
    return [done[t] for t in sorted(done)]
