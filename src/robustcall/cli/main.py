"""The ``robustcall`` command: one small module per command group, registered here."""

from __future__ import annotations

import typer

from robustcall.cli import (
    build_cmd,
    data_cmd,
    eval_cmd,
    faults_cmd,
    leaderboard_cmd,
    model_cmd,
    pipe_cmd,
    report_cmd,
    rm_cmd,
    train_cmd,
)

app = typer.Typer(
    name="robustcall",
    help="Measure how tool-calling LLM agents hold up outside clean benchmarks.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_show_locals=False,
)


@app.command()
def version() -> None:
    """Print the robustcall version."""
    from robustcall import __version__

    typer.echo(__version__)


commands = (
    data_cmd,
    build_cmd,
    model_cmd,
    eval_cmd,
    report_cmd,
    leaderboard_cmd,
    faults_cmd,
    pipe_cmd,
    rm_cmd,
    train_cmd,
)
for module in commands:
    module.register(app)

if __name__ == "__main__":
    app()
