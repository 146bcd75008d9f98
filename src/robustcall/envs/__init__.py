"""Multi-turn environments the agent acts in, behind one small protocol."""

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
