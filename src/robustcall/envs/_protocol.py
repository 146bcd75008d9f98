"""The environment protocol shared by the agent loop, PIPE interface rewriting and fault injection.

An environment speaks in its *original* action names. Renaming (``interface``) and fault
injection (``faults``) wrap it; neither changes the environment itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from robustcall.core import ToolCall, ToolSpec


@dataclass(frozen=True)
class EnvReset:
    """What the agent sees at the start of an episode."""

    instruction: str
    """The task, in words."""
    observation: str
    """The first observation (may be empty)."""
    tools: list[ToolSpec]
    """The action interface: one spec per action, original names."""


@dataclass(frozen=True)
class EnvStep:
    """The environment's answer to one executed action."""

    observation: str
    done: bool = False
    error: bool = False
    """The action was invalid or failed inside the environment (not an injected fault)."""


class Env(Protocol):
    """A multi-turn environment. Fresh state per ``reset``; actions arrive already parsed."""

    name: str

    def task_ids(self) -> list[str]:
        """Ids of the tasks this environment can be reset to, in a fixed order."""
        ...

    def reset(self, task_id: str, seed: int = 0) -> EnvReset:
        """Start an episode of ``task_id``; every call gives a fresh, independent state."""
        ...

    def step(self, call: ToolCall) -> EnvStep:
        """Execute one call by explicit dispatch on its (validated) name; never evaluates text."""
        ...

    def score(self) -> float:
        """The outcome r(τ) of the episode so far, in [0, 1], as the environment's benchmark reports it
        (paper 002, §3.1 and footnote 1): 1.0 / 0.0 where the metric is success, the reward where it is
        a reward (SciWorld: the simulator's score / 100; BabyAI: the game's reward). Whether the task
        was solved is :func:`is_solved`."""
        ...

    def expert_action(self) -> ToolCall | None:
        """The next action of the environment's expert (oracle) policy, or ``None`` when done."""
        ...


@runtime_checkable
class Rewarded(Protocol):
    """An environment whose ``score`` is a reward (it can be below 1 on a solved task, or above 0 on an
    unsolved one): it says separately whether the task was solved. Wrappers forward it."""

    def solved(self) -> bool:
        """The task is solved in the current state (the environment's own success check)."""
        ...


def is_solved(env: Env) -> bool:
    """Success of the current state: ``env.solved()`` where the environment is :class:`Rewarded`, else
    ``score() >= 1`` (environments scored by success)."""
    return env.solved() if isinstance(env, Rewarded) else env.score() >= 1.0


@runtime_checkable
class UserTurns(Protocol):
    """An environment whose task has several user turns (BFCL multi-turn).

    When the agent answers in text without a call, the loop calls :meth:`answer`: ``None`` means the
    environment has nothing to say (the episode ends as ``no_action``, as for single-turn tasks);
    otherwise the step's ``observation`` is the next user message (sent as a user turn), or
    ``done=True`` when the last turn was answered (the episode ends as ``done``).
    """

    def answer(self, text: str) -> EnvStep | None:
        """React to a text-only answer of the agent (see the class docstring)."""
        ...
