"""Multi-turn environments the agent acts in, behind one small protocol."""

from robustcall.envs._maze import MazeEnv
from robustcall.envs._protocol import Env, EnvReset, EnvStep, UserTurns
from robustcall.envs._wordle import WordleEnv

__all__ = ["Env", "EnvReset", "EnvStep", "MazeEnv", "UserTurns", "WordleEnv"]
