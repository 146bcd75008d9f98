"""``robustcall compare PILOT - --plan D``: how many clean samples and trials catch a drop of D."""

from __future__ import annotations

from pathlib import Path

import typer

from robustcall.cli._errors import CommandError


def print_plan(pilot: Path, other: Path, drop: float, target: str, alpha: float, seed: int) -> None:
    """Print the plan (``metrics.plan``) from the pilot run's verdicts (scored here if need be)."""
    from robustcall.core import SCORES, Verdict, read_jsonl
    from robustcall.metrics import plan
    from robustcall.report import run_kind

    if str(other) != "-":
        raise CommandError("--plan reads one pilot run: give it as BASELINE and '-' as CANDIDATE")
    if run_kind(pilot) != "robustbench":
        raise CommandError(f"{pilot} is not a RobustBench-TC run (run.json and predictions.jsonl): plan from one")
    if not (pilot / SCORES).is_file():
        from robustcall.score import score_run

        score_run(pilot, resamples=0, seed=seed)
    verdicts = read_jsonl(pilot / SCORES, Verdict)
    try:
        got = plan(verdicts, target, drop, alpha=alpha, seed=seed)
    except (ValueError, KeyError) as exc:
        raise CommandError(f"--plan: {exc.args[0] if exc.args else exc}") from None
    typer.echo(
        f"## Plan: a drop of {drop:g} on {got.target} with {got.power:.0%} power at α = {alpha:g} "
        f"(the row must reach p < {got.alpha_row:.4g} after Holm)\n"
    )
    each = f"{got.records_per_sample:.1f} records each"
    typer.echo(f"From the pilot {pilot}: {got.pilot_samples} clean samples, {each}.\n")
    typer.echo("| Trials | Clean samples | Power | Model answers per run |")
    typer.echo("|---|---|---|---|")
    for row in got.rows:
        if row.samples is None:
            typer.echo(f"| {row.trials} | more than 20,000 | — | — |")
        else:
            typer.echo(f"| {row.trials} | {row.samples:,} | {row.power:.3f} | {row.answers:,} |")
    typer.echo(
        "\nBaseline and candidate each ask every record K times (`run --trials K`, `--limit` samples); the "
        "candidate's chance on each targeted record scaled so the target drops by the drop; exact sign-test "
        "power (docs/compare.md)."
    )
