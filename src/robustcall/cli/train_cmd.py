"""``robustcall train``: ToolRL-DR data, GRPO and recovery SFT on existing engines (TRL)."""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import Annotated

import typer

from robustcall.cli._errors import describe
from robustcall.cli._options import SeedOpt
from robustcall.cli._rewriter import (
    LLMBaseUrlOpt,
    LLMModelOpt,
    LLMSettingsOpt,
    RewriterOpt,
    close,
    make_rewriter,
    model_errors,
)
from robustcall.core import InputError

train = typer.Typer(
    help="Training data and recipes: ToolRL-DR data, GRPO (TRL), recovery SFT (TRL).", no_args_is_help=True
)

ModelOpt = Annotated[
    str, typer.Option("--model", help="HF id, local HF folder, a .gguf file (dequantised), or `tiny` (CPU smoke run).")
]


def _check_recipe(recipe: str, rewards: list[str] | None, toolrm_scorer: str | None) -> None:
    """The checks `train grpo` and `train verl` share, before any data is read: a recipe and rewards
    by name (usage errors, exit 2), and the scorer the toolrm reward needs."""
    from robustcall.train import RECIPES, REWARDS

    if recipe not in RECIPES:
        raise typer.BadParameter(f"unknown recipe {recipe!r}; valid: {', '.join(RECIPES)}", param_hint="--recipe")
    unknown = [r for r in rewards or () if r not in REWARDS]
    if unknown:
        raise typer.BadParameter(f"unknown reward {unknown[0]!r}; valid: {', '.join(REWARDS)}", param_hint="--reward")
    if "toolrm" in (rewards or RECIPES[recipe]["rewards"]) and not toolrm_scorer:
        raise typer.BadParameter(
            "the toolrm reward needs --toolrm-scorer (e.g. pooling:<model>@<base_url>)", param_hint="--toolrm-scorer"
        )


def _check_inputs(*paths: Path | None) -> None:
    """Every input there before anything is read or written (``No such file or directory: PATH``)."""
    for path in paths:
        if path is not None and not path.exists():
            raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), str(path))


def is_release(path: Path) -> bool:
    """Whether ``--train`` names the released RobustBench-TC's folder (its ``training/`` parquets)."""
    return path.is_dir() and (path / "training").is_dir() and any((path / "training").glob("*.parquet"))


def release_rows(release: Path, split: str) -> tuple[Path, Path | None]:
    """The release's GRPO parquets of ``split``, each read as ToolRL-DR rows first (a file that is not
    is refused in one line, before any model loads)."""
    from robustcall.sources import release_training
    from robustcall.train import grpo_rows

    train_file, eval_file = release_training(release, split)
    for path in (train_file, eval_file):
        if path is not None:
            try:
                rows = grpo_rows(path)
            except ValueError as exc:
                raise typer.BadParameter(f"not ToolRL-DR rows: {exc}", param_hint="--train") from None
            typer.echo(f"{path}: {len(rows)} ToolRL-DR rows", err=True)
    return train_file, eval_file


