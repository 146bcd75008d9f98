"""``robustcall report``: tables, figures and an HTML page for one or more runs."""

from __future__ import annotations

from pathlib import Path

import typer

from robustcall.cli._options import DEFAULT_RESAMPLES


def register(app: typer.Typer) -> None:
    @app.command()
    def report(
        runs: list[Path] = typer.Argument(..., help="Run directories (from `robustcall run`).", exists=True),
        out: Path = typer.Option(..., "--out", help="Directory for tables, figures and report.html."),
        baseline: str | None = typer.Option(
            None, help="The run to test every other run against: its model name or its run folder."
        ),
        sizes: Path | None = typer.Option(
            None,
            exists=True,
            help="YAML/JSON mapping of model name or run folder -> size in billions (Figures 2 and 3).",
        ),
        resamples: int = typer.Option(DEFAULT_RESAMPLES, min=0, help="Bootstrap resamples B."),
        seed: int = typer.Option(0, help="Bootstrap seed."),
        resampling: str = typer.Option(
            "per-sample",
            help="Half-widths: per-sample (the paper's: records resampled within each group) or clustered "
            "(source samples resampled, drops paired with Clean). Significance is always paired.",
        ),
        paper: bool = typer.Option(
            True,
            "--paper/--no-paper",
            help="Show the paper's 21 models (Table 2, Tables 7-14) as reference rows beside the runs.",
        ),
        prices: Path | None = typer.Option(
            None,
            "--prices",
            exists=True,
            dir_okay=False,
            help="YAML: model -> {input, output[, cached_input]} in USD per million tokens; adds cost to the "
            "tokens tables.",
        ),
    ) -> None:
        """Table 2, Tables 7-14, error modes, Figures 2-4 and report.html for the given runs."""
        from robustcall.core import SCORES
        from robustcall.metrics import RESAMPLINGS, load_prices
        from robustcall.report import write_report
        from robustcall.score import score_run, torn_predictions

        if resampling not in RESAMPLINGS:
            raise typer.BadParameter(f"--resampling must be one of {', '.join(RESAMPLINGS)}, got {resampling!r}")
        price_list = load_prices(prices) if prices is not None else None
        for run in runs:  # a report reads what `score` wrote: score the runs that have not been scored
            if not (run / SCORES).is_file():
                torn = torn_predictions(run)
                if torn is not None:
                    typer.echo(f"note: {torn}", err=True)
                score_run(run, resamples=0, seed=seed)
        files = write_report(
            runs,
            out,
            baseline=baseline,
            sizes_file=sizes,
            resamples=resamples,
            seed=seed,
            resampling=resampling,
            paper=paper,
            prices=price_list,
        )
        typer.echo(f"wrote {len(files.tables)} table files, {len(files.figures)} figures, {files.html}")
        for note in files.notes:
            typer.echo(f"note: {note}", err=True)
