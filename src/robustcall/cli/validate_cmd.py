"""``robustcall validate``: check run and benchmark directories against the run-directory schema."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from robustcall.cli._errors import CommandError


def register(app: typer.Typer) -> None:
    @app.command("validate")
    def validate_cmd(
        dirs: Annotated[
            list[Path],
            typer.Argument(help="Run or benchmark directories (directories below them are checked too)."),
        ],
    ) -> None:
        """Check every file of run and benchmark directories against its schema; exit 1 on any problem."""
        from robustcall.score import run_dirs, validate_run_dir

        absent = [str(d) for d in dirs if not d.is_dir()]
        if absent:  # a wrong argument, not a finding
            raise CommandError(f"no such directory: {', '.join(absent)}")
        checked = 0
        problems: list[str] = []
        for d in dirs:
            problems.extend(validate_run_dir(d))
            checked += len(run_dirs(d)) if d.is_dir() else 0
        for problem in problems:
            typer.echo(problem)
        if problems:
            raise CommandError(f"{len(problems)} problem(s) in {checked} directories")
        typer.echo(f"{checked} directories checked: every file matches its schema")
