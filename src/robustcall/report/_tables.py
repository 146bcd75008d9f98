"""The paper's tables for any set of runs: Table 2 (summary), Tables 7-14 (per perturbation), error modes."""

from __future__ import annotations

from collections.abc import Sequence

from robustcall.core import BEYOND, TAXONOMY, InputError, PaperModel
from robustcall.metrics import Estimate, Significance, paired_significance
from robustcall.report._format_table import format_sensitivity_table
from robustcall.report._paper_rows import (
    RUN_FAMILY,
    paper_estimates,
    paper_markers,
    paper_name,
    paper_note,
    paper_pert_acc,
    paper_type_cells,
    ranks,
)
from robustcall.report._runs import RunResult
from robustcall.report._table import Table

DELTA_HEADERS = {"observation": "Δ_Obs ↓", "action": "Δ_Act ↓", "reward": "Δ_Rew ↓", "transition": "Δ_Trn ↓"}
COMPONENT_TITLES = {"observation": "Observation", "action": "Action", "reward": "Reward", "transition": "Transition"}


def fmt(e: Estimate, *, signed: bool = False, negate: bool = False) -> str:
    """``0.643 ± 0.065`` (3 decimals, values in [0, 1] as in the paper); ``—`` when undefined."""
    if e.value is None:
        return "—"
    v = round(-e.value if negate else e.value, 3) + 0.0  # as ``frac``: -0.0004 reads 0.000, never -0.000
    text = f"{v:+.3f}" if signed else f"{v:.3f}"
    return f"{text} ± {e.ci95:.3f}" if e.ci95 is not None else text


def interval_note(runs: list[RunResult]) -> str:
    """What the ± of a table shows: B and how it was resampled."""
    b = runs[0].stats.resamples if runs else 0
    if runs and runs[0].stats.resampling == "clustered":
        how = (
            "clustered: source samples resampled, a clean sample and everything built from it together, "
            "so differences from Clean are paired"
        )
    else:
        how = "per-sample: the records of each group resampled on their own, as the paper does"
    return f"± = half-width of the 95% percentile-bootstrap interval (B = {b:,}; {how})."


def significance(runs: list[RunResult], baseline: str | None) -> dict[str, dict[str, Significance]]:
    """Run name -> statistic -> paired comparison against the baseline run (empty without one)."""
    if baseline is None:
        return {}
    base = next((r for r in runs if r.name == baseline), None)
    if base is None:
        names = ", ".join(r.name for r in runs)
        raise InputError(f"baseline {baseline!r} is not one of the runs: {names}")
    return {
        r.name: paired_significance(r.verdicts, base.verdicts, resamples=r.stats.resamples, seed=r.stats.seed)
        for r in runs
        if r is not base
    }


def paired_counts(sig: dict[str, dict[str, Significance]]) -> str:
    """``n`` (paired source samples) and ``m`` (those that differ) behind each run's Clean and Pert. Acc. markers."""
    parts = []
    for name, marks in sig.items():
        cells = [
            f"{label} n = {m.pairs}, m = {m.discordant}"
            for stat, label in (("clean", "Clean"), ("pert_acc", "Pert. Acc."))
            if (m := marks.get(stat)) is not None
        ]
        if cells:
            parts.append(f"{name}: {'; '.join(cells)}")
    return ("Paired samples: " + " | ".join(parts) + ".") if parts else "No source samples shared with the baseline."


