"""``robustcall data``: fetch the BFCL wheel, and list what each benchmark source loads."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from robustcall.cli._errors import CommandError

console = Console(stderr=True)

data_app = typer.Typer(
    help="Benchmark data: fetch the BFCL wheel, list what each source loads and skips.",
    no_args_is_help=True,
)

DataDirOpt = Annotated[
    Path | None,
    typer.Option(
        "--data-dir",
        help="Folder laid out like ../shared/data (apibank/, toolrl/, rotbench/, toolalpaca/, tooleyes/).",
    ),
]
SourcesOpt = Annotated[str, typer.Option("--sources", help="Comma list of sources (default: all five).")]


@data_app.command("fetch")
def fetch(
    source: Annotated[
        str, typer.Argument(metavar="SOURCE", help="What to fetch: bfcl (the bfcl-eval wheel from PyPI).")
    ],
) -> None:
    """Download a source's data into the robustcall cache and print where it is."""
    from robustcall.sources import BFCL_VERSION, SourceError, fetch_bfcl

    if source != "bfcl":
        raise typer.BadParameter(
            f"only bfcl is fetched (from PyPI); {source!r} is read from --data-dir", param_hint="SOURCE"
        )
    try:
        with console.status(f"Fetching bfcl-eval=={BFCL_VERSION} (pip download --no-deps)…"):
            path = fetch_bfcl(quiet=True)
    except SourceError as exc:
        raise CommandError(str(exc), exit_code=exc.exit_code) from None
    console.print(f"[green]bfcl-eval {BFCL_VERSION}[/] cached at:")
    typer.echo(str(path))


@data_app.command("list")
def list_sources(data_dir: DataDirOpt = None, sources: SourcesOpt = "") -> None:
    """Load each source and show its sample count, categories and what it skipped, and why."""
    from robustcall.sources import NEEDS_DATA_DIR, SOURCE_NAMES, SourceError, load_source

    names = [s.strip() for s in sources.split(",") if s.strip()] or list(SOURCE_NAMES)
    unknown = [n for n in names if n not in SOURCE_NAMES]
    if unknown:
        raise typer.BadParameter(f"unknown source(s) {unknown}; known: {', '.join(SOURCE_NAMES)}")
    table = Table(title="robustcall sources")
    for col in ("source", "samples", "categories", "skipped (reason: n)"):
        table.add_column(col, justify="right" if col == "samples" else "left", overflow="fold")
    failed = False
    progress = Progress(
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=console
    )
    with progress:
        task = progress.add_task("loading sources", total=len(names))
        for name in names:
            progress.update(task, description=f"loading {name}")
            if name in NEEDS_DATA_DIR and data_dir is None:
                table.add_row(name, "—", "", "[yellow]needs --data-dir")
            else:
                try:
                    result = load_source(name, data_dir)
                except SourceError as exc:
                    failed = True
                    table.add_row(name, "—", "", f"[red]error: {exc}")
                else:
                    cats = Counter(s.category for s in result.samples)
                    table.add_row(
                        name,
                        str(len(result.samples)),
                        ", ".join(f"{c} {n}" for c, n in sorted(cats.items())),
                        "\n".join(f"{r}: {n}" for r, n in result.skipped.items()) or "none",
                    )
            progress.advance(task)
    Console().print(table)
    if failed:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    """Add this module's commands to the app."""
    app.add_typer(data_app, name="data")
