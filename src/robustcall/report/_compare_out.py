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
from robustcall.metrics import KIND_DISPLAY, PairedRow, frac
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
    return text


def _gate_text(result: CompareResult) -> str:
    parts = []
    if result.fail_on_drop is not None:
        parts.append(f"a drop > {result.fail_on_drop:g} in a component or the overall figure")
    if result.fail_on_type is not None:
        parts.append(f"a drop > {result.fail_on_type:g} in a type")
    return " or ".join(parts)


def _table(rows: list[tuple[Comparison, PairedRow]], failing: set[int], parts: bool) -> list[str]:
    head = ["Run"] if parts else []
    lines = [
        "| " + " | ".join([*head, "Figure", "Baseline", "Candidate", "Δ [95% CI]", "p (Holm)", "n"]) + " |",
        "|" + "---|" * (len(head) + 6),
    ]
    for c, r in rows:
        label = f"**{r.label}** (gate)" if id(r) in failing else r.label
        cells = [c.part or "—"] if parts else []
        cells += [label, frac(r.baseline), frac(r.candidate), _delta(r), _p(r.p_holm), str(r.units)]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def _n(k: int, word: str) -> str:
    return f"{k} {word}{'' if k == 1 else 's'}"


def compare_markdown(result: CompareResult) -> str:
    """The summary: a headline, what was compared, the gate's verdict, then the rows."""
    rows = result.rows()
    status = {id(r): r.status(result.alpha) for _, r in rows}
    failing = {id(r) for _, r in result.gate_failures()}
    reg = [(c, r) for c, r in rows if status[id(r)] == "regression"]
    imp = [(c, r) for c, r in rows if status[id(r)] == "improvement"]
    rest = [(c, r) for c, r in rows if status[id(r)] == "unchanged"]
    out = [
        f"## robustcall compare: {_n(len(reg), 'regression')}, {_n(len(imp), 'improvement')}, {len(rest)} unchanged",
        "",
    ]
    for c in result.comparisons:
        p = c.result.pairing
        where = f"{c.part}: " if c.part else ""
        out.append(
            f"- {where}`{c.baseline}` → `{c.candidate}` ({KIND_DISPLAY[c.result.kind]}): {p.compared} of "
            f"{max(p.baseline, p.candidate)} {p.unit} compared (baseline {p.baseline}, candidate {p.candidate}, "
            f"both {p.shared})"
        )
        out += [f"  - note: {note}" for note in c.result.notes]
    out += [f"- not compared: {x}" for x in result.left_out]
    gate = _gate_text(result)
    if gate:
        verdict = f"**failed** ({_n(len(failing), 'figure')})" if failing else "passed"
        out += ["", f"Gate (fail on {gate}, Holm-adjusted p < {result.alpha:g}): {verdict}"]
    parts = any(c.part for c in result.comparisons)
    for title, group in (("Regressions", reg), ("Improvements", imp)):
        if group:
            out += ["", f"### {title}", "", *_table(group, failing, parts)]
    if rest:
        out += ["", f"<details><summary>Unchanged ({len(rest)})</summary>", "", *_table(rest, failing, parts)]
        out += ["", "</details>"]
    first = result.comparisons[0].result
    out += [
        "",
        "Δ = candidate − baseline (accuracies and rates as fractions in [0, 1]); "
        f"95% paired percentile bootstrap, B = {first.resamples:,}, seed {first.seed}; "
        "p: exact sign test (exact McNemar on paired records), Holm-adjusted within each "
        f"group of figures; significant at p < {result.alpha:g}.",
    ]
    return "\n".join(out) + "\n"


def compare_json(result: CompareResult) -> str:
    """Every number, each row with its status and whether it fails the gate."""
    failing = {(c.part, c.result.kind, r.key) for c, r in result.gate_failures()}
    data: dict[str, Any] = result.model_dump(mode="json")
    for c_data, c in zip(data["comparisons"], result.comparisons, strict=True):
        for r_data, r in zip(c_data["result"]["rows"], c.result.rows, strict=True):
            r_data["status"] = r.status(result.alpha)
            r_data["fails_gate"] = (c.part, c.result.kind, r.key) in failing
    data["gate"] = {"failed": bool(failing), "failures": len(failing)}
    return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def compare_junit(result: CompareResult) -> str:
    """JUnit XML: a test suite per pair of runs, a test case per row; a case fails with its row."""
    failing = {id(r) for _, r in result.gate_failures()}
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