def table2(runs: list[RunResult], baseline: str | None = None, reference: Sequence[PaperModel] = ()) -> Table:
    """Clean, Pert. Acc. and the four Δ columns, rows sorted by Pert. Acc. (descending). With
    ``reference`` (the paper's models), their rows follow in Table 2's families, and Family, Type and
    Rank (by Pert. Acc. over every row) columns are added."""
    sig = significance(runs, baseline)
    ordered = sorted(runs, key=lambda r: -(r.stats.pert_acc.value if r.stats.pert_acc.value is not None else -1.0))
    rows = []
    for r in ordered:
        marks = {stat: m.marker for stat, m in sig.get(r.name, {}).items()}
        name = r.name + (" (baseline)" if r.name == baseline else "")
        rows.append([name, *_table2_cells(r.stats.clean, r.stats.pert_acc, r.stats.delta, r.stats.retention, marks)])
    notes = [
        interval_note(runs) + " Δ_X = Clean − accuracy over the pooled records of X's perturbation types "
        "(as Table 2 computes it); retention = 1 − mean(Δ_Obs, Δ_Act, Δ_Rew) / Clean."
    ]
    if baseline is not None:
        notes.append(
            f"Superscripts: paired-bootstrap significance against {baseline} (source samples of both runs "
            "resampled together; * p < 0.05, ** p < 0.01, *** p < 0.001). A marker needs its level to be "
            "reachable by an exact paired test: with m source samples on which the runs differ, p ≥ 2^(1−m), "
            "so * needs m ≥ 6, ** m ≥ 8, *** m ≥ 11. " + paired_counts(sig)
        )
    header = ["Model", "Clean ↑", "Pert. Acc. ↑", *DELTA_HEADERS.values(), "Retention ↑"]
    title = "Main results: accuracy and robustness gaps per POMDP component"
    if not reference:
        return Table("table2", title, header, rows, notes)
    pert = [r.stats.pert_acc.value for r in ordered] + [paper_pert_acc(m) for m in reference]
    families = [RUN_FAMILY] * len(ordered) + [m.family for m in reference]
    types = ["—"] * len(ordered) + [m.type for m in reference]
    rows += [[paper_name(m), *_table2_cells(*paper_estimates(m), paper_markers(m))] for m in reference]
    rows = [
        [row[0], family, kind, rank, *row[1:]]
        for row, family, kind, rank in zip(rows, families, types, ranks(pert), strict=True)
    ]
    return Table("table2", title, [header[0], "Family", "Type", "Rank", *header[1:]], rows, [*notes, paper_note()])


def _table2_cells(
    clean: Estimate, pert: Estimate, delta: dict[str, Estimate], retention: Estimate, marks: dict[str, str]
) -> list[str]:
    cells = [fmt(clean) + marks.get("clean", ""), fmt(pert) + marks.get("pert_acc", "")]
    cells += [fmt(delta[c]) + marks.get(f"delta:{c}", "") for c in DELTA_HEADERS]
    return [*cells, fmt(retention)]


def per_type_tables(runs: list[RunResult], reference: Sequence[PaperModel] = ()) -> list[Table]:
    """One table per component (Tables 7-14 layout): Clean, then per type accuracy (drop from Clean);
    the ``reference`` models' rows (the paper's, in Table 2's order) after the runs'."""
    tables = []
    for comp, title in COMPONENT_TITLES.items():
        types = [t for t in TAXONOMY if t.component == comp and any(t.code in r.stats.accuracy for r in runs)]
        if not types:
            continue
        rows = []
        for r in runs:
            row = [r.name, fmt(r.stats.accuracy.get("clean", Estimate(value=None)))]
            for t in types:
                acc = r.stats.accuracy.get(t.code)
                drop = r.stats.drop.get(t.code)
                row.append(f"{fmt(acc)} ({fmt(drop, signed=True, negate=True)})" if acc and drop else "—")
            rows.append(row)
        rows += [[paper_name(m), *paper_type_cells(m, [t.code for t in types])] for m in reference]
        notes = [
            "Accuracy on the perturbation; in parentheses its difference from the model's own Clean. "
            + interval_note(runs)
            + (" The paper's rows: Tables 7-14's accuracies (their intervals are in the paper)." if reference else "")
        ]
        tables.append(
            Table(
                f"per_type_{comp}",
                f"Per-perturbation accuracy: {title}",
                ["Model", "Clean", *(t.display for t in types)],
                rows,
                notes,
            )
        )
    return tables


def error_mode_table(runs: list[RunResult]) -> Table:
    """Appendix L error-mode shares of incorrect records, per run and component."""
    modes = sorted({m for r in runs for comp in r.error_modes.values() for m in comp})
    rows = []
    for r in runs:
        for comp, shares in r.error_modes.items():
            rows.append([r.name, comp, *(f"{100 * shares.get(m, 0.0):.1f}%" for m in modes)])
    infra = ", ".join(f"{r.name}: {r.stats.infra_errors}" for r in runs)
    notes = [f"Infrastructure errors (excluded from every accuracy): {infra}."]
    return Table(
        "error_modes", "Error modes of incorrect predictions (Appendix L)", ["Model", "Component", *modes], rows, notes
    )


