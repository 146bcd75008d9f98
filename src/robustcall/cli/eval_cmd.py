"""``robustcall run``, ``robustcall score`` and the main job ``robustcall bench``."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, cast

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from robustcall.cli._errors import CommandError
from robustcall.cli._infra import MaxInfraOpt, StopAfterOpt, check_infra, print_failures, stopped_error
from robustcall.cli._options import (
    CONCURRENCY_HELP,
    DEFAULT_CONCURRENCY,
    DEFAULT_RESAMPLES,
    BootstrapOpt,
    ConcOpt,
    ModeOpt,
    ResumeOpt,
    SeedOpt,
    SettingsOpt,
    check_mode,
)
from robustcall.cli._tables import summary_table
from robustcall.core import (
    MANIFEST,
    PREDICTIONS,
    RUN_META,
    SCORES,
    SUMMARY,
    ExistingOutputError,
    Prediction,
    remove_stale_tmp,
)

if TYPE_CHECKING:
    from robustcall.core import RunMeta
    from robustcall.run import Order, RunStats

console = Console(stderr=True)

BenchOpt = Annotated[Path, typer.Option("--bench", help="A benchmark directory written by `robustcall build`.")]
ModelOpt = Annotated[
    str,
    typer.Option(
        "--model",
        help="local | openai/<model> (with --base-url or OPENAI_BASE_URL) | openai:<model>@<base_url> | "
        "replay:<predictions.jsonl> | scripted:<policy>",
    ),
]
BaseUrlOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--base-url",
        help="OpenAI-compatible base URL for an openai/<model> spec (else $OPENAI_BASE_URL); repeat it, or give "
        "a comma list, for replicas of one model (least outstanding requests, per-endpoint health).",
    ),
]


def _urls(base_url: list[str] | None) -> str | None:
    return ",".join(base_url) if base_url else None


TypesOpt = Annotated[
    str,
    typer.Option("--types", help="all (every type the benchmark holds) | static | transition | beyond | comma list."),
]
LimitOpt = Annotated[
    int | None, typer.Option("--limit", min=1, help="Use only the first N clean samples (paired across types).")
]
BenchConcOpt = Annotated[
    int | None,
    typer.Option(
        "--concurrency",
        min=1,
        help=f"{CONCURRENCY_HELP} Default: 1 for the local model (its one llama-server slot keeps a sample's "
        f"prompt cached for its variants), {DEFAULT_CONCURRENCY} for endpoints.",
    ),
]
MaxTokensOpt = Annotated[
    str,
    typer.Option(
        "--max-tokens",
        help="settings (Table 15's 1,024, or the --settings file's) | gold (per benchmark/category, "
        "2x the longest gold call list + 64 tokens, never above settings; docs/run.md)",
    ),
]
TrialsOpt = Annotated[
    int,
    typer.Option(
        "--trials",
        min=1,
        help="Ask every record K times, trial t with its own request seed (from --seed) at the settings' "
        "temperature; report gives pass@k, pass^k, flips and noise floors. 1 (default): the paper's protocol.",
    ),
]
OrderOpt = Annotated[
    str,
    typer.Option(
        "--order",
        help="prefix (one sample's variants back to back, sorted by prompt: a prompt cache keeps the longest "
        "shared prefix) | sample (back to back, in type order) | type",
    ),
]


def _previous_meta(path: Path) -> RunMeta | None:
    """The ``run.json`` of the run being resumed; ``None`` when there is none, or when it is empty or
    torn (written in place by an older version and cut by a kill): it is written afresh. One written
    by a newer robustcall in a format this one cannot read is refused (``NewerFormatError``)."""
    from robustcall.core import RunFileError, read_run_meta

    if not path.is_file():
        return None
    try:
        return read_run_meta(path)
    except RunFileError:
        Console(stderr=True).print(f"note: {path} was unreadable (torn by a kill?); writing it afresh")
        return None


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
    base_url: str | None = None,
    shard: str | None = None,
    stop_after: int | None = None,
    max_tokens: str = "settings",
    order: str = "sample",
    trials: int = 1,
    seed: int = 0,
) -> RunStats:
    """Run ``model_spec`` on ``bench`` into ``out``; print what happened; return the stats.

    Raises ``RunFailed`` when the run stopped on repeated identical infrastructure errors."""
    from robustcall.cli._tables import endpoint_table
    from robustcall.core import RunMeta
    from robustcall.models import ModelSettings, OpenAIChatModel, make_model, resolve_base_url, settings_source
    from robustcall.run import (
        ORDERS,
        STOP_AFTER,
        GoldBudget,
        bench_digest,
        bench_release,
        file_digest,
        parse_shard,
        parse_types,
        plan_work,
        resume_meta,
        run_items,
        settings_meta,
        shard_items,
        with_trials,
        write_meta,
    )

    check_mode(mode)
    if max_tokens not in ("settings", "gold"):
        raise typer.BadParameter(f"--max-tokens must be settings or gold, got {max_tokens!r}")
    if order not in ORDERS:
        raise typer.BadParameter(f"--order must be one of {', '.join(ORDERS)}, got {order!r}")
    try:
        chosen_types = parse_types(types, bench)
    except KeyError as exc:
        raise typer.BadParameter(str(exc.args[0]), param_hint="--types") from None
    stop_after = STOP_AFTER if stop_after is None else stop_after
    digest = bench_digest(bench)
    items = plan_work(bench, chosen_types, limit, order=cast("Order", order))
    if shard is not None:
        try:
            index, count = parse_shard(shard)
        except ValueError as exc:
            raise typer.BadParameter(str(exc)) from None
        items = shard_items(items, index, count)
    items = with_trials(items, trials, seed)
    model = make_model(
        model_spec,
        mode=mode,  # type: ignore[arg-type]
        settings_file=settings,
        concurrency=concurrency,
        base_url=base_url,
    )
    budget = None
    if max_tokens == "gold":
        settings_of = getattr(model, "settings", None)
        cap = settings_of.max_tokens if isinstance(settings_of, ModelSettings) else ModelSettings().max_tokens
        budget = GoldBudget.from_samples((it.sample for it in plan_work(bench, ["clean"])), cap)
    model_name, endpoint = (
        resolve_base_url(model_spec, base_url) if model_spec.startswith("openai") else (model_spec, None)
    )
    meta = RunMeta(
        bench=str(bench.resolve()),
        bench_digest=digest,
        release=bench_release(bench),
        model=model_spec,
        model_name=model_name,
        base_url=base_url,
        endpoint=endpoint,
        mode=model.mode,
        **settings_meta(model),
        types=types,
        limit=limit,
        max_tokens=max_tokens,
        order=order,
        settings_digest=file_digest(settings_source(settings)),
        shard=shard,
        trials=trials if trials > 1 else None,
        trial_seed=seed if trials > 1 else None,
    )
    previous = out / RUN_META
    if resume:
        remove_stale_tmp(out)
        meta = resume_meta(out, meta, _previous_meta(previous))
    elif (done := out / PREDICTIONS).is_file() and done.stat().st_size > 0:
        raise ExistingOutputError(f"{done} already holds predictions: pass --resume to finish that run")
    write_meta(out, meta)  # atomic: a kill leaves the old file or the new one, never a torn one

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
                    items,
                    model,
                    out,
                    concurrency=concurrency,
                    resume=resume,
                    on_record=tick,
                    stop_after=stop_after,
                    max_tokens=budget,
                )
                if stats.stopped is None:
                    progress.update(task, completed=len(items))
            dt = time.perf_counter() - t0
            console.print(
                f"answered {stats.answered} (already done {stats.already_done}, "
                f"re-asked after infra errors {stats.dropped_for_retry}) in {dt:.1f} s; "
                f"infra errors: {stats.infra_errors}"
            )
            print_failures(stats.failure_reasons)
            endpoints = model.endpoint_stats() if isinstance(model, OpenAIChatModel) else []
            if len(endpoints) > 1:
                console.print(endpoint_table(endpoints))
                write_meta(out, meta.model_copy(update={"endpoints": endpoints}))
            return stats
        finally:
            await model.aclose()

    stats = asyncio.run(go())
    if stats.stopped is not None:
        raise stopped_error(
            stop_after,
            stats.stopped,
            f"fix the endpoint or the request, then `--resume` (records so far are in {out})",
        )
    return stats


def _check_infra(stats: RunStats, max_infra_errors: int) -> None:
    """Exit 3 when a finished run left more infrastructure errors than allowed."""
    check_infra(stats.infra_errors, stats.answered, max_infra_errors, "requests", "`--resume` asks them again")


def _score_and_print(out: Path, reparse: bool, resamples: int, seed: int, resampling: str = "per-sample") -> None:
    from robustcall.metrics import RESAMPLINGS
    from robustcall.score import score_run

    if resampling not in RESAMPLINGS:
        raise typer.BadParameter(f"--resampling must be one of {', '.join(RESAMPLINGS)}, got {resampling!r}")
    from robustcall.score import GoldenModeError, torn_predictions

    torn = torn_predictions(out)
    if torn is not None:
        typer.echo(f"note: {torn}", err=True)
    try:
        _, summary = score_run(out, reparse_text=reparse, resamples=resamples, seed=seed, resampling=resampling)
    except GoldenModeError as exc:  # a record this scorer cannot judge: say which, no traceback
        raise CommandError(str(exc)) from None
    table = summary_table(summary, title=str(out))
    widths = [c.ci95 for c in (summary.clean, *summary.by_type.values()) if c.ci95 is not None]
    if widths:  # what the table rests on, so that a small run is not read as more than it is
        clean_trials = summary.trials.by_type.get("clean") if summary.trials is not None else None
        samples = (
            f"{summary.clean.n} clean samples"
            if clean_trials is None
            else (f"{clean_trials.records} clean samples × {summary.trials.trials if summary.trials else 1} trials")
        )
        rests_on = (
            f"{samples} (paired across types); 95% intervals "
            f"±{100 * min(widths):.0f} to ±{100 * max(widths):.0f} points"
        )
        table.caption = f"{table.caption}; {rests_on}" if table.caption else rests_on
    Console().print(table)
    if summary.trials is not None:  # --trials K: what K answers per record add
        from rich.table import Table

        from robustcall.report import TRIAL_NOTE, trial_header, trial_rows

        trials = Table(title=f"{summary.trials.trials} trials per record", caption=TRIAL_NOTE)
        for i, col in enumerate(trial_header(summary.trials.trials)):
            trials.add_column(col, justify="left" if i == 0 else "right")
        for row in trial_rows(summary.trials):
            trials.add_row(*row)
        Console().print(trials)
    console.print(f"scores: {out / SCORES}  summary: {out / SUMMARY}")


def register(app: typer.Typer) -> None:
    @app.command("run")
    def run_cmd(
        bench: BenchOpt,
        out: Annotated[Path, typer.Option("--out", help="Run directory (predictions.jsonl lives here).")],
        model: ModelOpt = "local",
        mode: ModeOpt = None,
        types: TypesOpt = "all",
        limit: LimitOpt = None,
        concurrency: ConcOpt = DEFAULT_CONCURRENCY,
        resume: ResumeOpt = False,
        settings: SettingsOpt = None,
        base_url: BaseUrlOpt = None,
        shard: Annotated[
            str | None,
            typer.Option("--shard", help="Answer only slice i of n (0 <= i < n), e.g. 0/4; join with `merge`."),
        ] = None,
        max_infra_errors: MaxInfraOpt = 0,
        stop_after: StopAfterOpt = None,
        max_tokens: MaxTokensOpt = "settings",
        order: OrderOpt = "sample",
        trials: TrialsOpt = 1,
        seed: Annotated[
            int, typer.Option("--seed", help="With --trials K > 1: the seed the per-trial request seeds derive from.")
        ] = 0,
    ) -> None:
        """Answer every sample of a benchmark with a model; append records to OUT/predictions.jsonl."""
        stats = _execute(
            bench,
            model,
            mode,
            types,
            limit,
            concurrency,
            out,
            resume,
            settings,
            _urls(base_url),
            shard,
            stop_after,
            max_tokens,
            order,
            trials,
            seed,
        )
        _check_infra(stats, max_infra_errors)

    @app.command("merge")
    def merge_cmd(
        runs: Annotated[list[Path], typer.Argument(help="The shard run directories (every i of one i/n split).")],
        out: Annotated[Path, typer.Option("--out", help="The merged run directory.")],
    ) -> None:
        """Join the shard runs of `run --shard i/n` into one run (refuses overlaps and mismatched runs)."""
        from robustcall.run import MergeError, merge_runs

        try:
            meta = merge_runs(runs, out)
        except MergeError as exc:  # an input the user can fix (exit 1), not a malformed command line (2)
            raise CommandError(str(exc)) from None
        total = sum(p.records for p in meta.merged_from or [])
        console.print(f"merged {len(runs)} shards, {total} records into {out}; score it with `robustcall score {out}`")

    @app.command("score")
    def score_cmd(
        run_dir: Annotated[Path, typer.Argument(help="A run directory.")],
        reparse: Annotated[bool, typer.Option("--reparse", help="Parse raw outputs again first.")] = False,
        resamples: BootstrapOpt = DEFAULT_RESAMPLES,
        seed: SeedOpt = 0,
        resampling: Annotated[
            str,
            typer.Option(
                "--resampling",
                help="Half-widths: per-sample (the paper's) or clustered (source samples resampled together).",
            ),
        ] = "per-sample",
    ) -> None:
        """Score a run deterministically: OUT/scores.jsonl, OUT/summary.json and a table."""
        _score_and_print(run_dir, reparse, resamples, seed, resampling)

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
        limit: LimitOpt = 8,
        concurrency: BenchConcOpt = None,
        seed: SeedOpt = 0,
        out: Annotated[Path, typer.Option("--out", help="Where the benchmark and the run go.")] = Path("runs/bench"),
        resume: Annotated[
            bool,
            typer.Option(
                "--resume",
                help="Finish an interrupted main job in --out: keep the build and the records already "
                "written, ask again those that ended in infrastructure errors (a run folder that already "
                "holds predictions is resumed without it).",
            ),
        ] = False,
        settings: SettingsOpt = None,
        base_url: BaseUrlOpt = None,
        max_infra_errors: MaxInfraOpt = 0,
        stop_after: StopAfterOpt = None,
        max_tokens: MaxTokensOpt = "gold",
        order: OrderOpt = "prefix",
        trials: TrialsOpt = 1,
        composition: Annotated[
            str,
            typer.Option(
                "--composition",
                help="all (default here: every type on each of the --limit clean samples, paired) or paper "
                "(Tables 7-14's records per type, so a small --limit leaves some types thin).",
            ),
        ] = "all",
    ) -> None:
        """The main job: build RobustBench-TC, run a model on it, score it and print the table."""
        from robustcall.models import make_model
        from robustcall.perturb import COMPOSITIONS, build_benchmark

        if composition not in COMPOSITIONS:
            raise typer.BadParameter(f"{composition!r}; valid: {', '.join(COMPOSITIONS)}", param_hint="--composition")

        # a bad spec or a missing setup fails before the build
        make_model(model, mode=mode, settings_file=settings, base_url=_urls(base_url))  # type: ignore[arg-type]

        chosen = sources or ("bfcl,apibank,rotbench,toolalpaca,tooleyes" if data_dir else "bfcl")
        bench = out / "bench"
        if not (bench / MANIFEST).is_file():
            console.print(f"building the benchmark from {chosen} into {bench}")
            build_benchmark(
                sources=[s.strip() for s in chosen.split(",") if s.strip()],
                data_dir=data_dir,
                seed=seed,
                out=bench,
                composition=composition,
            )
        else:
            console.print(f"using the benchmark already built in {bench}")
        run_dir = out / "run"
        has_predictions = (run_dir / PREDICTIONS).is_file()
        stats = _execute(
            bench,
            model,
            mode,
            types,
            limit,
            concurrency if concurrency is not None else (1 if model.split(":")[0] == "local" else DEFAULT_CONCURRENCY),
            run_dir,
            resume or has_predictions,
            settings,
            _urls(base_url),
            stop_after=stop_after,
            max_tokens=max_tokens,
            order=order,
            trials=trials,
            seed=seed,
        )
        _score_and_print(run_dir, False, DEFAULT_RESAMPLES, seed)
        _check_infra(stats, max_infra_errors)