@train.command("dr-data")
def dr_data(
    inputs: Annotated[
        list[Path], typer.Argument(help="rlla parquet files and / or raw {instruction, input, output} JSON.")
    ],
    out: Annotated[Path, typer.Option("--out", help="Writes dr_full/, dr_mixed/ and manifest.json here.")],
    seed: SeedOpt = 0,
    clean_fraction: Annotated[float, typer.Option("--clean-fraction", help="DR-Mixed: share kept clean.")] = 0.5,
    fmt: Annotated[str, typer.Option("--format", help="parquet (veRL / ToolRL layout), jsonl, or hf.")] = "parquet",
    rewriter: RewriterOpt = "offline",
    llm_model: LLMModelOpt = None,
    llm_base_url: LLMBaseUrlOpt = None,
    llm_settings: LLMSettingsOpt = None,
) -> None:
    """ToolRL-DR data (§5): every row perturbed (DR-Full) and about half perturbed (DR-Mixed),
    uniformly over the 16 static types."""
    from robustcall.train import build_dr_data

    suffix = {"parquet": ".parquet", "jsonl": ".jsonl", "hf": ""}.get(fmt)
    if suffix is None:
        raise typer.BadParameter(f"--format must be parquet, jsonl or hf, got {fmt!r}")
    _check_inputs(*inputs)
    chosen = make_rewriter(rewriter, llm_model, llm_base_url, llm_settings)
    try:
        with model_errors():
            manifest = build_dr_data(inputs, out, seed, clean_fraction=clean_fraction, suffix=suffix, rewriter=chosen)
    except (ValueError, OSError) as exc:  # an unreadable file: the input's fault
        raise InputError(describe(exc)) from None
    finally:
        close(chosen)
    for name, info in manifest["inputs"].items():
        skipped = sum(len(v) for v in info["skipped"].values())
        typer.echo(f"{name}: {info['read']} of {info['rows']} rows read ({skipped} skipped, see manifest)")
    for name, info in manifest["outputs"].items():
        counts = info["type_counts"]
        per_type = [n for t, n in counts.items() if t != "clean"]
        typer.echo(
            f"{out / name}: {info['rows']} rows, clean {counts.get('clean', 0)}, "
            f"per type {min(per_type)}-{max(per_type)}, uniform within one: {info['uniform_within_one']}"
        )