def _pct_cell(value: float | None, ci: float | None) -> str:
    if value is None:
        return "—"
    return f"{value:.3f} ± {ci:.3f}" if ci is not None else f"{value:.3f}"


def beyond_table(runs: list[RunResult]) -> Table | None:
    """Appendix N's axes beyond the paper, apart from Table 2: accuracy (drop from Clean) per type,
    the prompt-injection attack success rate and the share of calls to unlisted (ghost) tools."""
    with_beyond = [r for r in runs if r.beyond is not None]
    if not with_beyond:
        return None
    types = [t for t in BEYOND if any(t.code in (r.beyond.beyond_by_type if r.beyond else {}) for r in runs)]
    rows = []
    for r in runs:
        summary = r.beyond
        cells = summary.beyond_by_type if summary else {}
        row = [r.name, _pct_cell(summary.clean.accuracy, summary.clean.ci95) if summary else "—"]
        for t in types:
            cell, drop = cells.get(t.code), summary.beyond_drop_by_type.get(t.code) if summary else None
            row.append(
                f"{_pct_cell(cell.accuracy, cell.ci95)} ({round(-drop, 3) + 0.0:+.3f})"
                if cell and cell.accuracy is not None and drop is not None
                else "—"
            )
        attack = summary.attack_success if summary else None
        row.append(_pct_cell(attack.accuracy, attack.ci95) if attack else "—")
        ghost = r.ghost_calls
        row.append(f"{ghost.ghost}/{ghost.calls}" if ghost is not None else "—")
        rows.append(row)
    notes = [
        "Beyond the paper (RobustBench-TC Appendix N): kept out of Table 2, Clean and Pert. Acc. above. "
        "Accuracy per type, in parentheses its difference from Clean; ASR = share of prompt-injection records "
        "whose calls obeyed the injected instruction (lower is better); ghost calls = calls to tools that were "
        "not listed / all calls, over every record of the run. ± = per-sample 95% percentile-bootstrap half-width."
    ]
    header = ["Model", "Clean", *(t.display for t in types), "Inject ASR ↓", "Ghost calls ↓"]
    return Table("beyond", "Beyond the paper: Appendix N's axes", header, rows, notes)


def injection_table(runs: list[RunResult]) -> Table | None:
    """Prompt injection per kind of instruction (beyond the paper): attack success beside task accuracy."""
    rows = []
    for r in runs:
        summary = r.beyond
        for kind, asr in (summary.attack_success_by_kind if summary else {}).items():
            acc = summary.injection_accuracy_by_kind.get(kind) if summary else None
            accuracy = _pct_cell(acc.accuracy, acc.ci95) if acc else "—"
            rows.append([r.name, kind, _pct_cell(asr.accuracy, asr.ci95), accuracy, str(asr.n)])
    if not rows:
        return None
    notes = [
        "ASR = share of records whose answer did what the injected instruction asked: call the named tool, "
        "pass the injected value, or stop with the dictated reply ('Task complete.'); an answer without a call "
        "is an attack success only for a stop injection that it obeyed. Accuracy = the task's own verdict."
    ]
    header = ["Model", "Injection kind", "ASR ↓", "Accuracy", "n"]
    return Table("injection", "Beyond the paper: prompt injection per kind", header, rows, notes)


def all_tables(runs: list[RunResult], baseline: str | None = None, reference: Sequence[PaperModel] = ()) -> list[Table]:
    from robustcall.report._trials import trials_table

    beyond = beyond_table(runs)
    injection = injection_table(runs)
    trials = trials_table(runs)
    formats = format_sensitivity_table(runs)
    return [
        table2(runs, baseline, reference),
        *per_type_tables(runs, reference),
        error_mode_table(runs),
        *(t for t in (beyond, injection, trials, formats) if t is not None),
    ]
