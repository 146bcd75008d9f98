"""``robustcall types``: the perturbation types and the production failures that ground them."""

from __future__ import annotations

from typing import Annotated

import typer

from robustcall.cli._errors import CommandError

TABLE_FORMATS = ("markdown", "csv")


def register(app: typer.Typer) -> None:
    @app.command("types")
    def types_cmd(
        table5: Annotated[
            bool, typer.Option("--table5", help="Paper 000's Table 5 as printed (17 rows; Dup-* is five types).")
        ] = False,
        beyond: Annotated[bool, typer.Option("--beyond", help="Add Appendix N's axes (beyond the paper).")] = False,
        fmt: Annotated[str, typer.Option("--format", help="markdown or csv.")] = "markdown",
    ) -> None:
        """List the perturbation types: code name, component, and the real-world issue behind each (Table 5)."""
        from robustcall.report import table5 as paper_table5
        from robustcall.report import types_table

        if fmt not in TABLE_FORMATS:
            raise CommandError(f"--format must be one of {', '.join(TABLE_FORMATS)}, not {fmt!r}")
        table = paper_table5() if table5 else types_table(beyond=beyond)
        typer.echo(table.markdown() if fmt == "markdown" else table.csv(), nl=False)
