"""What PIPE reads off and writes onto an episode: the interface map a run uses, the per-step
``legacy`` / ``family`` / ``executed`` annotation, and the per-episode counts.

Every step of a PIPE trajectory records ``legacy`` and ``family`` (:meth:`NameView.classify`) and
``executed``: the call the environment ran, in its original names (``None`` when the wrapper refused
a deprecated name). The environment is a registered name or ``package.module:Class`` (like fault
runs); a class of your own brings its interface map as a ``synonyms`` attribute (``((original,
synonym), ...)``, symbols numbered in that order) or ``--map FILE`` (a JSON object original ->
synonym); the map is then recorded in each trajectory's config so the counts can be read back.
The run itself (``robustcall.run``'s ``run_pipe``) plays the episodes through the one run loop.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from robustcall.core import Step, ToolCall, Trajectory
from robustcall.envs import Env
from robustcall.interface._env import InterfaceEnv, NameView
from robustcall.interface._maps import MAPS, InterfaceMap, check_map


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
    """The interface an episode of a PIPE run was run under (its map and level)."""
    pairs = traj.config.get("interface_map")
    env = str(traj.config["env"])
    imap = InterfaceMap(env, tuple((str(o), str(s)) for o, s in pairs), "user") if pairs else MAPS[env]
    return NameView(imap, traj.config["level"])


def episode_counts(traj: Trajectory) -> EpisodeCounts:
    """Legacy calls (deprecated or hallucinated, Table 9) and per-family call counts of an episode of a
    PIPE run (recomputed from the names, so every recorded run reads the same)."""
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
    if map_file is None and env.name in MAPS:  # the same family elsewhere (agentgym:<name>@<url>)
        return MAPS[env.name]
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
