"""``robustcall rm stats / ablate``: the ToolRM paper's Appendix tables (Tables 6, 1, 7 and 10)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from robustcall.cli._options import SeedOpt
from robustcall.cli._rm_common import checked_scheduler, console, fail, write_json

if TYPE_CHECKING:
    from robustcall.report import Table
    from robustcall.rewards import AblationRow, OutputScorer, RewardPair, Variant


def _read(path: Path) -> list[RewardPair]:
    from robustcall.core import JsonlError
    from robustcall.rewards import read_pairs

    if not path.is_file():
        raise fail(f"no such file: {path}")
    try:
        return read_pairs(path)
    except (JsonlError, OSError, ValueError) as exc:
        raise fail(exc) from None


def _write_tables(out: Path, tables: list[Table]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for t in tables:
        (out / f"{t.name}.md").write_text(t.markdown(), encoding="utf-8")
        (out / f"{t.name}.csv").write_text(t.csv(), encoding="utf-8")


def stats(
    bench: Annotated[list[Path], typer.Argument(help="FC-RewardBench files (ours or the original release).")],
    name: Annotated[
        list[str] | None, typer.Option("--name", help="Row name of each file, in order (default: file stem).")
    ] = None,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Folder for the tables (MD, CSV) and JSON.")] = None,
) -> None:
    """Table 6's statistics, Table 1's error types and Table 7's generators of FC-RewardBench files."""
    from dataclasses import replace

    from robustcall.report import rewardbench_generators_table, rewardbench_stats_table, rewardbench_types_table
    from robustcall.rewards import bench_stats

    names = list(name or [])
    if names and len(names) != len(bench):
        raise fail(f"{len(names)} --name for {len(bench)} files: give one per file, or none")
    names = names or [p.stem for p in bench]
    if len(set(names)) != len(names):
        names = [str(p) for p in bench]
    named = [(n, bench_stats(_read(p))) for n, p in zip(names, bench, strict=True)]
    tables = [rewardbench_stats_table(named), rewardbench_types_table(named)]
    for i, (n, st) in enumerate(named):
        t = rewardbench_generators_table(st)
        title = f"{t.title}: {n}" if len(named) > 1 else t.title
        tables.append(replace(t, name=t.name if len(named) == 1 else f"{t.name}_{i + 1}", title=title))
    for t in tables:
        typer.echo(t.markdown())
    if out is not None:
        _write_tables(out, tables)
        write_json(out / "rm_stats.json", {n: st.as_dict() for n, st in named})
        console.print(f"tables -> {out}")


SECTION_KEYS = ("hyper", "data", "generator")
"""``--only``'s names of Table 10's sections, in their order."""


def _sizes(given: list[str]) -> dict[str, float]:
    sizes: dict[str, float] = {}
    for item in given:
        model, sep, value = item.rpartition("=")
        try:
            sizes[model] = float(value)
        except ValueError:
            sep = ""
        if not sep or not model:
            raise typer.BadParameter(f"{item!r}: expected NAME=BILLIONS (e.g. my-gen=7)", param_hint="--generator-size")
    return sizes


