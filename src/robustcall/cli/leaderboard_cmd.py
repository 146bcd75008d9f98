"""``robustcall leaderboard serve``: the leaderboard web service."""

from __future__ import annotations

from pathlib import Path

import typer

from robustcall.cli._errors import CommandError

leaderboard = typer.Typer(help="The RobustBench-TC leaderboard service.", no_args_is_help=True)


@leaderboard.command()
def serve(
    bench: Path = typer.Option(..., exists=True, file_okay=False, help="A `robustcall build` output directory."),
    db: str = typer.Option("sqlite:///leaderboard.db", help="SQLAlchemy URL: sqlite:///FILE or postgresql+psycopg://…"),
    host: str = typer.Option("127.0.0.1", help="Interface to bind."),
    port: int = typer.Option(8000, min=1, max=65535, help="Port to bind."),
    admin_token: str | None = typer.Option(
        None, envvar="ROBUSTCALL_ADMIN_TOKEN", help="Token that authorises deletion (default: deletion disabled)."
    ),
    max_upload_mb: int = typer.Option(50, min=1, help="Largest accepted upload (413 past it, before reading it)."),
    tokens: Path | None = typer.Option(
        None,
        exists=True,
        dir_okay=False,
        envvar="ROBUSTCALL_UPLOAD_TOKENS",
        help="YAML/JSON {token: [model name or pattern, ...]}: uploads then need a token allowed that name.",
    ),
    max_storage_mb: int = typer.Option(2048, min=0, help="Total storage for submissions (0: no limit; 507 past it)."),
    uploads_per_hour: int = typer.Option(30, min=0, help="Upload attempts per client address per hour (0: no limit)."),
    page_size: int = typer.Option(50, min=1, max=500, help="Rows per page of the ranked table."),
    forwarded_allow_ips: str = typer.Option(
        "",
        help="Comma-separated proxy addresses whose X-Forwarded-For is believed (default: none; the rate "
        "limit then counts the connecting address).",
    ),
    max_connections: int = typer.Option(
        0, min=0, help="Open client connections at most; past it the oldest idle one is closed (0: fit `ulimit -n`)."
    ),
    header_timeout: float = typer.Option(
        10.0, min=0.1, help="Seconds a client has to send a request's headers before its connection is closed."
    ),
    paper: bool = typer.Option(
        True, "--paper/--no-paper", help="Rank the paper's 21 models (Tables 2 and 7-14) among the submissions."
    ),
    workers: int = typer.Option(
        1,
        min=1,
        max=64,
        help="Serving processes sharing the port (each with its own cache and scoring process); "
        "PostgreSQL or SQLite (writers are serialised across processes).",
    ),
) -> None:
    """Serve the upload page, the ranked table, per-submission pages and the JSON API."""
    import dataclasses
    import socket

    import uvicorn
    from starlette.applications import Starlette

    from robustcall.web import (
        ConnectionLimits,
        Limits,
        StoreError,
        TokenBook,
        TokenError,
        create_app,
        listening_socket,
        serve_workers,
        server_config,
    )

    try:
        book = TokenBook.load(tokens)
    except TokenError as exc:
        raise typer.BadParameter(str(exc), param_hint="--tokens") from None
    limits = Limits(
        max_upload_bytes=max_upload_mb * 2**20,
        max_storage_bytes=max_storage_mb * 2**20 if max_storage_mb else None,
        uploads_per_hour=uploads_per_hour,
        page_size=page_size,
    )
    connections = ConnectionLimits.for_descriptor_limit(header_timeout_s=header_timeout)
    if max_connections:
        connections = dataclasses.replace(connections, max_connections=max_connections)
    proxies = [ip.strip() for ip in forwarded_allow_ips.split(",") if ip.strip()]

    def make_app() -> Starlette:
        return create_app(bench, db, admin_token=admin_token, tokens=book, limits=limits, paper_rows=paper)

    def config(app: Starlette) -> uvicorn.Config:
        return server_config(app, host=host, port=port, limits=connections, forwarded_allow_ips=proxies)

    try:
        first = make_app()  # the database checked (and made) once, before any worker starts
    except StoreError as exc:
        raise CommandError(f"--db: {exc}", hint=exc.hint, exit_code=exc.exit_code) from None
    if workers == 1:
        uvicorn.Server(config(first)).run()
        return
    first.state.store.dispose()  # each worker opens its own connections

    def make_socket() -> socket.socket:
        return listening_socket(host, port, connections.backlog, reuse_port=True)

    try:
        make_socket().close()  # a taken port fails here, once, before any worker starts
    except OSError as exc:
        raise CommandError(f"cannot listen on {host}:{port}: {exc.strerror}", exit_code=3) from None
    raise typer.Exit(serve_workers(lambda: config(make_app()), make_socket, workers))


def register(app: typer.Typer) -> None:
    app.add_typer(leaderboard, name="leaderboard")
