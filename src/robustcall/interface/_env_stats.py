"""Paper 002's Tables 24 and 25 (Appendix D) as data, and the record of one environment's statistics
(computed by ``robustcall.run.env_stats``, tabulated by ``robustcall.report.pipe_env_table``)."""

from __future__ import annotations

from dataclasses import dataclass, field

from robustcall.interface._maps import Level


@dataclass(frozen=True)
class PaperEnvRow:
    """One row of Table 24 or 25, as printed."""

    table: str
    environment: str
    trajectories: str
    rounds: str
    functions: str


PAPER_ENV_ROWS: tuple[PaperEnvRow, ...] = (
    PaperEnvRow("Table 24", "ALFWORLD", "336", "27.04", "2"),
    PaperEnvRow("Table 24", "OPERATINGSYSTEM", "195", "7.70", "3"),
    PaperEnvRow("Table 24", "DATABASE", "538", "4.12", "2"),
    PaperEnvRow("Table 24", "MIND2WEB", "122", "2.00", "4"),
    PaperEnvRow("Table 24", "WEBSHOP", "351", "7.36", "2"),
    PaperEnvRow("Table 24", "KNOWLEDGEGRAPH", "324", "12.08", "7"),
    PaperEnvRow("Table 25", "ALFWORLD", "2420", "13.3260", "13"),
    PaperEnvRow("Table 25", "BABYAI", "810", "5.7309", "8"),
    PaperEnvRow("Table 25", "MAZE", "215", "4.2558", "4"),
    PaperEnvRow("Table 25", "WORDLE", "955", "4.2461", "1"),
    PaperEnvRow("Table 25", "SCIWORLD", "2120", "19.8953", "26"),
    PaperEnvRow("Table 25", "SQLGYM", "3000", "1.0000", "1"),
    PaperEnvRow("Table 25", "TEXTCRAFT", "374", "8.0000", "3"),
    PaperEnvRow("Table 25", "MOVIE", "215", "3.9256", "1"),
    PaperEnvRow("Table 25", "WEATHER", "311", "5.4566", "19"),
    PaperEnvRow("Table 25", "WEBSHOP", "3930", "5.0547", "2"),
)
"""Tables 24 (AgentBenchPlus) and 25 (AgentGymPlus), every row, cells as printed."""

PAPER_ROW_OF: dict[str, tuple[str, str]] = {
    "babyai": ("Table 25", "BABYAI"),
    "dbbench": ("Table 24", "DATABASE"),
    "maze": ("Table 25", "MAZE"),
    "sciworld": ("Table 25", "SCIWORLD"),
    "textcraft": ("Table 25", "TEXTCRAFT"),
    "wordle": ("Table 25", "WORDLE"),
}
"""Our environment -> its row in Table 24 / 25 (BFCL multi-turn is in neither)."""


def paper_row(env: str) -> PaperEnvRow | None:
    """The paper's row for one of our environments, else ``None``."""
    key = PAPER_ROW_OF.get(env)
    return next((r for r in PAPER_ENV_ROWS if (r.table, r.environment) == key), None)


@dataclass
class EnvStats:
    """What one environment says about itself, and what its trajectories say."""

    env: str
    functions: int
    """Unique original identifiers in the interface map (the paper's #Functions)."""
    map_source: str
    tasks: int
    """Tasks measured (all, or the first ``limit``)."""
    tools_per_task: float
    """Mean number of tools the origin interface shows at the start of a task."""
    prompt_chars: dict[Level, float] = field(default_factory=dict)
    """Mean characters of the first request (system + first user turn) per level."""
    prompt_words: dict[Level, float] = field(default_factory=dict)
    """The same in whitespace-separated words."""
    trajectories: int | None = None
    rounds: float | None = None
    """Mean model calls (steps) per trajectory; ``None`` without trajectories."""