def ablate(
    pairs: Annotated[Path, typer.Argument(help="Training pairs JSONL (rm train-data output).")],
    bench: Annotated[Path, typer.Option("--bench", help="FC-RewardBench file each variant is scored on.")],
    base: Annotated[str, typer.Option("--base", help="HF causal LM (path or id) every variant starts from.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder for the table, results and (kept) models.")],
    plain_pairs: Annotated[
        Path | None,
        typer.Option("--plain-pairs", help="Pairs with the original names (rm train-data --no-obfuscate)."),
    ] = None,
    share: Annotated[
        list[float] | None,
        typer.Option("--share", help="Training-data size sweep: train on this share of the pairs (repeatable)."),
    ] = None,
    generator_size: Annotated[
        list[str] | None,
        typer.Option("--generator-size", help="NAME=BILLIONS for a generator whose name carries no size."),
    ] = None,
    only: Annotated[
        list[str] | None,
        typer.Option("--only", help="Run only these sections (repeatable): hyper, data, generator."),
    ] = None,
    gguf: Annotated[str | None, typer.Option("--gguf", help="GGUF file in --base to dequantise.")] = None,
    lr: Annotated[float, typer.Option("--lr")] = 1e-6,
    epochs: Annotated[float, typer.Option("--epochs")] = 1.0,
    scheduler: Annotated[str, typer.Option("--scheduler", help="As `rm train --scheduler`.")] = "cosine",
    warmup_ratio: Annotated[
        float, typer.Option("--warmup-ratio", min=0.0, max=1.0, help="As `rm train --warmup-ratio`.")
    ] = 0.03,
    center: Annotated[float, typer.Option("--center", help="η of every variant but the centering rows.")] = 0.01,
    batch_size: Annotated[int, typer.Option("--batch-size", min=1)] = 8,
    grad_accum: Annotated[int, typer.Option("--grad-accum", min=1)] = 1,
    max_length: Annotated[int, typer.Option("--max-length", min=1)] = 4096,
    max_steps: Annotated[int, typer.Option("--max-steps", help="Stop after this many steps (-1: epochs).")] = -1,
    bf16: Annotated[bool, typer.Option("--bf16/--no-bf16")] = False,
    keep_models: Annotated[
        bool, typer.Option("--keep-models/--no-keep-models", help="Keep each variant's trained RM.")
    ] = False,
    seed: SeedOpt = 0,
) -> None:
    """Appendix A.9: train one RM per ablation (obfuscation, η, datasets, data size, generator size)
    and score each on FC-RewardBench; Table 10's layout."""
    from robustcall.report import ablation_table
    from robustcall.rewards import SECTIONS, plan_ablation, run_ablation

    checked_scheduler(scheduler)
    by_key = dict(zip(SECTION_KEYS, SECTIONS, strict=True))
    wrong = [k for k in only or [] if k not in by_key]
    if wrong:
        raise typer.BadParameter(f"{wrong[0]!r}: one of {', '.join(SECTION_KEYS)}", param_hint="--only")
    sections = [by_key[k] for k in only] if only else list(SECTIONS)
    shares = list(share) if share is not None else [0.25, 0.5]
    bad = [s for s in shares if not 0 < s < 1]
    if bad:
        raise typer.BadParameter(f"{bad[0]:g}: a share is above 0 and below 1", param_hint="--share")
    rows = _read(pairs)
    if not rows:
        raise fail(f"{pairs} holds no pairs")
    bench_rows = _read(bench)
    plain = _read(plain_pairs) if plain_pairs is not None else None
    variants, notes = plan_ablation(
        rows,
        center=center,
        plain_pairs=plain,
        shares=shares,
        sizes=_sizes(generator_size or []),
        seed=seed,
        sections=sections,
    )
    for note in notes:
        console.print(f"note: {note}")
    settings = {"lr": lr, "epochs": epochs, "scheduler": scheduler, "warmup_ratio": warmup_ratio,
                "batch_size": batch_size, "grad_accum": grad_accum, "max_length": max_length,
                "max_steps": max_steps, "bf16": bf16, "seed": seed}  # fmt: skip

    def train_score(v: Variant, i: int) -> OutputScorer:
        from robustcall.rewards import HFClassifierScorer, RMTrainConfig, load_base, train_reward_model

        console.print(f"[{i + 1}/{len(variants)}] {v.label}: {len(v.pairs)} pairs, η {v.center:g}")
        cfg = RMTrainConfig(
            learning_rate=lr,
            num_train_epochs=epochs,
            lr_scheduler_type=scheduler,
            warmup_ratio=warmup_ratio,
            center_rewards_coefficient=v.center,
            per_device_train_batch_size=batch_size,
            gradient_accumulation_steps=grad_accum,
            max_length=max_length,
            max_steps=max_steps,
            bf16=bf16,
            seed=seed,
        )
        model, tokenizer = load_base(base, gguf)
        folder = out / "models" / f"{i:02d}"
        history = train_reward_model(list(v.pairs), folder, cfg, model=model, tokenizer=tokenizer)
        (folder / "rm_train_log.json").write_text(json.dumps(history, indent=2) + "\n", encoding="utf-8")
        scorer = HFClassifierScorer(str(folder), model=model, tokenizer=tokenizer, max_length=max_length)
        if not keep_models:
            shutil.rmtree(folder)
        return scorer

    results: list[dict[str, object]] = []

    def done(row: AblationRow) -> None:
        results.append(row.as_dict())
        write_json(out / "rm_ablation.json", {"base": base, "settings": settings, "notes": notes, "rows": results})

    out.mkdir(parents=True, exist_ok=True)
    table = ablation_table(run_ablation(variants, bench_rows, train_score, done=done), len(bench_rows))
    typer.echo(table.markdown())
    _write_tables(out, [table])
    if not keep_models:
        shutil.rmtree(out / "models", ignore_errors=True)


def register(app: typer.Typer) -> None:
    """Add ``rm stats`` and ``rm ablate``."""
    app.command("stats")(stats)
    app.command("ablate")(ablate)
