"""``robustcall run``, ``robustcall score`` and the main job ``robustcall bench``."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from robustcall.cli._tables import summary_table
from robustcall.core import ExistingOutputError, Prediction

if TYPE_CHECKING:
    from robustcall.run import RunStats

console = Console(stderr=True)

BenchOpt = Annotated[Path, typer.Option("--bench", help="A benchmark directory written by `robustcall build`.")]
ModelOpt = Annotated[
    str,
    typer.Option(
        "--model",
        help="local | openai:<model>@<base_url> | replay:<predictions.jsonl> | scripted:<policy>",
    ),
]
ModeOpt = Annotated[
    str | None,
    typer.Option("--mode", help="fc (tools via `tools=`) or prompt (tools in the system prompt)."),
]
TypesOpt = Annotated[str, typer.Option("--types", help="all | static | transition | comma list of types.")]
LimitOpt = Annotated[
    int | None, typer.Option("--limit", min=1, help="Use only the first N clean samples (paired across types).")
]
ConcOpt = Annotated[int, typer.Option("--concurrency", min=1, help="Requests in flight at once.")]
SettingsOpt = Annotated[
    Path | None, typer.Option("--settings", help="Per-model settings file (YAML/JSON, like Table 15).")
]


MaxInfraOpt = Annotated[
    int,
    typer.Option(
        "--max-infra-errors",
        min=0,
        help="Infrastructure errors a finished run may leave and still exit 0 (default 0; then exit 3).",
    ),
]
StopAfterOpt = Annotated[
    int | None,
    typer.Option(
        "--stop-after",
        min=0,
        help="Stop the run after this many identical infrastructure errors in a row (default 5; 0: never).",
    ),
]


def _answer_settings(model: object) -> dict[str, Any] | None:
    """The decoding settings that decide a backend's answers (``None`` for scripted and replay)."""
    from robustcall.models import ModelSettings

    settings = getattr(model, "settings", None)
    if not isinstance(settings, ModelSettings):
        return None
    return {"temperature": settings.temperature, "max_tokens": settings.max_tokens, "extra_body": settings.extra_body}


