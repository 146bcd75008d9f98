"""``robustcall faults``: fault-injection runs, sweeps, reports, recovery SFT data and the MCP proxy."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

console = Console(stderr=True)

faults_app = typer.Typer(
    name="faults",
    help="Stress-test agents with injected tool faults (taxonomy, RR / RASR / EIA / UFR, MCP proxy).",
    no_args_is_help=True,
)

ProfileOpt = Annotated[
    str,
    typer.Option(
        "--profile",
        help="A fault profile file (YAML/JSON) or a built-in: default, execution, semantic, "
        "nonstationary, transient, permanent.",
    ),
]


@faults_app.command("mcp-proxy")
def mcp_proxy(
    upstream: Annotated[
        str,
        typer.Option(
            "--upstream", help='Upstream MCP server: a command line ("uvx mcp-server-time") or an http(s) URL.'
        ),
    ],
    profile: ProfileOpt = "default",
    delta: Annotated[float | None, typer.Option("--delta", help="Override the profile's global rate δ.")] = None,
    seed: Annotated[int | None, typer.Option("--seed", help="Override the profile's seed.")] = None,
    log: Annotated[Path | None, typer.Option("--log", help="Append every injection to this JSONL file.")] = None,
    transport: Annotated[
        str, typer.Option("--transport", help="stdio or http (streamable HTTP on 127.0.0.1).")
    ] = "stdio",
    port: Annotated[int, typer.Option("--port", help="Port for --transport http.")] = 8765,
) -> None:
    """Serve an MCP proxy that forwards tools to UPSTREAM and injects the profile's faults."""
    from robustcall.faults import load_profile

    if transport not in ("stdio", "http"):
        raise typer.BadParameter(f"--transport must be stdio or http, got {transport!r}")
    try:
        prof = load_profile(profile)
    except (OSError, ValueError) as exc:
        raise typer.BadParameter(str(exc)) from None
    if delta is not None:
        prof = prof.with_delta(delta)
    if seed is not None:
        prof = prof.model_copy(update={"seed": seed})
    from robustcall.faults.mcp_proxy import serve

    asyncio.run(serve(upstream, prof, log_path=log, transport=transport, port=port))


@faults_app.command("report")
def report(
    runs: Annotated[list[Path], typer.Argument(help="Run directories of `faults run` / `faults sweep`.")],
    delta: Annotated[float, typer.Option("--delta", help="The δ of Tables 1, 2, 5 and 6.")] = 0.3,
    out: Annotated[
        Path | None, typer.Option("--out", help="Also write the tables (Markdown) and numbers (JSON).")
    ] = None,
) -> None:
    """Tables 1, 2, 3, 5 and 6 (TSR, RASR, RR, UFR, EIA, recovery by class, δ sweep, steps, failure modes)."""
    from robustcall.faults._bench import read_trajectories
    from robustcall.metrics._fault_report import fault_report, report_markdown

    trajectories = []
    for run in runs:
        try:
            trajectories += read_trajectories(run)
        except (OSError, ValueError) as exc:
            raise typer.BadParameter(str(exc)) from None
    try:
        rep = fault_report(trajectories, table_delta=delta)
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from None
    text = report_markdown(rep)
    typer.echo(text)
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        (out / "report.md").write_text(text)
        (out / "report.json").write_text(rep.model_dump_json(indent=2) + "\n")


def register(app: typer.Typer) -> None:
    app.add_typer(faults_app)
