"""``robustcall leaderboard serve``: the leaderboard web service."""

from __future__ import annotations

from pathlib import Path

import typer

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
    max_upload_mb: int = typer.Option(50, min=1, help="Largest accepted upload."),
) -> None:
    """Serve the upload page, the ranked table, per-submission pages and the JSON API."""
    import uvicorn

    from robustcall.web import create_app

    app = create_app(bench, db, admin_token=admin_token, max_bytes=max_upload_mb * 2**20)
    uvicorn.run(app, host=host, port=port, log_level="info")


def register(app: typer.Typer) -> None:
    app.add_typer(leaderboard, name="leaderboard")
