"""``robustcall report``: every table in Markdown, CSV and LaTeX, the figures as PNG, one HTML page."""

from __future__ import annotations

import base64
import html
import json
from dataclasses import dataclass
from pathlib import Path

from robustcall.metrics import DEFAULT_RESAMPLES, Resampling
from robustcall.report._figures import drop_heatmap, drops_vs_size, load_sizes, retention_vs_size
from robustcall.report._runs import RunResult, load_run, unique_names
from robustcall.report._table import Table
from robustcall.report._tables import all_tables

_STYLE = """
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;margin:2rem auto;max-width:1200px;
color:#222;padding:0 1rem}
h1{font-size:1.5rem}h2{font-size:1.2rem;margin-top:2rem;border-bottom:1px solid #ddd}h3{font-size:1rem}
table{border-collapse:collapse;font-size:.85rem;margin:.5rem 0}th,td{padding:.3rem .6rem;border-bottom:1px solid #eee}
th{background:#f5f5f5;text-align:right}td{text-align:right;font-variant-numeric:tabular-nums}
td:first-child,th:first-child{text-align:left}.note{color:#666;font-size:.8rem}img{max-width:100%}
"""


@dataclass(frozen=True)
class ReportFiles:
    """What a report wrote."""

    tables: list[Path]
    figures: list[Path]
    html: Path
    summary: Path


def load_runs(
    paths: list[Path], *, resamples: int, seed: int, resampling: Resampling = "per-sample"
) -> list[RunResult]:
    return [
        load_run(p, resamples=resamples, seed=seed, name=n, resampling=resampling)
        for p, n in zip(paths, unique_names(paths), strict=True)
    ]


def _figures(runs: list[RunResult], sizes: dict[str, float]) -> dict[str, tuple[str, bytes]]:
    out = {"drop_heatmap": ("Figure 4: drop from Clean per model and perturbation", drop_heatmap(runs))}
    for name, title, png in (
        ("retention_vs_size", "Figure 2: retention vs model size", retention_vs_size(runs, sizes)),
        ("drops_vs_size", "Figure 3: per-component drop vs model size", drops_vs_size(runs, sizes)),
    ):
        if png is not None:
            out[name] = (title, png)
    return out


def _page(runs: list[RunResult], tables: list[Table], figures: dict[str, tuple[str, bytes]]) -> str:
    listing = "".join(
        f"<li><b>{html.escape(r.name)}</b>: {html.escape(str(r.path))} ({len(r.verdicts)} records, "
        f"{r.stats.sources} source samples, {r.stats.infra_errors} infrastructure errors)</li>"
        for r in runs
    )
    figs = "".join(
        f"<h3>{html.escape(title)}</h3><img alt='{html.escape(title)}' "
        f"src='data:image/png;base64,{base64.b64encode(png).decode()}'>"
        for title, png in figures.values()
    )
    body = "".join(t.html() for t in tables)
    return (
        "<!doctype html><html><head><meta charset='utf-8'><title>robustcall report</title>"
        f"<style>{_STYLE}</style></head><body><h1>RobustBench-TC report</h1><ul>{listing}</ul>"
        f"<h2>Tables</h2>{body}<h2>Figures</h2>{figs}</body></html>\n"
    )


def write_report(
    paths: list[Path],
    out: Path,
    *,
    baseline: str | None = None,
    sizes_file: Path | None = None,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
    resampling: Resampling = "per-sample",
) -> ReportFiles:
    """Score (if needed), compare and render the runs into ``out`` (half-widths resampled as
    ``resampling`` says; significance is always paired by source sample)."""
    runs = load_runs(paths, resamples=resamples, seed=seed, resampling=resampling)
    sizes = load_sizes(sizes_file) if sizes_file else {}
    tables = all_tables(runs, baseline)
    figures = _figures(runs, sizes)
    out.mkdir(parents=True, exist_ok=True)
    table_files: list[Path] = []
    for t in tables:
        for ext, text in (("md", t.markdown()), ("csv", t.csv()), ("tex", t.latex())):
            path = out / f"{t.name}.{ext}"
            path.write_text(text)
            table_files.append(path)
    figure_files = []
    for name, (_, png) in figures.items():
        path = out / f"{name}.png"
        path.write_bytes(png)
        figure_files.append(path)
    page = out / "report.html"
    page.write_text(_page(runs, tables, figures))
    summary = out / "report.json"
    summary.write_text(
        json.dumps({r.name: r.stats.model_dump() | {"error_modes": r.error_modes} for r in runs}, indent=2) + "\n"
    )
    return ReportFiles(table_files, figure_files, page, summary)
