"""``robustcall rm train-data / train / best-of-n / filter``: making and using reward models."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Annotated

import typer

from robustcall.cli._infra import MaxInfraOpt, StopAfterOpt, finish_watched, watching
from robustcall.cli._options import DEFAULT_CONCURRENCY, ConcOpt, SeedOpt, SettingsOpt
from robustcall.cli._rm_common import (
    checked_scheduler,
    close_scorer,
    console,
    fail,
    load_samples,
    make_generators,
    make_scorer,
    type_table,
)
from robustcall.core import DEFAULTS

SourceOpt = Annotated[
    list[str] | None, typer.Option("--source", help="Source name (repeatable): bfcl, apibank, toolalpaca, ...")
]
SamplesOpt = Annotated[list[Path] | None, typer.Option("--samples", help="Release-shape sample JSONL (repeatable).")]
DataDirOpt = Annotated[Path | None, typer.Option("--data-dir", help="Folder laid out like ../shared/data.")]
GeneratorOpt = Annotated[list[str] | None, typer.Option("--generator", "-g", help="Generator (repeatable).")]
LimitOpt = Annotated[int | None, typer.Option("--limit", min=1, help="A seeded subset of this many samples.")]


def train_data(
    out: Annotated[Path, typer.Option("--out", "-o", help="Training pairs JSONL to write.")],
    source: SourceOpt = None,
    samples: SamplesOpt = None,
    data_dir: DataDirOpt = None,
    generator: GeneratorOpt = None,
    per_generator: Annotated[int, typer.Option("--per-generator", "-k", min=1)] = 1,
    temperature: Annotated[float, typer.Option("--temperature")] = 0.8,
    limit: LimitOpt = None,
    top_up: Annotated[
        bool, typer.Option("--top-up/--no-top-up", help="Mutants for queries the pool got right.")
    ] = False,
    obfuscated: Annotated[
        bool,
        typer.Option(
            "--obfuscate/--no-obfuscate",
            help="Random function and parameter names (§3.3; --no-obfuscate: the A.9 ablation, names as given).",
        ),
    ] = True,
    seed: SeedOpt = 0,
    settings: SettingsOpt = None,
    concurrency: ConcOpt = DEFAULT_CONCURRENCY,
    max_infra_errors: MaxInfraOpt = 0,
    stop_after: StopAfterOpt = None,
) -> None:
    """RM training pairs from non-benchmark data: obfuscated names, reordered schemas, pool errors."""
    from robustcall.core import write_jsonl
    from robustcall.rewards import BuildStats, assemble, draw_pool, obfuscate, shuffle_tool_keys

    if "bfcl" in (source or []):
        raise fail("bfcl is the benchmark's source: train on data that does not overlap it (apibank, toolalpaca, ...)")
    # no-call (irrelevance) samples are kept: the paper's RM data has 10K of them (xlam-irrelevance)
    picked = load_samples(source or [], data_dir, samples or [], relevant_only=False, limit=limit, seed=seed)
    if not picked:
        raise fail("no samples", hint="name them with --source or --samples")
    hidden = [obfuscate(s, seed) for s in picked] if obfuscated else list(picked)
    models = make_generators(generator or [], settings, concurrency)
    stats = BuildStats()

    async def draw() -> dict[str, list[tuple[str, str]]]:
        try:
            return await draw_pool(
                hidden,
                models,
                per_generator=per_generator,
                temperature=temperature,
                seed=seed,
                concurrency=concurrency,
                stats=stats,
            )
        finally:
            for m in models:
                await m.aclose()

    pool: dict[str, list[tuple[str, str]]] = {}
    if models:
        with watching(stop_after) as watch:
            pool = asyncio.run(draw())
        finish_watched(watch, max_infra_errors)
    pairs = assemble(
        hidden, pool, seed=seed, size=len(hidden) if top_up else None, top_up=top_up, stats=stats, irrelevance=True
    )
    pairs = [shuffle_tool_keys(p, seed) for p in pairs]
    write_jsonl(out, pairs)
    typer.echo(type_table(pairs))
    names = "obfuscated names" if obfuscated else "original names (--no-obfuscate, A.9's ablation)"
    typer.echo(f"{len(pairs)} pairs from {len(hidden)} queries, {names} -> {out}")


def train(
    pairs: Annotated[Path, typer.Argument(help="Training pairs JSONL (rm train-data output).")],
    base: Annotated[str, typer.Option("--base", help="HF causal LM (path or id) to start from.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder for the trained RM.")],
    gguf: Annotated[str | None, typer.Option("--gguf", help="GGUF file in --base to dequantise.")] = None,
    lr: Annotated[float, typer.Option("--lr")] = 1e-6,
    epochs: Annotated[float, typer.Option("--epochs")] = 1.0,
    scheduler: Annotated[str, typer.Option("--scheduler")] = "cosine",
    warmup_ratio: Annotated[float, typer.Option("--warmup-ratio", min=0.0, max=1.0)] = 0.03,
    center: Annotated[float, typer.Option("--center", help="Reward centering coefficient η.")] = 0.01,
    batch_size: Annotated[int, typer.Option("--batch-size", min=1)] = 8,
    grad_accum: Annotated[int, typer.Option("--grad-accum", min=1)] = 1,
    max_length: Annotated[int, typer.Option("--max-length", min=1)] = 4096,
    max_steps: Annotated[int, typer.Option("--max-steps", help="Stop after this many steps (-1: epochs).")] = -1,
    bf16: Annotated[bool, typer.Option("--bf16/--no-bf16")] = False,
    seed: SeedOpt = 0,
) -> None:
    """Train an outcome RM with TRL's RewardTrainer (Bradley-Terry + reward centering)."""
    from robustcall.core import JsonlError
    from robustcall.rewards import RMTrainConfig, load_base, read_pairs, train_reward_model

    checked_scheduler(scheduler)
    try:
        rows = read_pairs(pairs)
    except (JsonlError, OSError) as exc:
        raise fail(exc) from None
    cfg = RMTrainConfig(
        learning_rate=lr,
        num_train_epochs=epochs,
        lr_scheduler_type=scheduler,
        warmup_ratio=warmup_ratio,
        center_rewards_coefficient=center,
        per_device_train_batch_size=batch_size,
        gradient_accumulation_steps=grad_accum,
        max_length=max_length,
        max_steps=max_steps,
        bf16=bf16,
        seed=seed,
    )
    model, tokenizer = load_base(base, gguf)
    history = train_reward_model(rows, out, cfg, model=model, tokenizer=tokenizer)
    for h in history:
        if "loss" in h:
            typer.echo(f"step {h.get('step', '?')}: loss {h['loss']:.4f}")
    (out / "rm_train_log.json").write_text(json.dumps(history, indent=2) + "\n", encoding="utf-8")


