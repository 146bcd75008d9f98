"""The ``robustcall`` command: one small module per command group, registered here.

The console script (``main``) registers only the module of the command it was asked for: each
module imports what its commands need, and a command should not pay for every other command's
imports at start-up (all of them: half a second). ``app``, the whole command tree, is built on
first use (``robustcall --help``, tests, an unknown command)."""

from __future__ import annotations

import gc
import importlib
import os
import sys
from collections.abc import Iterable
from functools import cache
from typing import Annotated, Any

import typer

COMMAND_MODULES: dict[str, str] = {
    "data": "data_cmd",
    "audit": "build_cmd",
    "build": "build_cmd",
    "model": "model_cmd",
    "run": "eval_cmd",
    "merge": "eval_cmd",
    "score": "eval_cmd",
    "bench": "eval_cmd",
    "card": "card_cmd",
    "envs": "envs_cmd",
    "export": "export_cmd",
    "import": "export_cmd",
    "report": "report_cmd",
    "compare": "compare_cmd",
    "leaderboard": "leaderboard_cmd",
    "faults": "faults_cmd",
    "mcp": "mcp_cmd",
    "pipe": "pipe_cmd",
    "rm": "rm_cmd",
    "train": "train_cmd",
    "types": "types_cmd",
    "validate": "validate_cmd",
}
"""Each top-level command -> the ``robustcall.cli`` module that registers it (in the help's order)."""


def _version_line() -> str:
    """The version and whether the scoring path runs compiled (``compiled 11/11``) or as plain Python."""
    from robustcall import __version__
    from robustcall._native import compiled_status

    return f"robustcall {__version__} (scoring path: {compiled_status()})"


def _print_version(value: bool) -> None:
    if value:
        typer.echo(_version_line())
        raise typer.Exit()


def _root(
    ctx: typer.Context,
    version: Annotated[
        bool,
        typer.Option("--version", callback=_print_version, is_eager=True, help="Print the version and exit."),
    ] = False,
    debug: Annotated[
        bool, typer.Option("--debug", help="Show the traceback of every error (also ROBUSTCALL_DEBUG=1).")
    ] = False,
) -> None:
    """Measure how tool-calling LLM agents hold up outside clean benchmarks.

    Errors you can fix end in a one- or two-line message; exit status 1 for those, 2 for a bad
    command line, 3 for a run that finished with more infrastructure errors than allowed, 4 for
    `compare` when its regression gate fails.
    """
    from robustcall.cli._progress import log_progress

    ctx.with_resource(log_progress())  # progress lines in a log, when stdout is not a terminal


def version() -> None:
    """Print the robustcall version and whether the scoring path runs compiled (as --version)."""
    typer.echo(_version_line())


def make_app(modules: Iterable[str] | None = None) -> typer.Typer:
    """The ``robustcall`` command with the commands of ``modules`` (default: all of them)."""
    from robustcall.cli._errors import RobustcallGroup

    root = typer.Typer(
        name="robustcall",
        help="Measure how tool-calling LLM agents hold up outside clean benchmarks.",
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_show_locals=False,
        cls=RobustcallGroup,
    )
    root.callback()(_root)
    root.command()(version)
    for name in dict.fromkeys(COMMAND_MODULES.values()) if modules is None else modules:
        importlib.import_module(f"robustcall.cli.{name}").register(root)
    return root


@cache
def _whole_app() -> typer.Typer:
    return make_app()


def __getattr__(name: str) -> Any:
    if name == "app":  # `from robustcall.cli.main import app`: the whole command tree
        return _whole_app()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def main(argv: list[str] | None = None) -> Any:
    """The console script: the asked command's module only (the first word that is no option;
    the root takes flags only), the whole tree for help, a bare call or an unknown command."""
    from robustcall.cli._errors import teardown_skipped

    args = sys.argv[1:] if argv is None else argv
    try:
        return _pick(args)(args=args, prog_name="robustcall")
    except SystemExit as done:
        if teardown_skipped() and done.code in (None, 0):
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(0)
        raise


def _pick(args: list[str]) -> typer.Typer:
    """The command tree for ``args``, built with the cyclic garbage collector paused: the modules it
    imports make objects that live as long as the process, and the collector's passes over them
    while they load find nothing (10 ms of every start)."""
    word = next((a for a in args if not a.startswith("-")), None)
    module = COMMAND_MODULES.get(word or "")
    collecting = gc.isenabled()
    gc.disable()
    try:
        if module is not None:
            return make_app([module])
        if word == "version" or (word is None and "--version" in args and "--help" not in args):
            return make_app([])
        return _whole_app()
    finally:
        if collecting:
            gc.enable()


if __name__ == "__main__":
    main()
