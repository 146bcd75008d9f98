"""Environment specs to factories: a registered name, an AgentGym server or any ``Env`` class.

Apart from ``_registry.py`` because the AgentGym client reads the registry (its families' tools), and
the registry would otherwise import the client back.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from pathlib import Path

from robustcall.core import InputError
from robustcall.envs._agentgym import AgentGymEnv, parse_agentgym_spec
from robustcall.envs._protocol import Env
from robustcall.envs._registry import ENVS, env_names, make_env


def load_env(spec: str, data: Path | None = None) -> Callable[[], Env]:
    """A factory of fresh environments: a registered name (:data:`ENVS`, with ``data`` where it
    needs some), ``agentgym:<name>@<url>`` (an AgentGym environment server, ``_agentgym.py``) or
    ``package.module:Class`` (any class implementing ``Env``, built without arguments)."""
    if spec in ENVS:
        make_env(spec, data)  # fail now, not in the middle of a run, when data is missing
        return lambda: make_env(spec, data)
    if spec.startswith("agentgym:"):
        name, url = parse_agentgym_spec(spec)
        AgentGymEnv(name, url)  # fail now when the server is not there
        return lambda: AgentGymEnv(name, url)
    if "" not in sys.path and str(Path.cwd()) not in sys.path:
        sys.path.insert(0, str(Path.cwd()))  # like `python -m`: your own modules in the working directory
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise InputError(
            f"unknown environment {spec!r}: give one of {', '.join(env_names())}, "
            "or `package.module:Class` of an Env implementation"
        )
    try:
        factory = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as exc:
        raise InputError(f"cannot load environment {spec!r}: {exc}") from None
    if not callable(factory):
        raise InputError(f"environment {spec!r} is not a class or factory")
    return factory  # type: ignore[no-any-return]
