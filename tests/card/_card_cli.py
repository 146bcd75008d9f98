"""Making a card through the CLI (shared by the card tests' fixtures and the resume test)."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from robustcall.cli.main import app


def make_card(out: Path, args: list[str]) -> Path:
    res = CliRunner().invoke(app, ["card", *args, "--out", str(out)])
    assert res.exit_code == 0, res.output
    return out