def best_of_n(
    generator: Annotated[str, typer.Option("--generator", "--model", "-g", help="The generator (one model spec).")],
    scorer: Annotated[list[str] | None, typer.Option("--scorer", "-s", help="RM to pick with (repeatable).")] = None,
    source: SourceOpt = None,
    samples: SamplesOpt = None,
    data_dir: DataDirOpt = None,
    n: Annotated[int, typer.Option("--n", min=1, help="Draws per sample (the paper's n = 32).")] = 32,
    max_tokens: Annotated[
        int, typer.Option("--max-tokens", min=1, help="Length cap of every draw.")
    ] = DEFAULTS.draw_max_tokens,
    temperature: Annotated[float, typer.Option("--temperature")] = 0.6,
    limit: LimitOpt = None,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Folder for records and tables.")] = None,
    env: Annotated[
        str | None,
        typer.Option("--env", help="Best-of-n at every step of multi-turn episodes (bfcl_multi_turn: Table 2)."),
    ] = None,
    max_steps: Annotated[int, typer.Option("--max-steps", min=1, help="--env: step limit per episode.")] = 30,
    seed: SeedOpt = 0,
    settings: SettingsOpt = None,
    concurrency: ConcOpt = DEFAULT_CONCURRENCY,
    max_infra_errors: MaxInfraOpt = 0,
    stop_after: StopAfterOpt = None,
) -> None:
    """Best-of-n by RM score vs greedy, majority vote and schema validation (accuracy, Table 8)."""
    from robustcall.core import write_jsonl
    from robustcall.report import bon_accuracy_table, bon_error_table, bon_rotbench_table
    from robustcall.rewards import draw_all, judge_sample

    if env is not None:
        _multi_turn_best_of_n(env, generator, scorer or [], n, temperature, max_tokens, limit, out, max_steps,
                              seed, settings, concurrency, max_infra_errors, stop_after)  # fmt: skip
        return

    picked = load_samples(
        source or ["bfcl"] if not samples else source or [],
        data_dir,
        samples or [],
        relevant_only=False,
        limit=limit,
        seed=seed,
    )
    (model,) = make_generators([generator], settings, concurrency)
    console.print(f"drawing 1 greedy + {n} samples for {len(picked)} samples…")
    with watching(stop_after) as watch:
        drawn = asyncio.run(
            draw_all(
                picked, model, n=n, temperature=temperature, seed=seed, concurrency=concurrency, max_tokens=max_tokens
            )
        )
        if watch.stopped is None:  # else: say so now, not after scoring what never came
            scorers = {spec: make_scorer(spec, seed=seed, settings=settings, gold=picked) for spec in (scorer or [])}
            try:
                records = []
                for s, (greedy, draws) in zip(picked, drawn, strict=True):
                    ok = [d for d in draws if d.error is None]
                    records.append(judge_sample(s, greedy.text, [d.text for d in ok], [d.logprob for d in ok], scorers))
            finally:
                for sc in scorers.values():
                    close_scorer(sc)
    finish_watched(watch, max_infra_errors)
    rot = bon_rotbench_table(records, n)
    tables = [bon_accuracy_table(records, n), bon_error_table(records), *([rot] if rot else [])]
    for t in tables:
        typer.echo(t.markdown())
    if out is not None:
        write_jsonl(out / "best_of_n.jsonl", records)
        for t in tables:
            (out / f"{t.name}.md").write_text(t.markdown(), encoding="utf-8")
            (out / f"{t.name}.csv").write_text(t.csv(), encoding="utf-8")


