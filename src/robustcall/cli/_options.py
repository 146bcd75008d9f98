"""Options several commands share, declared once with one help text each (defaults from
``robustcall.core.DEFAULTS``), and the checks of their values."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from robustcall.core import DEFAULTS

if TYPE_CHECKING:
    from robustcall.formats import OutputFormat

CONCURRENCY_HELP = "Requests in flight at once; each model's connection pool is sized to it."
"""What ``--concurrency`` means in every command: model requests in flight at once, whatever loop
issues them (samples of a run, episodes of a fault run, draws of a reward-bench build)."""

DEFAULT_CONCURRENCY = DEFAULTS.concurrency
DEFAULT_RESAMPLES = DEFAULTS.bootstrap_resamples

ConcOpt = Annotated[int, typer.Option("--concurrency", min=1, help=CONCURRENCY_HELP)]
"""``--concurrency`` (default ``DEFAULTS.concurrency``)."""
BootstrapOpt = Annotated[int, typer.Option("--bootstrap", min=0, help="Bootstrap resamples B.")]
"""``--bootstrap`` (default ``DEFAULTS.bootstrap_resamples``)."""
SeedOpt = Annotated[int, typer.Option("--seed", help="Seed of every random choice.")]
ResumeOpt = Annotated[
    bool, typer.Option("--resume", help="Finish an interrupted run (an existing one is refused without it).")
]
ModeOpt = Annotated[
    str | None,
    typer.Option(
        "--mode", help="fc (tools via `tools=`) or prompt (tools in the system prompt); default: the model's."
    ),
]
SettingsOpt = Annotated[
    Path | None,
    typer.Option(
        "--settings",
        help="Per-model settings file (YAML/JSON, like Table 15), or the paper's own Table 15: paper:<Model> "
        "(e.g. paper:Qwen3-8B), or paper (the row matching the model's name or HF id).",
    ),
]
BaseUrlOpt = Annotated[
    str | None, typer.Option("--base-url", help="Base URL of an openai/<model> spec (else $OPENAI_BASE_URL).")
]
"""One endpoint (``run`` and ``bench`` take replicas: their own ``--base-url``)."""

EnvOpt = Annotated[
    str,
    typer.Option(
        "--env",
        help="An environment: maze, wordle, textcraft, bfcl_multi_turn, dbbench, babyai, sciworld, or "
        "`package.module:Class` of your own Env.",
    ),
]
EnvDataOpt = Annotated[
    Path | None,
    typer.Option(
        "--data",
        "--data-dir",
        help="Environment data (wordle: a word-list folder or answers file; dbbench: its folder or JSONL file).",
    ),
]
FormatOpt = Annotated[str, typer.Option("--format", help="Prompt-mode action format: tool_call, react, json, bfcl.")]
MaxStepsOpt = Annotated[int, typer.Option("--max-steps", min=1, help="Step limit T per episode.")]
LimitTasksOpt = Annotated[int | None, typer.Option("--limit", min=1, help="Only the first N tasks.")]


def check_mode(mode: str | None) -> None:
    """``--mode`` is fc, prompt or unset."""
    if mode not in (None, "fc", "prompt"):
        raise typer.BadParameter(f"--mode must be fc or prompt, got {mode!r}")


def check_format(fmt: str) -> OutputFormat:
    """``--format`` names one of the output formats: that format."""
    from robustcall.formats import OUTPUT_FORMATS

    for known in OUTPUT_FORMATS:
        if fmt == known:
            return known
    raise typer.BadParameter(f"--format must be one of {', '.join(OUTPUT_FORMATS)}")


PricesOpt = Annotated[
    Path | None,
    typer.Option(
        "--prices",
        exists=True,
        dir_okay=False,
        help="YAML: model -> {input, output[, cached_input]} in USD per million tokens (docs/report.md); adds "
        "cost to the token figures.",
    ),
]
