"""The ToolRM paper's Appendix tables about FC-RewardBench and RM training: Table 6's statistics,
Table 1's error types, Table 7's rejected outputs per generator, and Table 10's ablations."""

from __future__ import annotations

from collections.abc import Sequence

from robustcall.report._table import Table
from robustcall.rewards import ERROR_TYPES, SECTIONS, AblationRow, BenchStats


def _avg(x: float | None, digits: int = 1) -> str:
    return "–" if x is None else f"{x:.{digits}f}"


def _source(st: BenchStats) -> str:
    if st.synthetic and st.real:
        return f"Real ({st.real}) + Synthetic ({st.synthetic})"
    return "Synthetic" if st.synthetic else "Real"


def rewardbench_stats_table(named: Sequence[tuple[str, BenchStats]]) -> Table:
    """Table 6's columns for each benchmark file (and the rejected outputs' calls beside them)."""
    rows = [
        [
            name,
            f"{st.examples:,}",
            f"{st.tools:,} ({st.tools_per_query:.1f})",
            f"{st.mt_queries:,}",
            _avg(st.mt_turns),
            "✓" if st.nested else "x",
            _avg(st.chosen_calls),
            _avg(st.rejected_calls),
            _source(st),
        ]
        for name, st in named
    ]
    return Table(
        name="fc_rewardbench_stats",
        title="FC-RewardBench statistics (ToolRM Table 6's columns)",
        header=[
            "Dataset",
            "# Examples",
            "# Tools (avg./query)",
            "# MT queries",
            "Avg. MT turns",
            "Nested calls",
            "Avg. output tool calls",
            "Avg. rejected tool calls",
            "Data source",
        ],
        rows=rows,
        notes=[
            "# Tools: distinct tool definitions (avg. per query: catalog size). MT: more than one user turn. "
            "Output calls: the chosen output's; rejected: over the readable rejected outputs.",
        ],
    )


def rewardbench_types_table(named: Sequence[tuple[str, BenchStats]]) -> Table:
    """Table 1 for each benchmark file: count and share of each error type."""
    kinds: list[str] = list(ERROR_TYPES)
    kinds += sorted({t for _, st in named for t in st.by_type} - set(kinds))
    rows = []
    for kind in kinds:
        cells: list[str] = [kind]
        for _, st in named:
            c = st.by_type.get(kind, 0)
            cells += [str(c), f"{100 * c / st.examples:.1f}" if st.examples else "0.0"]
        rows.append(cells)
    rows.append(["Total"] + [x for _, st in named for x in (str(st.examples), "100.0")])
    return Table(
        name="fc_rewardbench_types",
        title="FC-RewardBench error types (ToolRM Table 1)",
        header=["Error Type"] + [h for name, _ in named for h in (f"{name} count", f"{name} %")],
        rows=rows,
    )


def rewardbench_generators_table(st: BenchStats) -> Table:
    """Table 7: rejected outputs per generator model (most first), with the error types of each."""
    kinds: list[str] = [t for t in ERROR_TYPES if st.by_type.get(t)]
    kinds += sorted(set(st.by_type) - set(ERROR_TYPES))
    order = sorted(st.by_model, key=lambda m: (-st.by_model[m], m))
    rows = [[m, str(st.by_model[m])] + [str(st.by_model_type[m].get(k, 0)) for k in kinds] for m in order]
    rows.append(["Total", str(st.examples)] + [str(st.by_type[k]) for k in kinds])
    return Table(
        name="fc_rewardbench_generators",
        title="Breakdown of errors by models in FC-RewardBench (ToolRM Table 7)",
        header=["Model Name", "Count", *kinds],
        rows=rows,
    )


def ablation_table(rows: Sequence[AblationRow], bench_size: int) -> Table:
    """Table 10's layout: the full model, then each section's rows under its heading."""
    out: list[list[str]] = []
    for section in ("", *SECTIONS):
        part = [r for r in rows if r.section == section]
        if section and part:
            out.append([section, "", "", ""])
        out += [[r.label, f"{100 * r.result.accuracy:.2f}%", str(r.pairs), f"{r.center:g}"] for r in part]
    return Table(
        name="rm_ablation",
        title=f"Ablation results on FC-RewardBench ({bench_size} pairs; ToolRM Table 10's layout)",
        header=["Model", "Accuracy", "Training pairs", "η"],
        rows=out,
    )
