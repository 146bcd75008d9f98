"""Environment statistics after paper 002's Tables 24 and 25 (Appendix D), and what else an
environment says about itself without any episode.

The paper characterises each environment by ``#Functions`` (unique *Original* identifiers in its
interface mapping table, Tables 26-28), ``#Trajectories`` (training trajectories) and ``Avg.
interaction rounds`` (per trajectory). The first needs only the interface map; the other two need
trajectories: here, any ``pipe run`` directories given (an expert run is the closest thing to a
demonstration set). Beside them: the number of tasks, the tools shown per task, and the length of
the first request (system turn with the tools in the run's format, plus the first user turn) under
each interface level, measured by resetting every task, no model involved.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from robustcall.core import Trajectory
from robustcall.envs import load_env
from robustcall.formats import OutputFormat
from robustcall.interface import LEVELS, EnvStats, InterfaceEnv, Level, interface_map
from robustcall.run._episode import first_user_turn, system_prompt


def env_stats(
    env_name: str,
    data: Path | None = None,
    *,
    limit: int | None = None,
    fmt: OutputFormat = "tool_call",
    seed: int = 0,
) -> EnvStats:
    """Reset every task (the first ``limit``) under origin, synonym and symbol; count what is shown."""
    make = load_env(env_name, data)
    inner = make()
    imap = interface_map(env_name, inner)
    tasks = inner.task_ids()[:limit]
    chars: dict[Level, float] = {}
    words: dict[Level, float] = {}
    tools = 0
    for level in LEVELS:
        view = InterfaceEnv(inner, imap, level)
        c = w = 0
        for task in tasks:
            start = view.reset(task, seed)
            turns = (system_prompt(start.tools, "prompt", fmt), first_user_turn(start))
            c += sum(len(t) for t in turns)
            w += sum(len(t.split()) for t in turns)
            if level == "origin":
                tools += len(start.tools)
        n = len(tasks) or 1
        chars[level], words[level] = c / n, w / n
    close = getattr(inner, "close", None)
    if callable(close):
        close()
    return EnvStats(
        env=env_name,
        functions=len(set(imap.originals)),
        map_source=imap.source,
        tasks=len(tasks),
        tools_per_task=tools / (len(tasks) or 1),
        prompt_chars=chars,
        prompt_words=words,
    )


def add_trajectories(stats: Sequence[EnvStats], trajectories: Sequence[Trajectory]) -> None:
    """Fill ``trajectories`` and ``rounds`` of each environment from the episodes of that environment."""
    for st in stats:
        mine = [t for t in trajectories if t.env == st.env]
        if mine:
            st.trajectories = len(mine)
            st.rounds = sum(len(t.steps) for t in mine) / len(mine)
