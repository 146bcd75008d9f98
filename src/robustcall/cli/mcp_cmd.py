"""``robustcall mcp``: run an agent over real MCP servers under perturbations, renames and faults
(``run``), summarise a run (``report``), and score an agent we do not run from the proxy's log
(``score``). The proxy alone is ``robustcall faults mcp-proxy``."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from robustcall.cli._errors import CommandError
from robustcall.cli._options import (
    CONCURRENCY_HELP,
    FormatOpt,
    MaxStepsOpt,
    ModeOpt,
    ResumeOpt,
    SeedOpt,
    SettingsOpt,
    check_format,
    check_mode,
)
from robustcall.cli._rewriter import LLMSettingsOpt, RewriterOpt, make_rewriter

console = Console(stderr=True)
mcp_app = typer.Typer(help="Robustness over real MCP servers: task runs, reports, scoring a proxy log.",
                      no_args_is_help=True)  # fmt: skip

SUITE = "suite"
"""``--tasks suite``: the task file shipped with robustcall (30 tasks over git, sqlite, time, notes)."""


def _tasks_path(spec: str) -> Path:
    if spec == SUITE:
        from importlib.resources import files

        return Path(str(files("robustcall.mcp") / "suite" / "tasks.yaml"))
    return Path(spec)


@mcp_app.command("run")
def run(
    tasks: Annotated[str, typer.Option("--tasks", help="Task file (YAML/JSONL), or `suite` for the shipped one.")],
    model: Annotated[str, typer.Option("--model", "-m", help="Model spec (openai:<m>@<url>, local, scripted:expert).")],
    out: Annotated[Path, typer.Option("--out", help="Run directory: one sub-directory per condition.")],
    perturb: Annotated[
        str, typer.Option("--perturb", help="Perturbation conditions: comma list of type codes, or `tools`.")
    ] = "",
    rename: Annotated[
        list[str] | None,
        typer.Option("--rename", help="Rename condition: synonym, symbol, or dual (both orders; IR) (repeatable)."),
    ] = None,
    profile: Annotated[
        list[str] | None, typer.Option("--profile", help="Fault condition: a profile name or file (repeatable).")
    ] = None,
    delta: Annotated[float | None, typer.Option("--delta", help="δ of every --profile.")] = None,
    limit: Annotated[int | None, typer.Option("--limit", min=1, help="Only the first N tasks.")] = None,
    task: Annotated[list[str] | None, typer.Option("--task", help="Only this task id (repeatable).")] = None,
    record: Annotated[Path | None, typer.Option("--record", help="Keep every upstream exchange under DIR.")] = None,
    replay: Annotated[
        Path | None, typer.Option("--replay", help="Answer every call from recordings under DIR (no servers).")
    ] = None,
    seed: SeedOpt = 0,
    max_steps: MaxStepsOpt = 10,
    fmt: FormatOpt = "tool_call",
    mode: ModeOpt = None,
    concurrency: Annotated[
        int | None,
        typer.Option(
            "--concurrency",
            min=1,
            help=CONCURRENCY_HELP + " Here by default 1: episodes drive their MCP servers one call at a time.",
        ),
    ] = None,
    resume: ResumeOpt = False,
    settings: SettingsOpt = None,
    rewriter: RewriterOpt = "offline",
    llm_model: Annotated[
        list[str] | None,
        typer.Option("--llm-model", help="Model of --rewriter llm (as `build`'s --llm-model; --model is the agent)."),
    ] = None,
    llm_base_url: Annotated[
        str | None, typer.Option("--llm-base-url", help="OpenAI-compatible base URL for bare --llm-model names.")
    ] = None,
    llm_settings: LLMSettingsOpt = None,
) -> None:
    """Run every task clean and under each perturbation, rename and fault profile asked for."""
    from robustcall.mcp import condition_rows, load_tasks, markdown, parse_conditions, run_mcp

    check_mode(mode)
    chosen_fmt = check_format(fmt)
    if record is not None and replay is not None:
        raise typer.BadParameter("--record and --replay exclude each other")
    if replay is not None and not replay.is_dir():
        raise typer.BadParameter(f"no recording folder {replay}", param_hint="--replay")
    path = _tasks_path(tasks)
    suite = load_tasks(path)
    chosen = make_rewriter(rewriter, llm_model, llm_base_url, llm_settings) if perturb else None
    conditions = parse_conditions(perturb, rename or [], profile or [], delta, rewriter=chosen)
    runs = asyncio.run(
        run_mcp(suite, path, model, out, conditions, limit=limit, only=task, seed=seed, max_steps=max_steps,
                fmt=chosen_fmt, mode=mode, concurrency=concurrency or 1, resume=resume, record=record, replay=replay,
                settings=settings)
    )  # fmt: skip
    rows = condition_rows(runs, seed=seed)
    (out / "summary.json").write_text(json.dumps(rows, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    typer.echo(markdown(rows), nl=False)
    infra = sum(r["infra"] for r in rows)
    if infra:
        console.print(f"{infra} episode(s) ended in an infrastructure error; `--resume` plays them again")


@mcp_app.command("report")
def report(run_dir: Annotated[Path, typer.Argument(help="The --out folder of `mcp run`.")]) -> None:
    """Print the figures of an MCP run (success, Δ vs clean, RASR / RR / EIA / UFR, legacy calls)."""
    from robustcall.core import read_trajectories
    from robustcall.mcp import MANIFEST, condition_rows, markdown

    manifest = run_dir / MANIFEST
    if not manifest.is_file():
        raise CommandError(f"{run_dir} is not an `mcp run` folder (no {MANIFEST})")
    data = json.loads(manifest.read_text(encoding="utf-8"))
    runs = {c: read_trajectories(run_dir / c, what="an MCP run") for c in data["conditions"]}
    typer.echo(markdown(condition_rows(runs, seed=int(data.get("seed", 0)))), nl=False)


@mcp_app.command("score")
def score(
    log: Annotated[Path, typer.Option("--log", help="The proxy's log (`faults mcp-proxy --log-calls --session`).")],
    outcomes: Annotated[Path, typer.Option("--outcomes", help="JSONL: {task, condition, success} per episode.")],
    out: Annotated[Path | None, typer.Option("--out", help="Also write the figures here (JSON).")] = None,
) -> None:
    """Score an agent we do not run: its own outcomes plus what the proxy saw, as `mcp run` reports."""
    from robustcall.mcp import condition_rows, markdown, trajectories_from_log

    runs = trajectories_from_log(log, outcomes)
    rows = condition_rows(runs)
    if out is not None:
        out.write_text(json.dumps(rows, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    typer.echo(markdown(rows), nl=False)


def register(app: typer.Typer) -> None:
    app.add_typer(mcp_app, name="mcp")
