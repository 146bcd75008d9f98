"""Figures people read: every size tick and point labelled, heat-map cells readable and never "-0",
and one unit (fractions, as in Table 2) in `score`, the report and the leaderboard."""

from __future__ import annotations

import struct
from pathlib import Path

from typer.testing import CliRunner

from robustcall.cli.main import app
from robustcall.metrics import frac, heat_text
from robustcall.report._figures import PAGE_WIDTH_PX, drop_heatmap, retention_figure
from robustcall.report._write import load_runs

runner = CliRunner()


def _ok(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def test_heat_cells_and_fractions_are_written_one_way() -> None:
    assert [heat_text(x) for x in (0.123, -0.049, -0.004, 0.0, 0.004, 1.0, -0.3)] == [
        ".12", "-.05", "0", "0", "0", "1.00", "-.30",
    ]  # fmt: skip
    assert (frac(0.6434, 0.0651), frac(-0.0001), frac(0.12, signed=True), frac(None)) == (
        "0.643 ± 0.065", "0.000", "+0.120", "—",
    )  # fmt: skip


def _png_width(png: bytes) -> int:
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    return int(struct.unpack(">I", png[16:20])[0])


def test_figures_of_five_runs(tmp_path: Path) -> None:
    bench = tmp_path / "bench"
    _ok("build", "--sources", "bfcl", "--seed", "0", "--out", str(bench), "--per-source", "bfcl=8")
    policies = ("oracle", "give_up_after_error", "always_first_tool", "repeat_same_call", "name_biased")
    for p in policies:
        _ok("run", "--bench", str(bench), "--model", f"scripted:{p}", "--out", str(tmp_path / p))
        _ok("score", str(tmp_path / p), "--bootstrap", "0")  # a report reads what `score` wrote
    runs = load_runs([tmp_path / p for p in policies], resamples=0, seed=0)
    sizes = {"scripted:oracle": 0.5, "scripted:give_up_after_error": 1.5, "scripted:always_first_tool": 7.0}
    sizes["scripted:repeat_same_call"] = 32.0

    fig = retention_figure(runs, sizes)
    assert fig is not None
    ax = fig.axes[0]
    fig.canvas.draw()
    assert [t.get_text() for t in ax.get_xticklabels()] == ["0.5", "1.5", "7", "32"]  # every tick labelled
    assert not ax.xaxis.get_minorticklocs().size  # and no unlabelled ones
    assert {t.get_text() for t in ax.texts} == set(sizes)  # every point named

    # 22 types x 5 runs: drawn no wider than the page shows it (so 9 pt stays 9 pt)
    assert len(runs[0].stats.drop) == 22
    assert _png_width(drop_heatmap(runs)) <= PAGE_WIDTH_PX

    # one unit everywhere: the oracle's Clean accuracy is 1.000 in score, report and leaderboard
    scored = _ok("score", str(tmp_path / "oracle"), "--bootstrap", "0")
    assert "1.000" in scored and "%" not in scored
    out = tmp_path / "report"
    _ok("report", *(str(tmp_path / p) for p in policies), "--out", str(out), "--resamples", "0")
    assert "scripted:oracle,this report,—,1,1.000,1.000" in (out / "table2.csv").read_text()
