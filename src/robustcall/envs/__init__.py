"""Multi-turn environments the agent acts in, behind one small protocol."""

from robustcall.envs._protocol import Env, EnvReset, EnvStep

__all__ = ["Env", "EnvReset", "EnvStep"]