def _execute(
    bench: Path,
    model_spec: str,
    mode: str | None,
    types: str,
    limit: int | None,
    concurrency: int,
    out: Path,
    resume: bool,
    settings: Path | None,
    stop_after: int | None = None,
) -> RunStats:
    """Run ``model_spec`` on ``bench`` into ``out``; print what happened; return the stats.

    Raises ``RunFailed`` when the run stopped on repeated identical infrastructure errors."""
    from robustcall.core import RunFailed
    from robustcall.models import make_model, spec_identity
    from robustcall.run import (
        STOP_AFTER,
        bench_version,
        parse_types,
        plan_work,
        resume_meta,
        run_items,
        write_meta,
    )

    if mode not in (None, "fc", "prompt"):
        raise typer.BadParameter(f"--mode must be fc or prompt, got {mode!r}")
    stop_after = STOP_AFTER if stop_after is None else stop_after
    version = bench_version(bench)
    items = plan_work(bench, parse_types(types), limit)
    model = make_model(model_spec, mode=mode, settings_file=settings, concurrency=concurrency)  # type: ignore[arg-type]
    name, endpoint = spec_identity(model_spec)
    meta: dict[str, Any] = {
        "bench": str(bench.resolve()),
        "bench_version": version,
        "model": model_spec,
        "model_name": name,
        "endpoint": endpoint,
        "mode": model.mode,
        "answer_settings": _answer_settings(model),
        "types": types,
        "limit": limit,
    }
    if resume:
        meta = resume_meta(out, meta)
    elif (out / "predictions.jsonl").is_file() and (out / "predictions.jsonl").stat().st_size > 0:
        raise ExistingOutputError(
            f"{out / 'predictions.jsonl'} already holds predictions: pass --resume to finish that run"
        )
    write_meta(out, meta)

    async def go() -> RunStats:
        try:
            with Progress(
                TextColumn("[bold]{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                console=console,
            ) as progress:
                task = progress.add_task(f"{model.name} ({model.mode})", total=len(items))

                def tick(_: Prediction) -> None:
                    progress.advance(task)

                t0 = time.perf_counter()
                stats = await run_items(
                    items, model, out, concurrency=concurrency, resume=resume, on_record=tick, stop_after=stop_after
                )
                if stats.stopped is None:
                    progress.update(task, completed=len(items))
            dt = time.perf_counter() - t0
            console.print(
                f"answered {stats.answered} (already done {stats.already_done}, "
                f"re-asked after infra errors {stats.dropped_for_retry}) in {dt:.1f} s; "
                f"infra errors: {stats.infra_errors}"
            )
            for reason, count in stats.top_failures():
                console.print(f"  {count} x {_short(reason)}", soft_wrap=True, markup=False, highlight=False)
            return stats
        finally:
            await model.aclose()

    stats = asyncio.run(go())
    if stats.stopped is not None:
        raise RunFailed(
            f"stopped after {stop_after} identical failures in a row: {_short(stats.stopped)}\n"
            f"fix the endpoint or the request, then `--resume` (records so far are in {out})"
        )
    return stats


def _short(reason: str, limit: int = 300) -> str:
    one_line = " ".join(reason.split())
    return one_line if len(one_line) <= limit else one_line[: limit - 1] + "…"


def _check_infra(stats: RunStats, max_infra_errors: int) -> None:
    """Exit 3 when a finished run left more infrastructure errors than allowed."""
    from robustcall.core import RunFailed

    if stats.infra_errors > max_infra_errors:
        raise RunFailed(
            f"{stats.infra_errors} of {stats.answered} requests ended in infrastructure errors "
            f"(allowed: --max-infra-errors {max_infra_errors}); `--resume` asks them again",
            exit_code=3,
        )


def _score_and_print(out: Path, reparse: bool, resamples: int, seed: int) -> None:
    from robustcall.run import score_run

    _, summary = score_run(out, reparse_text=reparse, resamples=resamples, seed=seed)
    Console().print(summary_table(summary, title=str(out)))
    console.print(f"scores: {out / 'scores.jsonl'}  summary: {out / 'summary.json'}")


def register(app: typer.Typer) -> None:
    @app.command("run")
    def run_cmd(
        bench: BenchOpt,
        out: Annotated[Path, typer.Option("--out", help="Run directory (predictions.jsonl lives here).")],
        model: ModelOpt = "local",
        mode: ModeOpt = None,
        types: TypesOpt = "all",
        limit: LimitOpt = None,
        concurrency: ConcOpt = 4,
        resume: Annotated[bool, typer.Option("--resume", help="Finish an interrupted run.")] = False,
        settings: SettingsOpt = None,
        max_infra_errors: MaxInfraOpt = 0,
        stop_after: StopAfterOpt = None,
    ) -> None:
        """Answer every sample of a benchmark with a model; append records to OUT/predictions.jsonl."""
        stats = _execute(bench, model, mode, types, limit, concurrency, out, resume, settings, stop_after)
        _check_infra(stats, max_infra_errors)

    @app.command("score")
    def score_cmd(
        run_dir: Annotated[Path, typer.Argument(help="A run directory.")],
        reparse: Annotated[bool, typer.Option("--reparse", help="Parse raw outputs again first.")] = False,
        resamples: Annotated[int, typer.Option("--bootstrap", min=0, help="Bootstrap resamples.")] = 1000,
        seed: Annotated[int, typer.Option("--seed")] = 0,
    ) -> None:
        """Score a run deterministically: OUT/scores.jsonl, OUT/summary.json and a table."""
        _score_and_print(run_dir, reparse, resamples, seed)

    @app.command("bench")
    def bench_cmd(
        model: ModelOpt = "local",
        mode: ModeOpt = None,
        data_dir: Annotated[
            Path | None,
            typer.Option("--data-dir", help="Benchmark data (API-Bank, RoTBench, ToolAlpaca, ToolEyes)."),
        ] = None,
        sources: Annotated[
            str | None, typer.Option("--sources", help="Comma list; default bfcl, plus all with --data-dir.")
        ] = None,
        types: TypesOpt = "all",
        limit: LimitOpt = 2,
        concurrency: ConcOpt = 1,
        seed: Annotated[int, typer.Option("--seed")] = 0,
        out: Annotated[Path, typer.Option("--out", help="Where the benchmark and the run go.")] = Path("runs/bench"),
        resume: Annotated[bool, typer.Option("--resume")] = False,
        settings: SettingsOpt = None,
        max_infra_errors: MaxInfraOpt = 0,
        stop_after: StopAfterOpt = None,
    ) -> None:
        """The main job: build RobustBench-TC, run a model on it, score it and print the table."""
        from robustcall.models import make_model
        from robustcall.perturb import build_benchmark

        make_model(model, mode=mode, settings_file=settings)  # type: ignore[arg-type]  # a bad spec fails before the build
        chosen = sources or ("bfcl,apibank,rotbench,toolalpaca,tooleyes" if data_dir else "bfcl")
        bench = out / "bench"
        if not (bench / "manifest.json").is_file():
            console.print(f"building the benchmark from {chosen} into {bench}")
            build_benchmark(
                sources=[s.strip() for s in chosen.split(",") if s.strip()],
                data_dir=data_dir,
                seed=seed,
                out=bench,
            )
        else:
            console.print(f"using the benchmark already built in {bench}")
        run_dir = out / "run"
        has_predictions = (run_dir / "predictions.jsonl").is_file()
        stats = _execute(
            bench, model, mode, types, limit, concurrency, run_dir, resume or has_predictions, settings, stop_after
        )
        _score_and_print(run_dir, False, 1000, seed)
        _check_infra(stats, max_infra_errors)
