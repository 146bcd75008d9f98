"""``robustcall rm``: FC-RewardBench (build, eval), RM training data and training, Best-of-n, filtering."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from robustcall.cli import rm_tables_cmd, rm_use_cmd
from robustcall.cli._infra import MaxInfraOpt, StopAfterOpt, finish_watched, watching
from robustcall.cli._options import DEFAULT_CONCURRENCY, ConcOpt, SeedOpt, SettingsOpt
from robustcall.cli._rm_common import (
    close_scorer,
    console,
    fail,
    load_samples,
    make_generators,
    make_scorer,
    type_table,
    write_json,
)

if TYPE_CHECKING:
    from robustcall.core import Sample
    from robustcall.models import ChatModel
    from robustcall.rewards import BuildStats

rm_app = typer.Typer(
    help="Reward models for tool calls (ToolRM): FC-RewardBench, RM training, Best-of-n, filtering.",
    no_args_is_help=True,
)

GeneratorOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--generator",
        "-g",
        help="Generator pool member (repeatable): local | openai:<model>@<url> | scripted:<policy>.",
    ),
]


@rm_app.command("build-bench")
def build_bench(
    out: Annotated[Path, typer.Option("--out", "-o", help="Benchmark JSONL to write.")],
    generator: GeneratorOpt = None,
    per_generator: Annotated[
        int, typer.Option("--per-generator", "-k", min=1, help="Draws per generator and query.")
    ] = 1,
    temperature: Annotated[float, typer.Option("--temperature", help="Sampling temperature of the pool.")] = 0.8,
    queries: Annotated[
        int | None, typer.Option("--queries", min=1, help="A seeded subset of this many queries.")
    ] = None,
    category: Annotated[list[str] | None, typer.Option("--category", help="BFCL categories (repeatable).")] = None,
    size: Annotated[
        int | None, typer.Option("--size", min=1, help="At most this many pool records; the top-up total.")
    ] = None,
    top_up: Annotated[bool, typer.Option("--top-up/--no-top-up", help="Top up short types with mutators.")] = False,
    from_file: Annotated[
        Path | None, typer.Option("--from-file", help="Load the original FC-RewardBench file.")
    ] = None,
    pool_file: Annotated[
        Path | None, typer.Option("--pool", help="Draws cache: written after drawing, reused when it exists.")
    ] = None,
    seed: SeedOpt = 0,
    settings: SettingsOpt = None,
    concurrency: ConcOpt = DEFAULT_CONCURRENCY,
    max_infra_errors: MaxInfraOpt = 0,
    stop_after: StopAfterOpt = None,
) -> None:
    """Build FC-RewardBench from BFCL v3 single-turn and a generator pool (or load the original)."""
    from robustcall.core import JsonlError, write_jsonl
    from robustcall.rewards import BuildStats, assemble, read_pairs

    if from_file is not None:
        try:
            records = read_pairs(from_file)
        except (JsonlError, OSError) as exc:
            raise fail(exc) from None
        write_jsonl(out, records)
        typer.echo(type_table(records))
        return
    if not generator and not top_up and not (pool_file is not None and pool_file.exists()):
        raise typer.BadParameter("nothing to build from: give --generator, --pool, --top-up or --from-file")
    if not generator and pool_file is not None and not pool_file.exists():
        # else the build is mutators alone, which the named pool was meant to feed
        raise fail(f"the pool file {pool_file} does not exist and no --generator was given to draw it")
    samples = load_samples(["bfcl"], None, [], relevant_only=True, categories=category or [], limit=queries, seed=seed)
    models = make_generators(generator or [], settings, concurrency)
    stats = BuildStats()
    pool: dict[str, list[tuple[str, str]]] = {}
    if pool_file is not None and pool_file.exists():
        pool = {k: [(m, t) for m, t in v] for k, v in json.loads(pool_file.read_text(encoding="utf-8")).items()}
        console.print(f"reusing the draws in {pool_file}")
    elif models:
        console.print(f"drawing {per_generator} x {len(models)} outputs for {len(samples)} queries…")
        with watching(stop_after) as watch:
            pool = asyncio.run(_draw(samples, models, per_generator, temperature, seed, concurrency, stats))
        finish_watched(watch, max_infra_errors)
        if pool_file is not None:
            write_json(pool_file, pool)
    records = assemble(samples, pool, seed=seed, size=size, top_up=top_up, stats=stats)
    write_jsonl(out, records)
    write_json(out.with_suffix(".stats.json"), stats.as_dict())
    typer.echo(type_table(records))
    typer.echo(f"{len(records)} records -> {out}; draws {stats.draws}")
    typer.echo(f"failed draws {stats.failed_draws}, incorrect draws {stats.incorrect_draws}")


async def _draw(
    samples: list[Sample],
    models: list[ChatModel],
    k: int,
    temperature: float,
    seed: int,
    concurrency: int,
    stats: BuildStats,
) -> dict[str, list[tuple[str, str]]]:
    from robustcall.rewards import draw_pool

    try:
        return await draw_pool(
            samples, models, per_generator=k, temperature=temperature, seed=seed, concurrency=concurrency, stats=stats
        )
    finally:
        for m in models:
            await m.aclose()


@rm_app.command("eval")
def eval_cmd(
    bench: Annotated[Path, typer.Argument(help="FC-RewardBench JSONL (ours or the original).")],
    scorer: Annotated[
        list[str],
        typer.Option(
            "--scorer", "-s", help="hf:<path> | judge:local | judge:<model>@<url> | schema | bfcl (repeatable)."
        ),
    ],
    limit: Annotated[
        int | None, typer.Option("--limit", min=1, help="Evaluate a seeded subset of this many pairs.")
    ] = None,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Folder for results JSON and tables.")] = None,
    seed: SeedOpt = 0,
    settings: SettingsOpt = None,
    max_infra_errors: MaxInfraOpt = 0,
    stop_after: StopAfterOpt = None,
) -> None:
    """Pairwise accuracy of each scorer, overall and per error type (a Figure-1-like table)."""
    from robustcall.core import JsonlError, file_sha256, seeded_rng
    from robustcall.report import rewardbench_table
    from robustcall.rewards import evaluate, read_pairs

    try:
        records = read_pairs(bench)
    except (JsonlError, OSError) as exc:
        raise fail(exc) from None
    if limit is not None and len(records) > limit:
        idx = list(range(len(records)))
        seeded_rng(seed, "eval subset").shuffle(idx)
        records = [records[i] for i in sorted(idx[:limit])]
    gold = []
    if "bfcl" in scorer:
        from robustcall.sources import load_source

        ids = {r.test_id for r in records}
        gold = [s for s in load_source("bfcl").samples if s.id in ids]
    results = []
    with watching(stop_after) as watch:
        for spec in scorer:
            sc = make_scorer(spec, seed=seed, settings=settings, gold=gold)
            try:
                with console.status(f"scoring with {spec}…"):
                    results.append(evaluate(sc, records))
            finally:
                close_scorer(sc)
    finish_watched(watch, max_infra_errors)
    table = rewardbench_table(results, records)
    typer.echo(table.markdown())
    if out is not None:
        # per record (test id, error type, hit) and what was evaluated: what `robustcall compare` pairs
        subset = {"bench_digest": file_sha256(bench), "limit": limit, "seed": seed}
        per_record = [[[x.test_id, x.error_type, hit] for x, hit in zip(records, r.hits, strict=True)] for r in results]
        write_json(
            out / "rm_eval.json",
            [{**r.as_dict(), **subset, "records": rows} for r, rows in zip(results, per_record, strict=True)],
        )
        (out / "fc_rewardbench.md").write_text(table.markdown(), encoding="utf-8")
        (out / "fc_rewardbench.csv").write_text(table.csv(), encoding="utf-8")


def register(app: typer.Typer) -> None:
    """Add ``robustcall rm ...`` to the app."""
    rm_use_cmd.register(rm_app)
    rm_tables_cmd.register(rm_app)
    app.add_typer(rm_app, name="rm")
