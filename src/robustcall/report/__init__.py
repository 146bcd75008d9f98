"""What people look at: the paper's tables (Markdown, CSV, LaTeX), figures and one HTML page."""

from robustcall.report._card_model import (
    CARD_JSON,
    Card,
    Damaging,
    Example,
    FaultClassRow,
    McpCondition,
    PipeEnv,
    PipeLevel,
    RobustBenchSection,
    TypeRow,
)
from robustcall.report._card_page import card_page
from robustcall.report._compare import (
    ALLOW_DIFFERENT,
    EXIT_NOTHING_TO_JUDGE,
    CompareResult,
    Comparison,
    NotComparableError,
    NothingToJudgeError,
    compare_paths,
    run_kind,
)
from robustcall.report._compare_out import compare_json, compare_junit, compare_markdown, write_compare
from robustcall.report._compare_tokens import compare_tokens, tokens_markdown, write_compare_tokens
from robustcall.report._fault_tables import fault_tables, report_markdown
from robustcall.report._figures import drop_heatmap, drops_vs_size, load_sizes, retention_vs_size
from robustcall.report._pipe import CurvePoint, curve_png, curve_rows, pipe_tables
from robustcall.report._pipe_envs import NEEDS_TRAJECTORIES, pipe_env_table
from robustcall.report._placement import Placement, reference_placement
from robustcall.report._release_note import LIKE_FOR_LIKE, comparability, like_for_like, run_comparability
from robustcall.report._reward_tables import bon_accuracy_table, bon_error_table, bon_rotbench_table, rewardbench_table
from robustcall.report._rewardbench_stats import (
    ablation_table,
    rewardbench_generators_table,
    rewardbench_stats_table,
    rewardbench_types_table,
)
from robustcall.report._runs import RunResult, load_run
from robustcall.report._table import Table
from robustcall.report._tables import all_tables, error_mode_table, per_type_tables, table2
from robustcall.report._tokens import fault_token_table, read_run_tokens, token_tables
from robustcall.report._trials import TRIAL_NOTE, trial_header, trial_rows, trials_table
from robustcall.report._type_legend import legend_html, table5, types_table
from robustcall.report._write import ReportFiles, load_runs, write_report

__all__ = [
    "ALLOW_DIFFERENT",
    "CARD_JSON",
    "EXIT_NOTHING_TO_JUDGE",
    "LIKE_FOR_LIKE",
    "NEEDS_TRAJECTORIES",
    "TRIAL_NOTE",
    "Card",
    "CompareResult",
    "Comparison",
    "CurvePoint",
    "Damaging",
    "Example",
    "FaultClassRow",
    "McpCondition",
    "NotComparableError",
    "NothingToJudgeError",
    "PipeEnv",
    "PipeLevel",
    "Placement",
    "ReportFiles",
    "RobustBenchSection",
    "RunResult",
    "Table",
    "TypeRow",
    "ablation_table",
    "all_tables",
    "bon_accuracy_table",
    "bon_error_table",
    "bon_rotbench_table",
    "card_page",
    "comparability",
    "compare_json",
    "compare_junit",
    "compare_markdown",
    "compare_paths",
    "compare_tokens",
    "curve_png",
    "curve_rows",
    "drop_heatmap",
    "drops_vs_size",
    "error_mode_table",
    "fault_tables",
    "fault_token_table",
    "legend_html",
    "like_for_like",
    "load_run",
    "load_runs",
    "load_sizes",
    "per_type_tables",
    "pipe_env_table",
    "pipe_tables",
    "read_run_tokens",
    "reference_placement",
    "report_markdown",
    "retention_vs_size",
    "rewardbench_generators_table",
    "rewardbench_stats_table",
    "rewardbench_table",
    "rewardbench_types_table",
    "run_comparability",
    "run_kind",
    "table2",
    "table5",
    "token_tables",
    "tokens_markdown",
    "trial_header",
    "trial_rows",
    "trials_table",
    "types_table",
    "write_compare",
    "write_compare_tokens",
    "write_report",
]