def _multi_turn_best_of_n(
    env_name: str,
    generator: str,
    scorer_specs: list[str],
    n: int,
    temperature: float,
    max_tokens: int,
    limit: int | None,
    out: Path | None,
    max_steps: int,
    seed: int,
    settings: Path | None,
    concurrency: int,
    max_infra_errors: int,
    stop_after: int | None,
) -> None:
    """Table 2's multi-turn column: each method's picks executed step by step, episodes judged by the
    environment (BFCL multi-turn: state and response checks)."""
    from robustcall.core import progress
    from robustcall.envs import load_env
    from robustcall.report import Table
    from robustcall.rewards import STEP_METHODS, BestOfNModel
    from robustcall.run import run_episode

    try:
        make_env = load_env(env_name)
    except ValueError as exc:
        raise fail(exc) from None
    tasks = make_env().task_ids()[:limit]
    scorers = {spec: make_scorer(spec, seed=seed, settings=settings) for spec in scorer_specs}
    methods = [*STEP_METHODS, *(f"rm:{spec}" for spec in scorers)]
    records: list[dict[str, object]] = []
    rows: list[list[str]] = []

    told = progress()  # progress lines in a log

    async def one(method: str, model: BestOfNModel, task: str, gate: asyncio.Semaphore) -> dict[str, object]:
        async with gate:
            environment = make_env()
            traj = await run_episode(model, environment, task, seed=seed, max_steps=max_steps)
            told.advance(infra=int(traj.infra_error is not None))
            return {"method": method, "task": task, "score": environment.score(), "termination": traj.termination,
                    "steps": len(traj.steps), "infra": traj.infra_error}  # fmt: skip

    async def run_all() -> None:
        for method in methods:
            (inner,) = make_generators([generator], settings, concurrency, episodes=True)
            model = BestOfNModel(inner, method, n=n, temperature=temperature, seed=seed,
                                 scorer=scorers.get(method.removeprefix("rm:")), max_tokens=max_tokens)  # fmt: skip
            gate = asyncio.Semaphore(max(1, concurrency))
            told.start(f"best-of-n {method} on {env_name}", len(tasks), unit="episodes")
            try:
                done = await asyncio.gather(*(one(method, model, t, gate) for t in tasks))
            finally:
                await model.aclose()
            records.extend(done)
            scores = [float(str(d["score"])) for d in done]
            infra = sum(d["infra"] is not None for d in done)
            acc = 100 * sum(scores) / len(scores) if scores else 0.0
            rows.append([method, f"{acc:.1f}", str(len(done)), str(infra), str(model.draws_made)])

    with watching(stop_after) as watch:
        asyncio.run(run_all())
    for sc in scorers.values():
        close_scorer(sc)
    finish_watched(watch, max_infra_errors)
    table = Table(
        name="best_of_n_multi_turn",
        title=f"Best-of-{n} multi-turn accuracy (%) on {env_name} (ToolRM Table 2's Multi-Turn Acc)",
        header=["Method", "Multi-turn acc", "episodes", "infra", "draws"],
        rows=rows,
        notes=["At every step n answers are drawn and the method's pick is executed; an episode counts when the "
               "environment's checks pass at its end (BFCL: every turn's state and response checks)."],
    )  # fmt: skip
    typer.echo(table.markdown())
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        lines = "".join(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in records)
        (out / "best_of_n_multi_turn.jsonl").write_text(lines, encoding="utf-8")
        (out / f"{table.name}.md").write_text(table.markdown(), encoding="utf-8")
        (out / f"{table.name}.csv").write_text(table.csv(), encoding="utf-8")


