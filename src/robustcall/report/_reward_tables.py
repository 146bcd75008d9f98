"""The reward-model tables: FC-RewardBench pairwise accuracy (Figure 1 as a table) and Best-of-n
accuracy and errors (Table 8), as ``Table``s beside the fault and robustness tables."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from robustcall.report._table import Table
from robustcall.rewards import ERROR_TYPES, IRRELEVANCE_ERROR, BonRecord, PairwiseResult, RewardPair, methods_of


def rewardbench_table(results: Sequence[PairwiseResult], records: Sequence[RewardPair]) -> Table:
    """Figure 1 as a table: scorers by accuracy, with per-type accuracies (Table 1's types)."""
    present: list[str] = [t for t in ERROR_TYPES if any(r.error_type == t for r in records)]
    present += sorted({r.error_type for r in records} - set(ERROR_TYPES))
    counts = {t: sum(1 for r in records if r.error_type == t) for t in present}
    header = ["Scorer", "Accuracy", "Unparseable"] + [f"{t} (n={counts[t]})" for t in present]
    rows = []
    for res in sorted(results, key=lambda r: (-r.accuracy, r.scorer)):
        cells = [res.scorer, f"{100 * res.accuracy:.2f}", "" if res.unparseable is None else str(res.unparseable)]
        for t in present:
            n, c = res.by_type.get(t, [0, 0])
            cells.append(f"{100 * c / n:.1f}" if n else "")
        rows.append(cells)
    return Table(
        name="fc_rewardbench",
        title=f"FC-RewardBench pairwise accuracy (%), {len(records)} pairs",
        header=header,
        rows=rows,
        notes=["A record counts when the chosen output scores strictly higher (judges: picks it)."],
    )


def bon_accuracy_table(records: Sequence[BonRecord], n: int) -> Table:
    """Per benchmark and method: native accuracy (BFCL AST / source rules) and full-sequence match."""
    methods = methods_of(records)
    benches = sorted({r.benchmark for r in records})
    header = ["Method"] + [f"{b} {m}" for b in benches for m in ("acc", "FSM")]
    rows = []
    for method in methods:
        cells = [method]
        for b in benches:
            rs = [r for r in records if r.benchmark == b and method in r.correct]
            acc = sum(r.correct[method] for r in rs) / len(rs) if rs else 0.0
            fsm = sum(r.fsm[method] for r in rs) / len(rs) if rs else 0.0
            cells += [f"{100 * acc:.1f}", f"{100 * fsm:.1f}"]
        rows.append(cells)
    sizes = ", ".join(f"{b}: {sum(r.benchmark == b for r in records)}" for b in benches)
    return Table(
        name="best_of_n",
        title=f"Best-of-{n} accuracy (%) by selection method ({sizes} samples)",
        header=header,
        rows=rows,
        notes=["acc: the source's own scorer (BFCL: AST); FSM: full-sequence match of names and values."],
    )


ROTBENCH_SPLITS = ("clean", "slight", "medium", "heavy", "union")


def bon_rotbench_table(records: Sequence[BonRecord], n: int) -> Table | None:
    """ToolRM's Table 3 for one generator: RoTBench's Tool Selection, Parameter Identification and
    Content Filling (%) of each method's picks per noise split (greedy: "Clean" / "Union"; an RM's
    picks: "Clean@n" / "Union@n"). ``None`` without RoTBench records."""
    rot = [r for r in records if r.stages]
    if not rot:
        return None
    methods = [m for m in methods_of(rot) if any(m in r.stages for r in rot)]
    splits = [s for s in ROTBENCH_SPLITS if any(r.category == s for r in rot)]
    header = ["Method"] + [f"{abbr} {s}" for abbr in ("TS", "PI", "CF") for s in splits]
    rows = []
    for method in methods:
        cells = [method]
        for stage in range(3):
            for split in splits:
                rs = [r for r in rot if r.category == split and method in r.stages]
                cells.append(f"{100 * sum(r.stages[method][stage] for r in rs) / len(rs):.1f}" if rs else "-")
        rows.append(cells)
    sizes = ", ".join(f"{s}: {sum(r.category == s for r in rot)}" for s in splits)
    return Table(
        name="best_of_n_rotbench",
        title=f"RoTBench stages (%) of the Best-of-{n} picks ({sizes} samples; ToolRM Table 3)",
        header=header,
        rows=rows,
        notes=[
            "TS: Tool Selection (the name); PI: Parameter Identification (and the parameter names); "
            "CF: Content Filling (and every value). Each stage needs the one before (RoTBench's rules).",
        ],
    )


def bon_error_table(records: Sequence[BonRecord]) -> Table:
    """Table 8: error counts per type for every method's picks."""
    methods = methods_of(records)
    counts = {m: Counter(r.error_type[m] for r in records if m in r.error_type) for m in methods}
    kinds = [*ERROR_TYPES, IRRELEVANCE_ERROR, "Other"]
    kinds = [k for k in kinds if any(counts[m][k] for m in methods)]
    rows = [[k] + [str(counts[m][k]) for m in methods] for k in kinds]
    rows.append(["Total"] + [str(sum(counts[m].values())) for m in methods])
    return Table(
        name="best_of_n_errors",
        title="Errors of the picked outputs by type (Table 8)",
        header=["Error type", *methods],
        rows=rows,
    )
