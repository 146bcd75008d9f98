"""``robustcall export``: a run or a benchmark in the ecosystem's formats (Inspect AI, Hugging Face, BFCL)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

console = Console(stderr=True)

export_app = typer.Typer(
    name="export",
    help="Write a run or a benchmark for other tools: an Inspect AI log, a Hugging Face dataset, BFCL result files.",
    no_args_is_help=True,
)


def _need(extra: str, exc: ImportError) -> typer.BadParameter:
    return typer.BadParameter(f"{exc} (install the `{extra}` extra: pip install 'robustcall[{extra}]')")


@export_app.command("inspect")
def inspect_cmd(
    run_dir: Annotated[Path, typer.Argument(help="A run directory (predictions.jsonl; scores.jsonl if scored).")],
    out: Annotated[Path, typer.Option("--out", help="The Inspect log to write (.eval, or .json).")],
) -> None:
    """An Inspect AI eval log of a run: one sample per record, with our score and error mode (`inspect view`)."""
    try:
        from robustcall.interop._inspect_log import export_inspect
    except ImportError as exc:
        raise _need("inspect", exc) from None
    try:
        log = export_inspect(run_dir, out)
    except FileNotFoundError as exc:
        raise typer.BadParameter(str(exc)) from None
    results = log.results
    acc = results.scores[0].metrics["accuracy"].value if results and results.scores else 0.0
    console.print(f"{out}: {len(log.samples or [])} samples, accuracy {acc:.3f}; browse with `inspect view`")


def register(app: typer.Typer) -> None:
    app.add_typer(export_app)
