"""Multi-turn environments the agent acts in, behind one small protocol.

A name below loads its module the first time it is used (scoring BFCL's multi-turn files needs
only the BFCL ones, not the AgentGym client's HTTP stack nor sqlite).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from robustcall.core import lazy_names

if TYPE_CHECKING:
    from robustcall.envs._agentgym import AGENTGYM_FAMILIES, ActionCodec, AgentGymEnv, AgentGymFamily
    from robustcall.envs._bfcl_exec import BfclInstances, literal_value
    from robustcall.envs._bfcl_multi_turn import BfclMultiTurnEnv
    from robustcall.envs._bfcl_wheel import MULTI_TURN_CATEGORIES, MultiTurnTask, api_class, function_docs, load_tasks
    from robustcall.envs._dbbench import DbBenchEnv
    from robustcall.envs._load import load_env
    from robustcall.envs._maze import MazeEnv
    from robustcall.envs._protocol import Env, EnvReset, EnvStep, Rewarded, UserTurns, is_solved
    from robustcall.envs._registry import (
        ENV_NAMES,
        ENVS,
        EnvKind,
        env_names,
        make_env,
        register_env,
        size_note,
    )
    from robustcall.envs._textcraft import TextCraftEnv
    from robustcall.envs._wordle import WordleEnv

_LAZY: dict[str, str] = {
    "AGENTGYM_FAMILIES": "_agentgym",
    "ActionCodec": "_agentgym",
    "AgentGymEnv": "_agentgym",
    "AgentGymFamily": "_agentgym",
    "BfclInstances": "_bfcl_exec",
    "literal_value": "_bfcl_exec",
    "BfclMultiTurnEnv": "_bfcl_multi_turn",
    "MULTI_TURN_CATEGORIES": "_bfcl_wheel",
    "MultiTurnTask": "_bfcl_wheel",
    "api_class": "_bfcl_wheel",
    "function_docs": "_bfcl_wheel",
    "load_tasks": "_bfcl_wheel",
    "DbBenchEnv": "_dbbench",
    "load_env": "_load",
    "MazeEnv": "_maze",
    "Env": "_protocol",
    "EnvReset": "_protocol",
    "EnvStep": "_protocol",
    "Rewarded": "_protocol",
    "UserTurns": "_protocol",
    "is_solved": "_protocol",
    "ENV_NAMES": "_registry",
    "ENVS": "_registry",
    "EnvKind": "_registry",
    "env_names": "_registry",
    "make_env": "_registry",
    "register_env": "_registry",
    "size_note": "_registry",
    "TextCraftEnv": "_textcraft",
    "WordleEnv": "_wordle",
}


__getattr__ = lazy_names(__name__, _LAZY)


__all__ = [
    "AGENTGYM_FAMILIES",
    "ENVS",
    "ENV_NAMES",
    "MULTI_TURN_CATEGORIES",
    "ActionCodec",
    "AgentGymEnv",
    "AgentGymFamily",
    "BfclInstances",
    "BfclMultiTurnEnv",
    "DbBenchEnv",
    "Env",
    "EnvKind",
    "EnvReset",
    "EnvStep",
    "MazeEnv",
    "MultiTurnTask",
    "Rewarded",
    "TextCraftEnv",
    "UserTurns",
    "WordleEnv",
    "api_class",
    "env_names",
    "function_docs",
    "is_solved",
    "literal_value",
    "load_env",
    "load_tasks",
    "make_env",
    "register_env",
    "size_note",
]
