"""``robustcall envs``: serve any environment (PIPE-rewritten or fault-injected) over AgentGym's API."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from robustcall.cli._errors import describe

envs = typer.Typer(help="Environments: serve them over AgentGym's environment-server API.", no_args_is_help=True)


@envs.command("serve")
def serve(
    env: Annotated[str, typer.Option("--env", help="A registered environment or package.module:Class.")],
    protocol: Annotated[str, typer.Option("--protocol", help="agentgym (its env-server API).")] = "agentgym",
    data: Annotated[Path | None, typer.Option("--data", help="Data the environment needs (wordle, dbbench).")] = None,
    level: Annotated[str, typer.Option("--level", help="PIPE interface: origin | synonym | symbol | dual.")] = "origin",
    order: Annotated[int, typer.Option("--order", min=1, max=2, help="dual only: 1 synonyms first, 2 originals.")] = 1,
    faults: Annotated[
        str | None, typer.Option("--faults", help="Inject faults by this profile (a built-in name or a YAML file).")
    ] = None,
    delta: Annotated[float | None, typer.Option("--delta", min=0.0, max=1.0, help="The profile's δ.")] = None,
    host: Annotated[str, typer.Option("--host", help="Bind address (loopback by default).")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", min=1, max=65535)] = 36001,
    full_vocab: Annotated[
        bool,
        typer.Option(
            "--full-vocab",
            help="Wordle: /wordle/filtered_vocab lists every valid guess (12,972 on the official lists) instead "
            "of the short list of possible answers AgentGym's clients expect (it goes into their first prompt).",
        ),
    ] = False,
) -> None:
    """Serve ENV over AgentGym's API (/create, /reset, /step, ...) with a PIPE level and / or fault profile."""
    from robustcall.core import InputError
    from robustcall.envs import Env, load_env
    from robustcall.faults import FaultyEnv, load_profile
    from robustcall.interface import MODES, InterfaceEnv, interface_map
    from robustcall.interop import agentgym_app

    if protocol != "agentgym":
        raise typer.BadParameter(f"unknown protocol {protocol!r}; known: agentgym", param_hint="--protocol")
    if level not in MODES:
        raise typer.BadParameter(f"unknown level {level!r}; valid: {', '.join(MODES)}", param_hint="--level")
    try:
        make_inner = load_env(env, data)
        first = make_inner()
        imap = interface_map(env, first, None) if level != "origin" else None
        profile = load_profile(faults) if faults else None
    except (ValueError, KeyError, OSError) as exc:  # bad environment, map or profile: the user's to fix
        raise InputError(str(exc.args[0]) if type(exc) is KeyError and exc.args else describe(exc)) from None
    if profile is not None and delta is not None:
        profile = profile.with_delta(delta)

    def make_env() -> Env:
        served: Env = make_inner()
        if imap is not None:
            served = InterfaceEnv(served, imap, level, 1 if order == 1 else 2)
        if profile is not None:
            served = FaultyEnv(served, profile)
        return served

    import uvicorn

    app = agentgym_app(make_env, first.name, level, full_vocab=full_vocab)
    typer.echo(
        f"serving {first.name} ({level}{', faults ' + faults if faults else ''}) on http://{host}:{port}", err=True
    )
    uvicorn.run(app, host=host, port=port, log_level="warning")


def register(app: typer.Typer) -> None:
    app.add_typer(envs, name="envs")
