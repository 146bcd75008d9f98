"""The ``robustcall`` command: one small module per command group, registered here."""

from __future__ import annotations

from typing import Annotated

import typer

from robustcall.cli import (
    build_cmd,
    card_cmd,
    compare_cmd,
    data_cmd,
    envs_cmd,
    eval_cmd,
    export_cmd,
    faults_cmd,
    leaderboard_cmd,
    mcp_cmd,
    model_cmd,
    pipe_cmd,
    report_cmd,
    rm_cmd,
    train_cmd,
    types_cmd,
    validate_cmd,
)
from robustcall.cli._errors import RobustcallGroup

app = typer.Typer(
    name="robustcall",
    help="Measure how tool-calling LLM agents hold up outside clean benchmarks.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_show_locals=False,
    cls=RobustcallGroup,
)


def _version_line() -> str:
    """The version and whether the scoring path runs compiled (``compiled 11/11``) or as plain Python."""
    from robustcall import __version__
    from robustcall._native import compiled_status

    return f"robustcall {__version__} (scoring path: {compiled_status()})"


def _print_version(value: bool) -> None:
    if value:
        typer.echo(_version_line())
        raise typer.Exit()


@app.callback()
def main(
    ctx: typer.Context,
    version: Annotated[
        bool,
        typer.Option("--version", callback=_print_version, is_eager=True, help="Print the version and exit."),
    ] = False,
    debug: Annotated[
        bool, typer.Option("--debug", help="Show the traceback of every error (also ROBUSTCALL_DEBUG=1).")
    ] = False,
) -> None:
    """Measure how tool-calling LLM agents hold up outside clean benchmarks.

    Errors you can fix end in a one- or two-line message; exit status 1 for those, 2 for a bad
    command line, 3 for a run that finished with more infrastructure errors than allowed, 4 for
    `compare` when its regression gate fails.
    """
    from robustcall.cli._progress import log_progress

    ctx.with_resource(log_progress())  # progress lines in a log, when stdout is not a terminal


@app.command()
def version() -> None:
    """Print the robustcall version and whether the scoring path runs compiled (as --version)."""
    typer.echo(_version_line())


commands = (
    data_cmd,
    build_cmd,
    model_cmd,
    eval_cmd,
    card_cmd,
    envs_cmd,
    export_cmd,
    report_cmd,
    compare_cmd,
    leaderboard_cmd,
    faults_cmd,
    mcp_cmd,
    pipe_cmd,
    rm_cmd,
    train_cmd,
    types_cmd,
    validate_cmd,
)
for module in commands:
    module.register(app)

if __name__ == "__main__":
    app()
