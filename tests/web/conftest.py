"""A small built benchmark and scripted-policy submissions for the leaderboard tests."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from robustcall.cli.main import app

PG_URL = os.environ.get("ROBUSTCALL_TEST_PG_URL")


def _invoke(*args: str) -> None:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.output


@pytest.fixture(scope="session")
def lb_data(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """``bench``; ``oracle`` (every record), ``first_tool`` (every record), ``partial`` (4 sources)."""
    root = tmp_path_factory.mktemp("leaderboard")
    bench = root / "bench"
    _invoke("build", "--sources", "bfcl", "--seed", "0", "--out", str(bench))
    out = {"bench": bench}
    for name, policy, limit in (
        ("oracle", "oracle", None),
        ("first_tool", "always_first_tool", None),
        ("partial", "give_up_after_error", "4"),
    ):
        run = root / name
        _invoke(
            "run",
            "--bench",
            str(bench),
            "--model",
            f"scripted:{policy}",
            "--out",
            str(run),
            *(["--limit", limit] if limit else []),
        )
        out[name] = run / "predictions.jsonl"
    return out


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh store: a SQLite file, or a real PostgreSQL (``ROBUSTCALL_TEST_PG_URL``, set by .ci/run)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'lb.db'}"
        return
    if not PG_URL:
        pytest.skip("ROBUSTCALL_TEST_PG_URL not set (.ci/run starts PostgreSQL and sets it)")
    from sqlalchemy import create_engine, text

    engine = create_engine(PG_URL)
    with engine.begin() as conn:
        conn.execute(text("DROP TABLE IF EXISTS submissions"))
    engine.dispose()
    yield PG_URL
