"""``robustcall pipe``: PIPE interface perturbation runs and their tables."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal

import typer

from robustcall.cli._errors import CommandError, describe
from robustcall.cli._infra import MaxInfraOpt, StopAfterOpt, check_infra, print_failures, stop_after_or_default
from robustcall.cli._options import (
    CONCURRENCY_HELP,
    DEFAULT_CONCURRENCY,
    EnvDataOpt,
    EnvOpt,
    FormatOpt,
    LimitTasksOpt,
    MaxStepsOpt,
    ResumeOpt,
    SeedOpt,
    SettingsOpt,
    check_format,
)

if TYPE_CHECKING:
    from robustcall.core import Trajectory

pipe = typer.Typer(help="PIPE: rewritten interfaces, legacy calls and Interface Reliance.", no_args_is_help=True)


@pipe.command("run")
def run_cmd(
    env: EnvOpt,
    out: Annotated[Path, typer.Option("--out", help="Run directory (trajectories.jsonl).")],
    level: Annotated[str, typer.Option("--level", help="origin | synonym | symbol | dual.")] = "origin",
    model: Annotated[
        str,
        typer.Option("--model", help="local, openai:NAME@URL, scripted:expert, scripted:memorise or scripted:random."),
    ] = "local",
    data: EnvDataOpt = None,
    order: Annotated[
        int,
        typer.Option(
            "--order", min=0, max=2, help="Dual mode: 1 (synonyms first) or 2 (originals first); 0 runs both."
        ),
    ] = 0,
    limit: LimitTasksOpt = None,
    max_steps: MaxStepsOpt = 30,
    seed: SeedOpt = 0,
    resume: ResumeOpt = False,
    concurrency: Annotated[
        int,
        typer.Option(
            "--concurrency",
            min=1,
            help=f"{CONCURRENCY_HELP} One request per episode: episodes in flight; the records do not depend on it.",
        ),
    ] = DEFAULT_CONCURRENCY,
    settings: SettingsOpt = None,
    fmt: FormatOpt = "tool_call",
    map_file: Annotated[
        Path | None,
        typer.Option("--map", help="Interface map of your own environment: a JSON object original -> synonym."),
    ] = None,
    max_infra_errors: MaxInfraOpt = 0,
    stop_after: StopAfterOpt = None,
) -> None:
    """Run every task of ENV under the interface LEVEL; one trajectory per episode (resumable)."""
    from robustcall.interface import MODES
    from robustcall.run import run_pipe

    if level not in MODES:
        raise typer.BadParameter(f"--level must be one of {', '.join(MODES)}")
    out_fmt = check_format(fmt)
    if order not in (0, 1, 2):
        raise typer.BadParameter("--order must be 0, 1 or 2")
    orders: tuple[Literal[1, 2], ...] = (1, 2) if level == "dual" and order == 0 else ((2,) if order == 2 else (1,))
    for o in orders:
        try:
            trajs = asyncio.run(
                run_pipe(
                    env,
                    level,
                    model,
                    out,
                    data=data,
                    order=o,
                    limit=limit,
                    max_steps=max_steps,
                    seed=seed,
                    resume=resume or (o == 2 and len(orders) == 2),
                    settings=settings,
                    fmt=out_fmt,
                    on_episode=lambda t: typer.echo(f"{t.id}: success={t.success} steps={len(t.steps)}"),
                    map_file=map_file,
                    concurrency=concurrency,
                    stop_after=stop_after_or_default(stop_after),
                    on_note=(lambda m: typer.echo(f"note: {m}", err=True)) if o == orders[0] else None,
                )
            )
        except ValueError as exc:
            raise CommandError(describe(exc)) from None
    ok = sum(bool(t.success) for t in trajs)
    typer.echo(f"{ok}/{len(trajs)} episodes solved; trajectories in {out}")
    _check_infra(trajs, max_infra_errors, "`--resume` plays them again")


def _check_infra(trajs: list[Trajectory], max_infra_errors: int, then: str) -> None:
    """Name the endpoint failures episodes ended with; exit 3 when more than allowed remain."""
    from collections import Counter

    failed = Counter(t.infra_error or "endpoint failure" for t in trajs if t.termination == "infra")
    if failed:
        typer.echo(f"{sum(failed.values())} episodes ended in infrastructure errors:", err=True)
        print_failures(failed)
    check_infra(sum(failed.values()), len(trajs), max_infra_errors, "episodes", then)


@pipe.command("report")
def report_cmd(
    runs: list[Path] = typer.Argument(..., exists=True, help="Run directories of `robustcall pipe run`."),
    out: Path | None = typer.Option(None, help="Also write the tables as Markdown, CSV and LaTeX here."),
    ir_combine: str = typer.Option(
        "eq3",
        help="How IR joins the two dual orders: eq3 (Appendix F, mean of the two IRLOGs; the default) or "
        "counts (§6: per-task counts averaged over the orders first).",
    ),
) -> None:
    """Origin / Perturb 1 / Perturb 2 / Δ, legacy calls per episode, and IR tables."""
    from robustcall.core import TRAJECTORIES, MissingInputError
    from robustcall.metrics import COMBINES
    from robustcall.report import pipe_tables
    from robustcall.run import read_trajectories

    if ir_combine not in COMBINES:
        raise typer.BadParameter(f"--ir-combine must be one of {', '.join(COMBINES)}")
    missing = [str(r / TRAJECTORIES) for r in runs if not (r / TRAJECTORIES).is_file()]
    if missing:
        raise MissingInputError(f"not a `robustcall pipe run` folder (no {TRAJECTORIES}): {', '.join(missing)}")
    trajs = [t for r in runs for t in read_trajectories(r, what="a `robustcall pipe run`")]
    for table in pipe_tables(trajs, "eq3" if ir_combine == "eq3" else "counts"):
        typer.echo(table.markdown())
        if out is not None:
            out.mkdir(parents=True, exist_ok=True)
            for ext, text in (("md", table.markdown()), ("csv", table.csv()), ("tex", table.latex())):
                (out / f"{table.name}.{ext}").write_text(text)


@pipe.command("curve")
def curve_cmd(
    env: str = typer.Option(..., help="Environment: a registered name (see `pipe run`) or `package.module:Class`."),
    checkpoint: list[str] = typer.Option(
        ..., help="NAME=MODEL per checkpoint, in training order (e.g. ep1=openai:ckpt1@http://127.0.0.1:8001/v1)."
    ),
    out: Path = typer.Option(..., help="Directory for the runs, curve.png and curve.csv."),
    data: Path | None = typer.Option(
        None, help="Environment data (wordle: word-list folder; dbbench: dbbench folder or JSONL file)."
    ),
    limit: int | None = typer.Option(None, min=1, help="First N tasks only."),
    max_steps: int = typer.Option(30, min=1, help="Step limit per episode."),
    settings: Path | None = typer.Option(None, help="Per-model settings file (YAML/JSON, like Table 15)."),
    max_infra_errors: MaxInfraOpt = 0,
    stop_after: StopAfterOpt = None,
) -> None:
    """Score under Origin, Perturb 1, Perturb 2 and IR at α = 0.5, 1, 2 across training checkpoints (Figures 4-5)."""
    from robustcall.interface import Mode
    from robustcall.report import CurvePoint, curve_png, curve_rows
    from robustcall.run import read_trajectories, run_pipe

    points: list[tuple[str, list[Trajectory]]] = []
    for spec in checkpoint:
        name, sep, model = spec.partition("=")
        if not sep or not name or not model:
            raise typer.BadParameter(f"--checkpoint wants NAME=MODEL, got {spec!r}")
        plan: tuple[tuple[Mode, Literal[1, 2]], ...] = (
            ("origin", 1), ("synonym", 1), ("symbol", 1), ("dual", 1), ("dual", 2)
        )  # fmt: skip
        for level, order in plan:
            run_dir = out / name / level
            asyncio.run(
                run_pipe(
                    env,
                    level,
                    model,
                    run_dir,
                    data=data,
                    order=order,
                    limit=limit,
                    max_steps=max_steps,
                    resume=True,
                    settings=settings,
                    stop_after=stop_after_or_default(stop_after),
                )
            )
        trajs = [t for lv in ("origin", "synonym", "symbol", "dual") for t in read_trajectories(out / name / lv)]
        points.append((name, trajs))
    rows = curve_rows(points)
    (out / "curve.csv").write_text(CurvePoint.CSV_HEADER + "\n" + "".join(r.csv_row() + "\n" for r in rows))
    (out / "curve.png").write_bytes(curve_png(rows, env))
    typer.echo(f"wrote {out / 'curve.png'} and {out / 'curve.csv'}")
    _check_infra([t for _, ts in points for t in ts], max_infra_errors, "run the same command again to play them again")


def register(app: typer.Typer) -> None:
    from robustcall.cli import pipe_stats_cmd

    pipe_stats_cmd.register(pipe)
    app.add_typer(pipe, name="pipe")