@train.command("grpo")
def grpo(
    train_data: Annotated[
        Path,
        typer.Option(
            "--train",
            help="Training rows (parquet / JSONL / HF folder), or the authors' released RobustBench-TC folder: "
            "its training/*.parquet, the ToolRL-DR data (--release-split; docs/sources.md).",
        ),
    ],
    output_dir: Annotated[Path, typer.Option("--out", help="Checkpoints and the final model.")],
    release_split: Annotated[
        str,
        typer.Option(
            "--release-split",
            help="When --train is the release folder: full (DR-Full, training/train.parquet) or mixed (DR-Mixed, "
            "training/mixed_train.parquet); both validate on training/test.parquet unless --eval is given.",
        ),
    ] = "full",
    recipe: Annotated[
        str,
        typer.Option(
            "--recipe",
            help="Whose hyperparameters fill the options not given: toolrl-dr (ToolRL-DR paper, Table 16) or "
            "toolrm (ToolRM paper, Table 9: batch 512, mini-batch 128, 15 epochs, reward R_format + R_ToolRM).",
        ),
    ] = "toolrl-dr",
    model: ModelOpt = "Qwen/Qwen2.5-3B-Instruct",
    eval_data: Annotated[Path | None, typer.Option("--eval", help="Validation rows.")] = None,
    reward: Annotated[
        list[str] | None,
        typer.Option(
            "--reward",
            help="Reward by name, repeatable: toolrl_format, toolrl_correctness, schema, toolrm "
            "(default: the recipe's).",
        ),
    ] = None,
    toolrm_scorer: Annotated[
        str | None, typer.Option("--toolrm-scorer", help="Scorer spec for --reward toolrm.")
    ] = None,
    num_generations: Annotated[int | None, typer.Option("--num-generations", min=1, help="Group size K.")] = None,
    learning_rate: Annotated[float | None, typer.Option("--lr")] = None,
    max_prompt_length: Annotated[int | None, typer.Option("--max-prompt-length", min=1)] = None,
    max_completion_length: Annotated[int | None, typer.Option("--max-completion-length", min=1)] = None,
    epochs: Annotated[float | None, typer.Option("--epochs")] = None,
    train_batch_size: Annotated[
        int | None, typer.Option("--train-batch-size", min=1, help="Prompts per rollout batch.")
    ] = None,
    mini_batch_size: Annotated[
        int | None, typer.Option("--mini-batch-size", min=1, help="Prompts per optimizer step.")
    ] = None,
    micro_batch_size: Annotated[
        int | None,
        typer.Option(
            "--micro-batch-size",
            min=1,
            help="Completions per device per forward pass (default: the recipe's; on one GPU, "
            "chosen from its free memory, docs/train.md).",
        ),
    ] = None,
    beta: Annotated[float, typer.Option("--beta", help="KL coefficient.")] = 0.001,
    save_steps: Annotated[int | None, typer.Option("--save-steps", min=1)] = None,
    eval_steps: Annotated[int | None, typer.Option("--eval-steps", min=1)] = None,
    max_steps: Annotated[int, typer.Option("--max-steps", help="-1: run the epochs.")] = -1,
    vllm: Annotated[
        bool | None, typer.Option("--vllm/--no-vllm", help="vLLM generation (default: when installed and on GPU).")
    ] = None,
    vllm_mode: Annotated[str, typer.Option("--vllm-mode", help="colocate or server (`trl vllm-serve`).")] = "colocate",
    seed: SeedOpt = 0,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Print the settings the recipe and options resolve to, and exit.")
    ] = False,
) -> None:
    """GRPO with TRL's GRPOTrainer; defaults are the --recipe's hyperparameters (toolrl-dr: Table 16, 2 GPUs)."""
    import json

    from pydantic import ValidationError

    from robustcall.train import GrpoSettings, run_grpo

    _check_recipe(recipe, reward, toolrm_scorer)
    if vllm_mode not in ("colocate", "server"):
        raise typer.BadParameter("--vllm-mode must be colocate or server")
    if is_release(train_data):
        train_data, release_eval = release_rows(train_data, release_split)
        eval_data = eval_data or release_eval
    _check_inputs(train_data, eval_data)
    try:
        settings = GrpoSettings.model_validate(
            {
                "recipe": recipe,
                "model": model,
                "train": train_data,
                "eval": eval_data,
                "output_dir": output_dir,
                "rewards": reward or None,
                "toolrm_scorer": toolrm_scorer,
                "num_generations": num_generations,
                "learning_rate": learning_rate,
                "max_prompt_length": max_prompt_length,
                "max_completion_length": max_completion_length,
                "num_train_epochs": epochs,
                "train_batch_size": train_batch_size,
                "mini_batch_size": mini_batch_size,
                "micro_batch_size": micro_batch_size,
                "beta": beta,
                "save_steps": save_steps,
                "eval_steps": eval_steps,
                "max_steps": max_steps,
                "use_vllm": vllm,
                "vllm_mode": vllm_mode,
                "seed": seed,
            }
        )
    except ValidationError as exc:
        first = exc.errors()[0]
        raise typer.BadParameter(f"{'.'.join(str(p) for p in first['loc']) or 'settings'}: {first['msg']}") from None
    said = f"recipe {settings.recipe}: " + ("ToolRL-DR, Table 16" if recipe == "toolrl-dr" else "ToolRM, Table 9")
    if dry_run:
        typer.echo(said)
        typer.echo(json.dumps(json.loads(settings.model_dump_json()), indent=2, sort_keys=True))
        return
    try:
        summary = run_grpo(settings, echo=typer.echo)
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from None
    typer.echo(said)  # after the data was read: a bad file ends in its error alone
    _report(summary)


SFT_RECIPES = ("recovery", "pipe-trajectory")


