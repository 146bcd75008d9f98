"""``robustcall compare BASELINE CANDIDATE``: did the candidate get less robust? (docs/compare.md)"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from robustcall.cli._errors import EXIT_REGRESSION
from robustcall.cli._options import DEFAULT_RESAMPLES, BootstrapOpt, PricesOpt, SeedOpt

if TYPE_CHECKING:
    from robustcall.metrics import Prices
    from robustcall.report import CompareResult


def register(app: typer.Typer) -> None:
    @app.command()
    def compare(
        baseline: Annotated[
            Path, typer.Argument(help="The baseline: a run directory, rm_eval.json, or a folder of runs.")
        ],
        candidate: Annotated[Path, typer.Argument(help="The candidate, of the same kind as the baseline.")],
        out: Annotated[
            Path, typer.Option("--out", help="Folder for compare.md, compare.json and compare.junit.xml.")
        ] = Path("runs/compare"),
        fail_on_drop: Annotated[
            float | None,
            typer.Option(
                "--fail-on-drop",
                min=0.0,
                help="Exit 4 when a component, the overall figure or a headline figure drops by more than this "
                "(a fraction, e.g. 0.05) with Holm-adjusted p < --alpha. Default: no gate.",
            ),
        ] = None,
        fail_on_type: Annotated[
            float | None,
            typer.Option(
                "--fail-on-type",
                min=0.0,
                help="The same per perturbation type (failure class, error type). Default: no gate.",
            ),
        ] = None,
        alpha: Annotated[
            float, typer.Option("--alpha", min=0.0, max=1.0, help="Significance level, after Holm.")
        ] = 0.05,
        resamples: BootstrapOpt = DEFAULT_RESAMPLES,
        seed: SeedOpt = 0,
        allow_different: Annotated[
            list[str] | None,
            typer.Option(
                "--allow-different",
                help="mode | settings: compare runs asked in another mode (prompt vs fc) or with other settings "
                "(temperature, max tokens, extra body), which are refused otherwise. Repeat for both.",
            ),
        ] = None,
        plan_drop: Annotated[
            float | None,
            typer.Option(
                "--plan",
                min=0.0,
                max=1.0,
                help="Plan instead of compare: from the pilot run BASELINE (CANDIDATE: '-'), how many clean samples "
                "and trials detect a drop of this size (a fraction, 0.10 = 10 points) with 80% power at --alpha.",
            ),
        ] = None,
        target: Annotated[
            str,
            typer.Option("--target", help="With --plan: overall (Pert. Acc.), a component, or a type (CD, Typo, ...)."),
        ] = "overall",
        prices: PricesOpt = None,
    ) -> None:
        """Paired comparison of two runs of the same work: Δ with 95% intervals, exact tests, Holm.

        Exit 0: compared (and the gate, if any, passed); 1: runs that cannot be compared; 4: the gate
        failed (a significant drop larger than --fail-on-drop / --fail-on-type); 5: nothing to judge (a
        side without a scorable record, only infrastructure errors, a part one side lacks, the same
        folder twice)."""
        from robustcall.metrics import load_prices

        if plan_drop is not None:
            from robustcall.cli._plan import print_plan

            print_plan(baseline, candidate, plan_drop, target, alpha, seed)
            return
        from robustcall.report import compare_markdown, compare_paths, write_compare

        price_list = load_prices(prices) if prices is not None else None

        result = compare_paths(
            baseline,
            candidate,
            alpha=alpha,
            fail_on_drop=fail_on_drop,
            fail_on_type=fail_on_type,
            resamples=resamples,
            seed=seed,
            allow_different=[x.strip() for a in allow_different or [] for x in a.split(",") if x.strip()],
        )
        typer.echo(compare_markdown(result), nl=False)
        files = write_compare(result, out)
        files += _tokens_section(result, out, price_list)
        typer.echo(f"wrote {', '.join(str(f) for f in files)}", err=True)
        failures = result.gate_failures()
        if failures:
            typer.echo(f"gate failed: {len(failures)} significant drop(s) beyond the threshold", err=True)
            raise typer.Exit(EXIT_REGRESSION)


def _tokens_section(result: CompareResult, out: Path, prices: Prices | None) -> list[Path]:
    """Print and write what each pair of runs cost (tokens and time; no gate reads it)."""
    from robustcall.report import compare_tokens, tokens_markdown, write_compare_tokens

    tokens = compare_tokens(result, prices)
    text = tokens_markdown(tokens)
    if text:
        typer.echo("\n" + text, nl=False)
    return write_compare_tokens(tokens, out)
