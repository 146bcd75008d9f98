"""Paper 002's Tables 24 / 25 for our environments: #Functions from the interface maps, the prompt
each level shows, and #Trajectories / Avg. interaction rounds where trajectories are given."""

from __future__ import annotations

from collections.abc import Sequence

from robustcall.interface import EnvStats, paper_row
from robustcall.report._table import Table

NEEDS_TRAJECTORIES = "needs trajectories"
"""The cell of a column that only trajectories can fill (``pipe stats --trajectories RUN``)."""


def pipe_env_table(stats: Sequence[EnvStats]) -> Table:
    """One row per environment: the paper's three columns (trajectory ones filled only from runs), the
    tasks, tools shown per task, first-request length per level, and the paper's row beside."""
    rows = []
    for st in stats:
        paper = paper_row(st.env)
        rows.append(
            [
                st.env,
                str(st.trajectories) if st.trajectories is not None else NEEDS_TRAJECTORIES,
                f"{st.rounds:.4f}" if st.rounds is not None else NEEDS_TRAJECTORIES,
                str(st.functions),
                str(st.tasks),
                f"{st.tools_per_task:.2f}",
                *(f"{st.prompt_chars[lv]:.1f}" for lv in ("origin", "synonym", "symbol")),
                f"{st.prompt_words['origin']:.1f}",
                "—"
                if paper is None
                else f"{paper.table} {paper.environment}: {paper.trajectories} / {paper.rounds} / {paper.functions}",
            ]
        )
    return Table(
        name="pipe_envs",
        title="Environment statistics (paper 002, Tables 24 / 25, and the prompts each interface shows)",
        header=[
            "Environment",
            "#Trajectories",
            "Avg. interaction rounds",
            "#Functions",
            "Tasks",
            "Tools shown / task",
            "Prompt chars Origin",
            "Prompt chars Perturb 1",
            "Prompt chars Perturb 2",
            "Prompt words Origin",
            "Paper (#Traj. / rounds / #Func.)",
        ],
        rows=rows,
        notes=[
            "#Functions: unique original identifiers in the interface map (the paper's count over Tables 26-28). "
            "#Trajectories and rounds need trajectories (pipe stats --trajectories RUN: episodes and mean steps). "
            "Prompt: the first request, system turn (tools in the run's format) plus first user turn, mean over tasks.",
        ],
    )
