"""The report keeps Appendix N's axes (beyond the paper) in their own table; Table 2 does not move."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from robustcall.cli.main import app


def _run(runner: CliRunner, bench: Path, out: Path, types: str) -> None:
    args = ["run", "--bench", str(bench), "--model", "scripted:obey_instructions", "--types", types]
    result = runner.invoke(app, [*args, "--out", str(out)])
    assert result.exit_code == 0, result.output
    result = runner.invoke(app, ["score", str(out)])
    assert result.exit_code == 0, result.output


def test_beyond_axes_get_their_own_table_and_leave_table2_alone(tmp_path: Path) -> None:
    runner = CliRunner()
    bench = tmp_path / "bench"
    result = runner.invoke(
        app, ["build", "--sources", "bfcl", "--per-source", "bfcl=6", "--types", "all", "--out", str(bench)]
    )
    assert result.exit_code == 0, result.output
    _run(runner, bench, tmp_path / "paper", "static")
    _run(runner, bench, tmp_path / "both", "static,beyond")
    reports = {}
    for name in ("paper", "both"):
        out = tmp_path / f"report-{name}"
        result = runner.invoke(app, ["report", str(tmp_path / name), "--out", str(out)])
        assert result.exit_code == 0, result.output
        reports[name] = out
    assert (reports["paper"] / "table2.md").read_text() == (reports["both"] / "table2.md").read_text()
    assert not (reports["paper"] / "beyond.md").exists()
    beyond = (reports["both"] / "beyond.md").read_text()
    assert "Inject ASR" in beyond and "Ctx-32k" in beyond
    row = next(line for line in beyond.splitlines() if line.startswith("| scripted:obey_instructions"))
    assert row.split("|")[-3].strip() == "1.000 ± 0.000"  # the policy obeys every injection: ASR 1.0
    assert "Beyond the paper" in (reports["both"] / "report.html").read_text()
