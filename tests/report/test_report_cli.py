"""``robustcall report`` end to end on runs made by scripted policies (no model needed)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from robustcall.cli.main import app

runner = CliRunner()


def _invoke(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def test_report_on_three_scripted_runs(tmp_path: Path) -> None:
    bench = tmp_path / "bench"
    _invoke("build", "--sources", "bfcl", "--seed", "0", "--out", str(bench))
    runs = []
    for policy in ("oracle", "give_up_after_error", "always_first_tool"):
        run = tmp_path / policy
        _invoke("run", "--bench", str(bench), "--model", f"scripted:{policy}", "--limit", "4", "--out", str(run))
        runs.append(str(run))
    sizes = tmp_path / "sizes.yaml"
    sizes.write_text("scripted:oracle: 7\nscripted:give_up_after_error: 1.5\nscripted:always_first_tool: 0.5\n")
    out = tmp_path / "report"
    _invoke(
        "report",
        *runs,
        "--out",
        str(out),
        "--baseline",
        "scripted:give_up_after_error",
        "--sizes",
        str(sizes),
        "--resamples",
        "500",
    )

    names = {p.name for p in out.iterdir()}
    for stem in (
        "table2",
        "per_type_observation",
        "per_type_action",
        "per_type_reward",
        "per_type_transition",
        "error_modes",
    ):
        assert {f"{stem}.md", f"{stem}.csv", f"{stem}.tex"} <= names
    assert {"drop_heatmap.png", "retention_vs_size.png", "drops_vs_size.png", "report.html", "report.json"} <= names

    rows = (out / "table2.csv").read_text().splitlines()
    assert rows[0] == "Model,Family,Type,Rank,Clean ↑,Pert. Acc. ↑,Δ_Obs ↓,Δ_Act ↓,Δ_Rew ↓,Δ_Trn ↓,Retention ↑"
    # sorted by Pert. Acc.: the oracle answers everything, giving up after an error loses Transition
    assert rows[1].startswith("scripted:oracle,this report,—,1,1.000 ± 0.000,1.000 ± 0.000")
    assert rows[2].startswith("scripted:give_up_after_error (baseline),this report,—,")
    assert len(rows) == 1 + 3 + 21  # the paper's 21 reference rows follow the runs'
    assert rows[4].startswith("ToolRL-DR-Full (paper),Our 3B trained checkpoints,fine-tuned,")
    stats = json.loads((out / "report.json").read_text())
    oracle, quitter = stats["scripted:oracle"], stats["scripted:give_up_after_error"]
    assert oracle["delta"]["transition"]["value"] == 0.0
    # give-up scores 0 on every transition sample that calls a tool: its Δ_Trn is Clean - 0 = 1 here
    assert quitter["delta"]["transition"]["value"] == 1.0
    # the oracle's Δ_Trn differs from the baseline's on every paired source, but there are 4: the
    # bootstrap's p = 0 is no evidence an exact paired test would back (p >= 2/2^4 = 0.125), so no marker
    assert "*" not in rows[1]
    assert (
        "Paired samples: scripted:oracle: Clean n = 4, m = 0; Pert. Acc. n = 4, m = 4 |"
        in (out / "table2.md").read_text()
    )
    assert r"\begin{tabular}" in (out / "table2.tex").read_text()
    page = (out / "report.html").read_text()
    assert page.count("data:image/png;base64,") == 3 and "scripted:always_first_tool" in page
    assert (out / "drop_heatmap.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_unknown_baseline_is_a_clear_error(tmp_path: Path) -> None:
    bench, run = tmp_path / "bench", tmp_path / "run"
    _invoke("build", "--sources", "bfcl", "--seed", "0", "--out", str(bench))
    _invoke(
        "run",
        "--bench",
        str(bench),
        "--model",
        "scripted:oracle",
        "--limit",
        "2",
        "--types",
        "realistic_typos",
        "--out",
        str(run),
    )
    result = runner.invoke(app, ["report", str(run), "--out", str(tmp_path / "r"), "--baseline", "nope"])
    assert result.exit_code != 0 and "--baseline 'nope' is none of the runs" in result.output


def test_tables_say_how_their_intervals_were_resampled(tmp_path: Path) -> None:
    bench, run = tmp_path / "bench", tmp_path / "run"
    _invoke("build", "--sources", "bfcl", "--seed", "0", "--out", str(bench), "--per-source", "bfcl=4")
    _invoke("run", "--bench", str(bench), "--model", "scripted:always_first_tool", "--out", str(run))
    _invoke("report", str(run), "--out", str(tmp_path / "a"), "--resamples", "200")
    _invoke("report", str(run), "--out", str(tmp_path / "b"), "--resamples", "200", "--resampling", "clustered")
    paper, paired = (json.loads((tmp_path / d / "report.json").read_text()) for d in ("a", "b"))
    assert [r["resampling"] for r in (*paper.values(), *paired.values())] == ["per-sample", "clustered"]
    for d, how in (("a", "per-sample: the records of each group"), ("b", "clustered: source samples")):
        for stem in ("table2", "per_type_action"):
            assert f"(B = 200; {how}" in (tmp_path / d / f"{stem}.md").read_text()
    # the point values do not depend on how the intervals were resampled
    (a,), (b,) = paper.values(), paired.values()
    assert a["delta"]["action"]["value"] == b["delta"]["action"]["value"] is not None
    assert a["pert_acc"]["ci95"] != b["pert_acc"]["ci95"]
    bad = runner.invoke(app, ["report", str(run), "--out", str(tmp_path / "c"), "--resampling", "paired"])
    assert bad.exit_code != 0 and "per-sample, clustered" in bad.output
    # `score` takes the same choice and B = 10,000 by default; its table says which it used
    out = _invoke("score", str(run))
    summary = json.loads((run / "summary.json").read_text())
    assert (summary["bootstrap_resamples"], summary["resampling"]) == (10_000, "per-sample")
    assert "B = 10,000, records resampled per group" in out
    _invoke("score", str(run), "--bootstrap", "200", "--resampling", "clustered")
    summary = json.loads((run / "summary.json").read_text())
    assert (summary["bootstrap_resamples"], summary["resampling"]) == (200, "clustered")
    assert summary["delta"]["action"]["value"] == a["delta"]["action"]["value"]


def test_baseline_and_sizes_by_run_folder_and_what_was_left_out(tmp_path: Path) -> None:
    bench = tmp_path / "bench"
    _invoke("build", "--sources", "bfcl", "--seed", "0", "--out", str(bench), "--per-source", "bfcl=6")
    runs = []
    for folder, policy in (("a", "oracle"), ("b", "give_up_after_error"), ("c", "always_first_tool")):
        run = tmp_path / folder
        _invoke("run", "--bench", str(bench), "--model", f"scripted:{policy}", "--out", str(run))
        runs.append(str(run))
    sizes = tmp_path / "sizes.yaml"
    sizes.write_text("a: 7\nscripted:give_up_after_error: 1.5\nz: 3\n")  # a folder, a model name, a stray key
    out = tmp_path / "report"
    result = runner.invoke(
        app, ["report", *runs, "--out", str(out), "--baseline", "b", "--sizes", str(sizes), "--resamples", "200"]
    )
    assert result.exit_code == 0, result.output
    assert "3 figures" in result.output
    assert "note: sizes.yaml: 'z' match no run" in result.output
    assert (
        "note: Figures 2 and 3 leave out runs with no size in sizes.yaml: scripted:always_first_tool" in result.output
    )
    rows = (out / "table2.csv").read_text().splitlines()
    assert any(r.startswith("scripted:give_up_after_error (baseline)") for r in rows)
    assert "leave out runs with no size" in (out / "report.html").read_text()
    # a folder given by its path works too; an unknown one lists the runs by name and folder
    by_path = runner.invoke(app, ["report", *runs, "--out", str(tmp_path / "r2"), "--baseline", runs[0]])
    assert by_path.exit_code == 0 and "note: Figures 2 and 3 (against model size) need --sizes" in by_path.output
    bad = runner.invoke(app, ["report", *runs, "--out", str(tmp_path / "r3"), "--baseline", "d"])
    assert bad.exit_code == 1 and "scripted:oracle (folder a)" in bad.output
