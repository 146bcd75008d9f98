"""``robustcall data fetch`` / ``robustcall data list`` through Typer's runner."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from robustcall.cli.main import app

runner = CliRunner()


def test_data_fetch_bfcl_prints_the_cached_wheel(bfcl_wheel: Path) -> None:
    result = runner.invoke(app, ["data", "fetch", "bfcl"])
    assert result.exit_code == 0, result.output
    assert str(bfcl_wheel) in result.output


def test_data_fetch_other_sources_is_refused() -> None:
    result = runner.invoke(app, ["data", "fetch", "rotbench"])
    assert result.exit_code == 2
    assert "read from --data-dir" in result.output


def test_data_list_shows_counts_and_skip_reasons(shared_data: Path, bfcl_wheel: Path) -> None:
    result = runner.invoke(app, ["data", "list", "--data-dir", str(shared_data)], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    row = {name: next(line for line in lines if f" {name} " in line) for name in ("bfcl", "apibank", "toolalpaca")}
    assert "3475" in row["bfcl"]
    assert "455" in row["apibank"] and "gold call disagrees with API-Bank dialogue: 5" in row["apibank"]
    assert "67" in row["toolalpaca"]
    assert "unparseable action input: 24" in result.output


def test_data_list_without_data_dir_marks_the_data_dir_sources(bfcl_wheel: Path) -> None:
    result = runner.invoke(app, ["data", "list", "--sources", "bfcl,tooleyes"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "needs --data-dir" in result.output
    assert "3475" in result.output


def test_data_list_rejects_unknown_sources() -> None:
    result = runner.invoke(app, ["data", "list", "--sources", "bfcl,nope"])
    assert result.exit_code == 2
