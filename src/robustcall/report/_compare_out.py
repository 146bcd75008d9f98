"""What ``robustcall compare`` writes: a Markdown summary short enough for a pull-request comment
(regressions first, then improvements, the rest folded away), ``compare.json`` with every number, and
JUnit XML with one test case per row (component, type, failure class, ...) for CI systems. A test
case fails exactly when its row fails the gate, so the XML agrees with the exit status."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from robustcall.core import atomic_write_text
from robustcall.metrics import KIND_DISPLAY, PairedRow, family_sizes, frac, smallest_flaggable_drop
from robustcall.report._compare import CompareResult, Comparison

MARKDOWN = "compare.md"
JSON = "compare.json"
JUNIT = "compare.junit.xml"


def _p(p: float | None) -> str:
    if p is None:
        return "—"
    return "<0.001" if p < 0.001 else f"{p:.3f}"


def _delta(r: PairedRow) -> str:
    text = frac(r.delta, signed=True)
    if r.ci95 is not None:
        text += f" [{frac(r.ci95[0], signed=True)}, {frac(r.ci95[1], signed=True)}]"
    if r.within_noise() and r.noise_floor is not None:
        text += f" ≈ noise (±{r.noise_floor:.3f})"
    return text


Reach = dict[int, float | None]
"""id(row) -> the smallest drop the row could flag (``None``: it cannot reach significance)."""


def reach(result: CompareResult) -> Reach:
    """Per gated row (one a gate flag could judge) with a test: the smallest drop its units could flag
    at α after Holm, given the baseline (``metrics.smallest_flaggable_drop``)."""
    out: Reach = {}
    for c in result.comparisons:
        sizes = family_sizes(c.result.rows)
        for r in c.result.rows:
            if r.p_value is not None and r.gate is not None:
                out[id(r)] = smallest_flaggable_drop(r, result.alpha, sizes.get(r.family, 1))
    return out


def _flaggable(r: PairedRow, got: Reach, alpha: float) -> str:
    if id(r) not in got:
        return "—"
    drop = got[id(r)]
    return f"cannot reach p < {alpha:g} (n = {r.units})" if drop is None else f"≥ {drop:.3f}"


def _unreachable(rows: list[tuple[Comparison, PairedRow]], got: Reach) -> list[tuple[Comparison, PairedRow]]:
    return [(c, r) for c, r in rows if id(r) in got and got[id(r)] is None]


def _gate_text(result: CompareResult) -> str:
    parts = []
    if result.fail_on_drop is not None:
        parts.append(f"a drop > {result.fail_on_drop:g} in a component or the overall figure")
    if result.fail_on_type is not None:
        parts.append(f"a drop > {result.fail_on_type:g} in a type")
    return " or ".join(parts)


def _table(
    rows: list[tuple[Comparison, PairedRow]], failing: set[int], parts: bool, got: Reach, alpha: float
) -> list[str]:
    head = ["Run"] if parts else []
    columns = [*head, "Figure", "Baseline", "Candidate", "Δ [95% CI]", "p (Holm)", "n", "could flag a drop"]
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    for c, r in rows:
        label = f"**{r.label}** (gate)" if id(r) in failing else r.label
        cells = [c.part or "—"] if parts else []
        cells += [label, frac(r.baseline), frac(r.candidate), _delta(r), _p(r.p_holm), str(r.units)]
        cells.append(_flaggable(r, got, alpha) if r.gate is not None else "—")
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def _run_lines(c: Comparison) -> list[str]:
    """What was compared: both folders, the pairing, what differs between their ``run.json``."""
    p = c.result.pairing
    where = f"{c.part}: " if c.part else ""
    names = f"`{c.baseline}` → `{c.candidate}`"
    if c.baseline_path and c.candidate_path:
        names = f"`{c.baseline_path}` ({c.baseline}) → `{c.candidate_path}` ({c.candidate})"
    out = [
        f"- {where}{names} ({KIND_DISPLAY[c.result.kind]}): {p.compared} of "
        f"{max(p.baseline, p.candidate)} {p.unit} compared (baseline {p.baseline}, candidate {p.candidate}, "
        f"both {p.shared})"
    ]
    if c.result.kind in ("robustbench", "faults", "pipe"):
        same = "differs: " + "; ".join(c.differences) if c.differences else "run.json: same mode, settings, max tokens"
        out.append(f"  - {same}")
    if p.trials_baseline is not None or p.trials_candidate is not None:
        out.append(
            f"  - trials: baseline {p.trials_baseline or 1}, candidate {p.trials_candidate or 1} per record; "
            "paired per record over its trials; Δ within its noise floor marked ≈ noise"
        )
    out += [f"  - note: {note}" for note in c.result.notes]
    return out


def _n(k: int, word: str) -> str:
    return f"{k} {word}{'' if k == 1 else 's'}"


def compare_markdown(result: CompareResult) -> str:
    """The summary: a headline, what was compared, the gate's verdict, then the rows."""
    rows = result.rows()
    got = reach(result)
    alpha = result.alpha
    status = {id(r): r.status(alpha) for _, r in rows}
    failing = {id(r) for _, r in result.gate_failures()}
    reg = [(c, r) for c, r in rows if status[id(r)] == "regression"]
    imp = [(c, r) for c, r in rows if status[id(r)] == "improvement"]
    flat = [(c, r) for c, r in rows if status[id(r)] == "unchanged"]
    blind = _unreachable(flat, got)
    blind_ids = {id(r) for _, r in blind}
    rest = [(c, r) for c, r in flat if id(r) not in blind_ids]
    head = f"## robustcall compare: {_n(len(reg), 'regression')}, {_n(len(imp), 'improvement')}, {len(rest)} unchanged"
    if blind:
        n = max(r.units for _, r in blind)
        every = len(blind) == len([1 for _, r in rows if id(r) in got])
        why = f"n = {n}: no figure can reach p < {alpha:g}" if every else f"cannot reach p < {alpha:g} at their n"
        head += f", {len(blind)} not significant ({why})"
    out = [head, ""]
    for c in result.comparisons:
        out += _run_lines(c)
    out += [f"- not compared: {x}" for x in result.left_out]
    gate = _gate_text(result)
    if gate:
        verdict = f"**failed** ({_n(len(failing), 'figure')})" if failing else "passed"
        out += ["", f"Gate (fail on {gate}, Holm-adjusted p < {alpha:g}): {verdict}"]
        gated = [(c, r) for c, r in rows if _gated(result, r)]
        blind_gated = _unreachable(gated, got)
        if blind_gated:
            names = ", ".join(r.label for _, r in blind_gated[:4]) + (" …" if len(blind_gated) > 4 else "")
            out.append(
                f"- {len(blind_gated)} of {len(gated)} gated figures cannot reach p < {alpha:g} at this n "
                f"({names}): the gate cannot fail on them, whatever they do"
            )
    parts = any(c.part for c in result.comparisons)
    for title, group in (("Regressions", reg), ("Improvements", imp)):
        if group:
            out += ["", f"### {title}", "", *_table(group, failing, parts, got, alpha)]
    if blind:
        out += ["", f"### Not significant: cannot reach p < {alpha:g} at this n ({len(blind)})", ""]
        out += _table(blind, failing, parts, got, alpha)
    if rest:
        out += ["", f"<details><summary>Unchanged ({len(rest)})</summary>", ""]
        out += [*_table(rest, failing, parts, got, alpha), "", "</details>"]
    first = result.comparisons[0].result
    out += [
        "",
        "Δ = candidate − baseline (accuracies and rates as fractions in [0, 1]); "
        f"95% paired percentile bootstrap, B = {first.resamples:,}, seed {first.seed}; "
        "p: exact sign test (exact McNemar on paired records), Holm-adjusted within each "
        f"group of figures; significant at p < {alpha:g}. Could flag a drop: the smallest drop of the "
        "figure its units could show significant, given the baseline (every changed unit a loss by the least it can).",
    ]
    return "\n".join(out) + "\n"


