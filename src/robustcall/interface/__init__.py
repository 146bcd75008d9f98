"""PIPE: rename the interface an agent sees (synonyms, symbols, both) and translate its calls back."""

from robustcall.envs import make_env
from robustcall.interface._env import MODES, InterfaceEnv, Mode, NameView, invalid_action
from robustcall.interface._maps import LEVELS, MAPS, InterfaceMap, Level, check_map
from robustcall.interface._run import (
    STYLES,
    TRAJECTORIES,
    EpisodeCounts,
    ExpertPolicy,
    annotate,
    episode_counts,
    interface_map,
    run_pipe,
    trajectory_view,
)

__all__ = [
    "LEVELS",
    "MAPS",
    "MODES",
    "STYLES",
    "TRAJECTORIES",
    "EpisodeCounts",
    "ExpertPolicy",
    "InterfaceEnv",
    "InterfaceMap",
    "Level",
    "Mode",
    "NameView",
    "annotate",
    "check_map",
    "episode_counts",
    "interface_map",
    "invalid_action",
    "make_env",
    "run_pipe",
    "trajectory_view",
]
