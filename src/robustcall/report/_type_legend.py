"""The perturbation types with the production failures that ground them (paper 000, Appendix E,
Table 5): a table for ``robustcall types`` and the HTML report's type legend."""

from __future__ import annotations

import html
from collections.abc import Iterable

from robustcall.core import BEYOND, GROUNDING, REFERENCES, TABLE5, TAXONOMY, TypeInfo
from robustcall.report._table import Table

BEYOND_SOURCE = "Appendix N (beyond the paper)"
"""What the legend says where Table 5 has no row: Appendix N's axes."""


def _issues(display: str) -> str:
    row = GROUNDING.get(display)
    return " ".join(row.urls) if row is not None else ""


def types_table(beyond: bool = False) -> Table:
    """One row per perturbation type: display and code name, component, Table 5's source and failure
    summary, and the cited issues' URLs; ``beyond`` adds Appendix N's axes (no Table 5 row)."""
    rows = []
    for t in (*TAXONOMY, *(BEYOND if beyond else ())):
        row = GROUNDING.get(t.display)
        source, summary = (row.source, row.summary) if row is not None else (BEYOND_SOURCE, "")
        rows.append([t.display, t.code, t.component, source, summary, _issues(t.display)])
    return Table(
        name="perturbation_types",
        title="Perturbation types and the production failures that ground them (paper 000, Table 5)",
        header=["Type", "Code", "Component", "Source", "Failure summary", "Issues"],
        rows=rows,
    )


def table5() -> Table:
    """Table 5 as printed: one row per grounding (``Dup-*`` covers the five Dup types)."""
    return Table(
        name="table5",
        title="Table 5: Production grounding for each perturbation type",
        header=["Type", "Source", "Failure summary"],
        rows=[[g.type_cell, g.source, g.summary] for g in TABLE5],
    )


def _link(url: str) -> str:
    return f"<a href='{html.escape(url)}'>{html.escape(url.removeprefix('https://github.com/'))}</a>"


def _source_html(display: str) -> str:
    row = GROUNDING.get(display)
    if row is None:
        return html.escape(BEYOND_SOURCE)
    cited = [REFERENCES[n] for n in row.refs]
    links = ", ".join(_link(r.url) for r in cited if r.url is not None)
    return f"{html.escape(row.source)}<br>{links}" if links else html.escape(row.source)


def legend_html(types: Iterable[TypeInfo]) -> str:
    """The HTML report's legend: each type's display and code name, component, Table 5's source (with
    links to the cited issues) and failure summary."""
    body = "".join(
        f"<tr><td>{html.escape(t.display)}</td><td><code>{html.escape(t.code)}</code></td>"
        f"<td>{html.escape(t.component)}</td><td style='text-align:left'>{_source_html(t.display)}</td>"
        f"<td style='text-align:left'>{html.escape(GROUNDING[t.display].summary if t.display in GROUNDING else '')}"
        "</td></tr>"
        for t in types
    )
    head = "".join(f"<th>{h}</th>" for h in ("Type", "Code", "Component", "Source", "Failure summary"))
    return (
        "<h2>Perturbation types</h2><p class='note'>Each type with the real-world failure that grounds it "
        "(paper 000, Appendix E, Table 5).</p>"
        f"<table class='legend'><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
    )