@train.command("sft")
def sft(
    output_dir: Annotated[Path, typer.Option("--out", help="Checkpoints, the final model and the training rows.")],
    recipe: Annotated[
        str,
        typer.Option(
            "--recipe",
            help="recovery (fault recovery tuples, L_standard + α·L_recovery) or pipe-trajectory (paper 002 "
            "Appendix K: full fine-tune on `pipe run` trajectories, 1 epoch, cosine, warmup 0.1, 2 × 2).",
        ),
    ] = "recovery",
    recovery: Annotated[
        Path | None, typer.Option("--recovery", exists=True, help="`robustcall faults export-sft` output (recovery).")
    ] = None,
    trajectories: Annotated[
        list[Path] | None,
        typer.Option("--trajectories", exists=True, help="`robustcall pipe run` directories (pipe-trajectory)."),
    ] = None,
    all_episodes: Annotated[
        bool, typer.Option("--all-episodes", help="pipe-trajectory: train on unsolved episodes too.")
    ] = False,
    model: Annotated[
        str | None,
        typer.Option(
            "--model",
            help="HF id, local HF folder, a .gguf file (dequantised), or `tiny` (CPU smoke run); default: the "
            "recipe's (recovery: Qwen/Qwen2.5-3B-Instruct; pipe-trajectory: Qwen/Qwen3-8B).",
        ),
    ] = None,
    standard: Annotated[
        Path | None,
        typer.Option("--standard", exists=True, help="Standard SFT rows for L_standard (messages / raw ToolRL)."),
    ] = None,
    alpha: Annotated[float, typer.Option("--alpha", help="α of L_standard + α·L_recovery (data-mix weight).")] = 1.0,
    learning_rate: Annotated[float | None, typer.Option("--lr", help="Default: the recipe's (1e-5).")] = None,
    epochs: Annotated[float | None, typer.Option("--epochs", help="Default: the recipe's (3; 1).")] = None,
    batch_size: Annotated[
        int | None, typer.Option("--batch-size", min=1, help="Per device; default: the recipe's (4; 2).")
    ] = None,
    grad_accum: Annotated[int | None, typer.Option("--grad-accum", min=1, help="Default: the recipe's (1; 2).")] = None,
    max_length: Annotated[int, typer.Option("--max-length", min=1)] = 4096,
    max_steps: Annotated[int, typer.Option("--max-steps", help="-1: run the epochs.")] = -1,
    num_proc: Annotated[
        int | None,
        typer.Option("--num-proc", min=0, help="pipe-trajectory: preprocessing workers (default 16; 0: none)."),
    ] = None,
    seed: SeedOpt = 0,
) -> None:
    """Supervised fine-tuning with TRL's SFTTrainer: recovery SFT, or PIPE's trajectory SFT (Appendix K)."""
    if recipe not in SFT_RECIPES:
        raise typer.BadParameter(f"--recipe must be one of {', '.join(SFT_RECIPES)}, got {recipe!r}")
    given: dict[str, float | int | str | None] = {
        k: v
        for k, v in {
            "learning_rate": learning_rate,
            "num_train_epochs": epochs,
            "per_device_train_batch_size": batch_size,
            "gradient_accumulation_steps": grad_accum,
            "model": model,
        }.items()
        if v is not None
    }
    if recipe == "pipe-trajectory":
        from robustcall.train import PipeSftSettings, run_pipe_sft

        if not trajectories:
            raise typer.BadParameter("--recipe pipe-trajectory needs --trajectories (`robustcall pipe run` folders)")
        if num_proc is not None:
            given["dataset_num_proc"] = num_proc or None
            given["dataloader_num_workers"] = min(num_proc, 4)
        pipe_settings = PipeSftSettings(
            trajectories=trajectories,
            output_dir=output_dir,
            successful_only=not all_episodes,
            max_length=max_length,
            max_steps=max_steps,
            seed=seed,
            **given,
        )
        try:
            summary = run_pipe_sft(pipe_settings)
        except ValueError as exc:
            raise typer.BadParameter(str(exc)) from None
        typer.echo(f"recipe pipe-trajectory (Appendix K): {summary['examples']} of {summary['episodes']} episodes")
        _report(summary)
        return
    from robustcall.train import SftSettings, run_sft

    if recovery is None:
        raise InputError("--recipe recovery needs --recovery (`robustcall faults export-sft` output)")
    settings = SftSettings(
        recovery=recovery,
        standard=standard,
        alpha=alpha,
        output_dir=output_dir,
        max_length=max_length,
        max_steps=max_steps,
        seed=seed,
        **({"model": "Qwen/Qwen2.5-3B-Instruct"} | given),
    )
    try:
        summary = run_sft(settings)
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from None
    _report(summary)


