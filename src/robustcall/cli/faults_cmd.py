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


def register(app: typer.Typer) -> None:
    app.add_typer(faults_app)
