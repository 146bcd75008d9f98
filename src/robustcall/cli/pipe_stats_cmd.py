"""``robustcall pipe stats``: paper 002's Tables 24 / 25 for our environments (what needs no trajectories,
and the rest from runs given)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from robustcall.cli._errors import CommandError, describe
from robustcall.cli._options import FormatOpt, LimitTasksOpt, SeedOpt, check_format

if TYPE_CHECKING:
    from robustcall.interface import EnvStats


def _data_for(env: str, data_dir: Path | None) -> Path | None:
    """The data folder an environment reads: ``data_dir / <the folder its example path names>``."""
    from robustcall.envs import ENVS

    kind = ENVS.get(env)
    if kind is None or kind.needs_data is None or data_dir is None:
        return None
    return data_dir / Path(kind.needs_data).name


def stats_cmd(
    env: Annotated[
        list[str] | None,
        typer.Option("--env", help="Environment (repeatable; default: every registered one that can be built)."),
    ] = None,
    data_dir: Annotated[
        Path | None,
        typer.Option("--data-dir", help="Folder laid out like ../shared/data (wordle/, agentbench_dbbench/)."),
    ] = None,
    trajectories: Annotated[
        list[Path] | None,
        typer.Option("--trajectories", help="`pipe run` folders: #Trajectories and rounds per environment."),
    ] = None,
    limit: LimitTasksOpt = None,
    fmt: FormatOpt = "tool_call",
    seed: SeedOpt = 0,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Also write the table (MD, CSV, LaTeX) here.")] = None,
) -> None:
    """#Functions, tasks, tools and prompt length per interface level for each environment (Tables 24 / 25)."""
    from robustcall.core import TRAJECTORIES, UserError
    from robustcall.envs import env_names
    from robustcall.report import pipe_env_table
    from robustcall.run import add_trajectories, env_stats, read_trajectories

    out_fmt = check_format(fmt)
    missing = [str(r) for r in trajectories or [] if not (r / TRAJECTORIES).is_file()]
    if missing:
        raise CommandError(f"not a `robustcall pipe run` folder (no {TRAJECTORIES}): {', '.join(missing)}")
    stats: list[EnvStats] = []
    for name in env or env_names():
        try:
            stats.append(env_stats(name, _data_for(name, data_dir), limit=limit, fmt=out_fmt, seed=seed))
        except (UserError, ValueError, ImportError, OSError) as exc:
            if env:  # asked for by name: say why it cannot be measured
                raise CommandError(f"{name}: {describe(exc)}") from None
            typer.echo(f"note: {name} left out: {describe(exc)}", err=True)
    if not stats:
        raise CommandError("no environment could be built", hint="name one with --env (and --data-dir)")
    add_trajectories(stats, [t for r in trajectories or [] for t in read_trajectories(r, what="a `pipe run`")])
    table = pipe_env_table(stats)
    typer.echo(table.markdown())
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        for ext, text in (("md", table.markdown()), ("csv", table.csv()), ("tex", table.latex())):
            (out / f"{table.name}.{ext}").write_text(text, encoding="utf-8")


def register(app: typer.Typer) -> None:
    """Add ``pipe stats``."""
    app.command("stats")(stats_cmd)
