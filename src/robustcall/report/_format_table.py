"""BFCL v4's format sensitivity (an imported ``format_sensitivity`` result file) beside RobustBench-TC.

BFCL asks the same questions under 26 prompt configurations (return format, ``<TOOLCALL>`` tag,
function-doc format, prompt format and style) and reports the accuracy per configuration and their
spread; RobustBench-TC perturbs the query, the tools and the feedback. The table puts, per run, the
accuracy under each BFCL configuration (read from the verdict ids:
``...__format_sensitivity_<n>:<configuration>:<original id>``) with its max delta and standard
deviation in points (BFCL's figures), and, for every run of the report with RobustBench-TC types,
its Clean accuracy and its accuracy per perturbed component, so that both kinds of robustness of a
model read side by side.
"""

from __future__ import annotations

import statistics

from robustcall.report._runs import RunResult
from robustcall.report._table import Table

_MARK = "__BFCL_v3_format_sensitivity__"


def _per_config(run: RunResult) -> dict[str, list[bool]]:
    out: dict[str, list[bool]] = {}
    for v in run.verdicts:
        if _MARK in v.id and v.correct is not None:
            parts = v.id.split("__")[-1].split(":")
            if len(parts) == 3:
                out.setdefault(parts[1], []).append(v.correct)
    return out


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.1f}%"


def format_sensitivity_table(runs: list[RunResult]) -> Table | None:
    """``None`` when no run holds BFCL format-sensitivity verdicts."""
    rows: list[list[str]] = []
    for run in runs:
        configs = _per_config(run)
        if not configs:
            continue
        accs = {c: sum(ok) / len(ok) for c, ok in configs.items()}
        for config, acc in accs.items():
            rows.append([run.name, f"BFCL {config}", _pct(acc), str(len(configs[config]))])
        values = list(accs.values())
        delta = (max(values) - min(values)) * 100 if len(values) > 1 else 0.0
        std = statistics.stdev(values) * 100 if len(values) > 1 else 0.0
        rows.append([run.name, "BFCL max delta / std (points)", f"{delta:.2f} / {std:.2f}", ""])
    if not rows:
        return None
    for run in runs:
        if run.stats.pert_acc.value is None:
            continue
        rows.append(
            [run.name, "RobustBench-TC Clean", _pct(run.stats.clean.value), str(run.stats.n_by_type.get("clean", ""))]
        )
        for component, est in run.stats.component_accuracy.items():
            rows.append([run.name, f"RobustBench-TC {component}", _pct(est.value), ""])
    notes = ["BFCL rows: accuracy per format-sensitivity configuration of an imported BFCL result folder; "
             "RobustBench-TC rows: the report's robustness runs (Clean and per perturbed component)."]  # fmt: skip
    return Table(
        "format_sensitivity",
        "BFCL format sensitivity beside RobustBench-TC",
        ["Model", "Setting", "Accuracy", "n"],
        rows,
        notes,
    )