@train.command("verl")
def verl(
    train_data: Annotated[Path, typer.Option("--train", help="Training parquet (dr-data's dr_full/, dr_mixed/).")],
    eval_data: Annotated[Path, typer.Option("--eval", help="Validation parquet.")],
    output_dir: Annotated[Path, typer.Option("--out", help="verl_launch.sh and veRL's checkpoints.")],
    model: Annotated[str, typer.Option("--model", help="HF id or folder of the policy.")] = "Qwen/Qwen2.5-3B-Instruct",
    recipe: Annotated[
        str, typer.Option("--recipe", help="toolrl-dr (000, Table 16) or toolrm (004, Table 9).")
    ] = "toolrl-dr",
    reward: Annotated[
        list[str] | None, typer.Option("--reward", help="Reward terms summed (default: the recipe's); repeatable.")
    ] = None,
    toolrm_scorer: Annotated[
        str | None, typer.Option("--toolrm-scorer", help="Scorer spec for --reward toolrm, e.g. pooling:<rm>@<url>.")
    ] = None,
    gpus: Annotated[int, typer.Option("--gpus", min=1, help="GPUs per node.")] = 2,
    nodes: Annotated[int, typer.Option("--nodes", min=1, help="Nodes of the Ray cluster.")] = 1,
    ray_address: Annotated[
        str | None, typer.Option("--ray-address", help="Join this Ray cluster (RAY_ADDRESS) instead of a local one.")
    ] = None,
    extra: Annotated[
        list[str] | None, typer.Option("--set", help="One more Hydra override for veRL (KEY=VALUE); repeatable.")
    ] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Write and print the launch, do not start it.")] = False,
) -> None:
    """GRPO on veRL (Ray, multi-GPU, multi-node) with train grpo's exact reward; writes the launch, runs it."""
    import subprocess

    from robustcall.core import NotReadyError
    from robustcall.train import VerlLaunch, compose_verl, missing_for_launch, verl_script

    _check_recipe(recipe, reward, toolrm_scorer)
    _check_inputs(train_data, eval_data)
    launch = VerlLaunch(
        recipe=recipe,
        model=model,
        train=train_data,
        eval=eval_data,
        out=output_dir,
        gpus_per_node=gpus,
        nodes=nodes,
        rewards=tuple(reward or ()),
        toolrm_scorer=toolrm_scorer,
        extra=tuple(extra or ()),
    )
    script = verl_script(launch, ray_address)  # checks the recipe, rewards and batch split first
    missing = missing_for_launch()
    if "verl" not in missing and "hydra" not in missing:
        compose_verl(launch)  # veRL's own config parser: a bad override fails here, not on the cluster
    output_dir.mkdir(parents=True, exist_ok=True)
    (output_dir / "verl_launch.sh").write_text(script)
    typer.echo(f"recipe {recipe}: " + ("ToolRL-DR, Table 16" if recipe == "toolrl-dr" else "ToolRM, Table 9"))
    typer.echo(script, nl=False)
    typer.echo(f"written to {output_dir / 'verl_launch.sh'}")
    if dry_run:
        return
    from robustcall.cli._extras import extra_for

    if absent := [m for m in missing if extra_for(m)]:  # the `verl` extra not installed: the CLI says which
        raise ModuleNotFoundError(f"No module named {absent[0]!r}", name=absent[0])
    if missing:
        raise NotReadyError(
            f"cannot start veRL here: {', '.join(missing)} not installed "
            "(pip install 'robustcall[verl]' vllm on the GPU machines, then run verl_launch.sh)"
        )
    raise typer.Exit(subprocess.call(["bash", str(output_dir / "verl_launch.sh")]))


def _report(summary: dict[str, object]) -> None:
    history = summary.get("log_history")
    rows = [h for h in history if isinstance(h, dict) and "loss" in h] if isinstance(history, list) else []
    for h in rows:
        reward = f"  reward {h['reward']:+.3f}" if "reward" in h else ""
        typer.echo(f"step {h.get('step')}: loss {h['loss']:.4f}{reward}")
    typer.echo(f"{summary.get('steps')} steps in {float(str(summary.get('train_seconds'))):.1f} s")


def register(app: typer.Typer) -> None:
    app.add_typer(train, name="train")
