"""``robustcall report``: every table in Markdown, CSV and LaTeX, the figures as PNG, one HTML page."""

from __future__ import annotations

import base64
import html
import json
from dataclasses import dataclass
from pathlib import Path

from robustcall.core import TAXONOMY, TYPES, InputError, TypeInfo, paper_reference
from robustcall.metrics import DEFAULT_RESAMPLES, Prices, Resampling
from robustcall.report._figures import drop_heatmap, drops_vs_size, load_sizes, retention_vs_size
from robustcall.report._release_note import run_comparability
from robustcall.report._runs import RunResult, load_run, run_name, unique_names
from robustcall.report._table import Table
from robustcall.report._tables import all_tables
from robustcall.report._tokens import read_run_tokens, token_tables
from robustcall.report._type_legend import legend_html

STYLE = """
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
    notes: list[str]
    """What was left out of a table or figure, and why (also on the HTML page)."""


def _aliases(run: RunResult) -> set[str]:
    """Every name a user may give a run by: its model name, its folder's name, its path."""
    return {run.name, run_name(run.path), run.path.name, str(run.path), str(run.path.resolve())}


def find_run(key: str, runs: list[RunResult]) -> RunResult | None:
    """The run ``key`` names (model name or run folder; an exact model name wins), else ``None``."""
    exact = [r for r in runs if r.name == key]
    if exact:
        return exact[0]
    matches = [r for r in runs if key in _aliases(r)]
    if len(matches) > 1:
        raise InputError(f"{key!r} names several runs ({', '.join(r.name for r in matches)}): give the folder path")
    return matches[0] if matches else None


def _known(runs: list[RunResult]) -> str:
    return "; ".join(f"{r.name} (folder {r.path.name})" for r in runs)


def resolve_baseline(baseline: str | None, runs: list[RunResult]) -> str | None:
    """The run name of ``--baseline`` given as a model name or a run folder."""
    if baseline is None:
        return None
    run = find_run(baseline, runs)
    if run is None:
        raise InputError(f"--baseline {baseline!r} is none of the runs: {_known(runs)}")
    return run.name


def resolve_sizes(sizes: dict[str, float], runs: list[RunResult], source: str) -> tuple[dict[str, float], list[str]]:
    """Sizes keyed by run name (from keys that are model names or run folders) and notes on
    what a size file leaves out: keys that name no run, runs that have no size."""
    by_name: dict[str, float] = {}
    notes: list[str] = []
    unmatched = []
    for key, size in sizes.items():
        run = find_run(key, runs)
        if run is None:
            unmatched.append(key)
        else:
            by_name[run.name] = size
    if unmatched:
        notes.append(f"{source}: {', '.join(map(repr, unmatched))} match no run (runs: {_known(runs)})")
    missing = [r.name for r in runs if r.name not in by_name]
    if missing:
        notes.append(f"Figures 2 and 3 leave out runs with no size in {source}: {', '.join(missing)}")
    return by_name, notes


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


def _page(
    runs: list[RunResult],
    tables: list[Table],
    figures: dict[str, tuple[str, bytes]],
    notes: list[str],
    versus: dict[str, tuple[bool, str]],
) -> str:
    listing = "".join(
        f"<li><b>{html.escape(r.name)}</b>: {html.escape(str(r.path))} ({len(r.verdicts)} records, "
        f"{r.stats.sources} source samples, {r.stats.infra_errors} infrastructure errors); "
        f"{html.escape(versus[r.name][1])}</li>"
        for r in runs
    )
    figs = "".join(
        f"<h3>{html.escape(title)}</h3><img alt='{html.escape(title)}' "
        f"src='data:image/png;base64,{base64.b64encode(png).decode()}'>"
        for title, png in figures.values()
    )
    body = "".join(t.html() for t in tables)
    figs += "".join(f"<p class='note'>{html.escape(n)}</p>" for n in notes)
    return (
        "<!doctype html><html><head><meta charset='utf-8'><title>robustcall report</title>"
        f"<style>{STYLE}</style></head><body><h1>RobustBench-TC report</h1><ul>{listing}</ul>"
        f"<h2>Tables</h2>{body}<h2>Figures</h2>{figs}{legend_html(_legend_types(runs))}</body></html>\n"
    )


def _legend_types(runs: list[RunResult]) -> list[TypeInfo]:
    """The paper's 22 types, then any of Appendix N's the runs hold (the legend of every table)."""
    held = {v.type for r in runs for v in r.verdicts}
    held |= {t for r in runs if r.beyond is not None for t in r.beyond.beyond_by_type}
    extra = [TYPES[c] for c in sorted(held) if c in TYPES and TYPES[c].beyond]
    return [*TAXONOMY, *extra]


def write_report(
    paths: list[Path],
    out: Path,
    *,
    baseline: str | None = None,
    sizes_file: Path | None = None,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
    resampling: Resampling = "per-sample",
    paper: bool = True,
    prices: Prices | None = None,
) -> ReportFiles:
    """Score (if needed), compare and render the runs into ``out`` (half-widths resampled as
    ``resampling`` says; significance is always paired by source sample). ``paper``: the paper's 21
    models as reference rows of Table 2 and Tables 7-14. ``prices`` (``--prices``): the token tables
    gain a cost column."""
    runs = load_runs(paths, resamples=resamples, seed=seed, resampling=resampling)
    notes: list[str] = []
    if sizes_file is not None:
        sizes, notes = resolve_sizes(load_sizes(sizes_file), runs, sizes_file.name)
    else:
        sizes = {}
        notes.append("Figures 2 and 3 (against model size) need --sizes: not drawn")
    unscored = [r.name for r in runs if r.name in sizes and r.stats.retention.value is None]
    if unscored:
        notes.append(
            f"Figure 2 leaves out runs whose retention is undefined (no Clean accuracy): {', '.join(unscored)}"
        )
    reference = paper_reference().models if paper else ()
    tables = all_tables(runs, resolve_baseline(baseline, runs), reference)
    versus = {r.name: run_comparability(r.path, len(r.verdicts)) for r in runs}
    for t in tables:
        if t.name == "table2":  # which runs stand like for like beside the paper's rows
            t.notes.append("Beside the paper: " + "; ".join(f"{n}: {why}" for n, (_, why) in versus.items()) + ".")
    tokens = {r.name: read_run_tokens(r.path, run_name(r.path), prices) for r in runs}
    tables += token_tables(tokens)
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
    page.write_text(_page(runs, tables, figures, notes, versus))
    summary = out / "report.json"
    summary.write_text(
        json.dumps(
            {
                r.name: r.stats.model_dump()
                | {
                    "error_modes": r.error_modes,
                    "tokens": tokens[r.name].model_dump(),
                    "like_for_like": versus[r.name][0],
                    "versus_paper": versus[r.name][1],
                }
                for r in runs
            },
            indent=2,
        )
        + "\n"
    )
    return ReportFiles(table_files, figure_files, page, summary, notes)