def filter_cmd(
    scorer: Annotated[str, typer.Option("--scorer", "-s", help="RM spec to rank with.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="TRL SFT JSONL to write.")],
    source: SourceOpt = None,
    samples: SamplesOpt = None,
    data_dir: DataDirOpt = None,
    fraction: Annotated[float, typer.Option("--fraction", help="Share to keep, by RM score.")] = 0.5,
    seed: SeedOpt = 0,
    settings: SettingsOpt = None,
) -> None:
    """Rank a training corpus by RM score of its targets and keep the top fraction (TRL-ready rows)."""
    from robustcall.rewards import keep_top, score_corpus, sft_row

    corpus = load_samples(source or [], data_dir, samples or [], relevant_only=True, limit=None, seed=seed)
    if not corpus:
        raise fail("no samples", hint="name them with --source or --samples")
    sc = make_scorer(scorer, seed=seed, settings=settings, gold=corpus)
    try:  # no endpoint requests: a judge scores one target alone as 0.5 (rewards._judge)
        scores = score_corpus(sc, corpus)
    finally:
        close_scorer(sc)
    try:
        kept = keep_top(scores, fraction)
    except ValueError as exc:
        raise fail(exc) from None
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out, "w", encoding="utf-8", newline="\n") as fh:
        for i in kept:
            fh.write(json.dumps(sft_row(corpus[i], scores[i]), ensure_ascii=False, sort_keys=True) + "\n")
    typer.echo(f"kept {len(kept)} of {len(corpus)} examples -> {out}")


def register(app: typer.Typer) -> None:
    app.command("train-data")(train_data)
    app.command("train")(train)
    app.command("best-of-n")(best_of_n)
    app.command("filter")(filter_cmd)