def _gated(result: CompareResult, r: PairedRow) -> bool:
    """Whether the gate asked judges ``r`` (``--fail-on-drop`` / ``--fail-on-type``)."""
    return (r.gate == "drop" and result.fail_on_drop is not None) or (
        r.gate == "type" and result.fail_on_type is not None
    )


def compare_json(result: CompareResult) -> str:
    """Every number, each row with its status and whether it fails the gate."""
    failing = {(c.part, c.result.kind, r.key) for c, r in result.gate_failures()}
    got = reach(result)
    data: dict[str, Any] = result.model_dump(mode="json")
    for c_data, c in zip(data["comparisons"], result.comparisons, strict=True):
        for r_data, r in zip(c_data["result"]["rows"], c.result.rows, strict=True):
            r_data["status"] = r.status(result.alpha)
            r_data["fails_gate"] = (c.part, c.result.kind, r.key) in failing
            r_data["can_reach_significance"] = got[id(r)] is not None if id(r) in got else None
            r_data["smallest_flaggable_drop"] = got.get(id(r))
            r_data["within_noise"] = r.within_noise()
    data["gate"] = {"failed": bool(failing), "failures": len(failing)}
    return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def compare_junit(result: CompareResult) -> str:
    """JUnit XML: a test suite per pair of runs, a test case per row; a case fails with its row."""
    failing = {id(r) for _, r in result.gate_failures()}
    got = reach(result)
    suites = ET.Element("testsuites", name="robustcall compare")
    total = fails = 0
    for c in result.comparisons:
        name = c.part or KIND_DISPLAY[c.result.kind]
        suite = ET.SubElement(suites, "testsuite", name=name)
        k = 0
        for r in c.result.rows:
            case = ET.SubElement(
                suite, "testcase", classname=f"robustcall.compare.{c.result.kind}", name=f"{r.key} ({r.label})"
            )
            text = (
                f"baseline {frac(r.baseline)}, candidate {frac(r.candidate)}, Δ {_delta(r)}, "
                f"p {_p(r.p_value)}, Holm {_p(r.p_holm)}, n {r.units}"
            )
            if r.gate is not None and id(r) in got:
                text += f"; could flag a drop {_flaggable(r, got, result.alpha)}"
            if id(r) in failing:
                k += 1
                ET.SubElement(
                    case, "failure", message=f"{r.label} regressed: Δ {frac(r.delta, signed=True)}"
                ).text = text
            else:
                ET.SubElement(case, "system-out").text = text
        suite.set("tests", str(len(c.result.rows)))
        suite.set("failures", str(k))
        total += len(c.result.rows)
        fails += k
    suites.set("tests", str(total))
    suites.set("failures", str(fails))
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"


def write_compare(result: CompareResult, out: Path) -> list[Path]:
    """Write the three files into ``out`` (made if missing); return them."""
    out.mkdir(parents=True, exist_ok=True)
    files = []
    for name, text in (
        (MARKDOWN, compare_markdown(result)),
        (JSON, compare_json(result)),
        (JUNIT, compare_junit(result)),
    ):
        atomic_write_text(out / name, text)
        files.append(out / name)
    return files
