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
from robustcall.report._compare import CompareResult, Comparison, NotComparableError, compare_paths, run_kind
from robustcall.report._compare_out import compare_json, compare_junit, compare_markdown, write_compare
from robustcall.report._fault_tables import fault_tables, report_markdown
from robustcall.report._figures import drop_heatmap, drops_vs_size, load_sizes, retention_vs_size
from robustcall.report._pipe import CurvePoint, curve_png, curve_rows, pipe_tables
from robustcall.report._placement import Placement, reference_placement
from robustcall.report._reward_tables import bon_accuracy_table, bon_error_table, bon_rotbench_table, rewardbench_table
from robustcall.report._runs import RunResult, load_run
from robustcall.report._table import Table
from robustcall.report._tables import all_tables, error_mode_table, per_type_tables, table2
from robustcall.report._write import ReportFiles, load_runs, write_report

__all__ = [
    "CARD_JSON",
    "Card",
    "CompareResult",
    "Comparison",
    "CurvePoint",
    "Damaging",
    "Example",
    "FaultClassRow",
    "McpCondition",
    "NotComparableError",
    "PipeEnv",
    "PipeLevel",
    "Placement",
    "ReportFiles",
    "RobustBenchSection",
    "RunResult",
    "Table",
    "TypeRow",
    "all_tables",
    "bon_accuracy_table",
    "bon_error_table",
    "bon_rotbench_table",
    "card_page",
    "compare_json",
    "compare_junit",
    "compare_markdown",
    "compare_paths",
    "curve_png",
    "curve_rows",
    "drop_heatmap",
    "drops_vs_size",
    "error_mode_table",
    "fault_tables",
    "load_run",
    "load_runs",
    "load_sizes",
    "per_type_tables",
    "pipe_tables",
    "reference_placement",
    "report_markdown",
    "retention_vs_size",
    "rewardbench_table",
    "run_kind",
    "table2",
    "write_compare",
    "write_report",
]
