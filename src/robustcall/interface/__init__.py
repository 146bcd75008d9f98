"""PIPE: rename the interface an agent sees (synonyms, symbols, both) and translate its calls back."""

from robustcall.interface._env import MODES, InterfaceEnv, Mode, invalid_action
from robustcall.interface._maps import LEVELS, MAPS, InterfaceMap, Level, check_map

__all__ = ["LEVELS", "MAPS", "MODES", "InterfaceEnv", "InterfaceMap", "Level", "Mode", "check_map", "invalid_action"]
