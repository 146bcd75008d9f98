"""PIPE: rename the interface an agent sees (synonyms, symbols, both) and translate its calls back.

Environment wrappers and PIPE's vocabulary only: the run that plays PIPE episodes is ``robustcall.run``'s
``run_pipe`` (the one run loop), and the scripted agents are ``models``' ``scripted:expert``,
``scripted:memorise`` and ``scripted:random``."""

from robustcall.envs import make_env
from robustcall.interface._env import MODES, InterfaceEnv, Mode, NameView, invalid_action
from robustcall.interface._env_stats import PAPER_ENV_ROWS, PAPER_ROW_OF, EnvStats, PaperEnvRow, paper_row
from robustcall.interface._episodes import EpisodeCounts, annotate, episode_counts, interface_map, trajectory_view
from robustcall.interface._maps import LEVELS, MAPS, InterfaceMap, Level, check_map

__all__ = [
    "LEVELS",
    "MAPS",
    "MODES",
    "PAPER_ENV_ROWS",
    "PAPER_ROW_OF",
    "EnvStats",
    "EpisodeCounts",
    "InterfaceEnv",
    "InterfaceMap",
    "Level",
    "Mode",
    "NameView",
    "PaperEnvRow",
    "annotate",
    "check_map",
    "episode_counts",
    "interface_map",
    "invalid_action",
    "make_env",
    "paper_row",
    "trajectory_view",
]
