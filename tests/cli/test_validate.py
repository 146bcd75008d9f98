"""``robustcall validate``: every directory the commands write validates against the run-directory
schema; a newer format, a changed file and a bad line are each refused in one line."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from robustcall import __version__
from robustcall.cli.main import app
from robustcall.core import (
    FORMAT_VERSION,
    SCORER_VERSION,
    read_bench_manifest,
    read_run_meta,
    read_trajectory_run_meta,
)
from robustcall.score import run_dirs, validate_run_dir

runner = CliRunner()


def _ok(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def test_every_directory_the_commands_write_validates(tmp_path: Path) -> None:
    bench = tmp_path / "b" / "bench"  # also the benchmark `bench --out b` finds already built
    _ok("build", "--sources", "bfcl", "--seed", "0", "--out", str(bench), "--per-source", "bfcl=4")
    _ok("bench", "--model", "scripted:oracle", "--limit", "2", "--types", "static", "--out", str(tmp_path / "b"))
    args = ["--bench", str(bench), "--model", "scripted:always_first_tool", "--types", "clean,CD,TD"]
    _ok("run", *args, "--out", str(tmp_path / "run"))
    _ok("score", str(tmp_path / "run"), "--bootstrap", "0")
    for i in (0, 1):
        _ok("run", *args, "--shard", f"{i}/2", "--out", str(tmp_path / "shards" / str(i)))
    _ok("merge", str(tmp_path / "shards" / "0"), str(tmp_path / "shards" / "1"), "--out", str(tmp_path / "merged"))
    faults = ["faults", "run", "--env", "maze", "--model", "scripted:oracle", "--limit", "1", "--delta", "0"]
    _ok(*faults, "--out", str(tmp_path / "faults"))
    pipe = ["pipe", "run", "--env", "maze", "--level", "synonym", "--model", "scripted:expert", "--limit", "1"]
    _ok(*pipe, "--out", str(tmp_path / "pipe"))

    found = {str(d.relative_to(tmp_path)) for d in run_dirs(tmp_path)}
    assert found == {"b/bench", "b/run", "run", "shards/0", "shards/1", "merged", "faults", "pipe"}
    assert validate_run_dir(tmp_path) == []
    out = _ok("validate", str(tmp_path))
    assert out.strip() == "8 directories checked: every file matches its schema"

    # what run.json and manifest.json record now: versions, the resolved mode, the settings used
    meta = read_run_meta(tmp_path / "run")
    assert (meta.format_version, meta.robustcall_version, meta.scorer_version) == (
        FORMAT_VERSION,
        __version__,
        SCORER_VERSION,
    )
    assert meta.mode == "fc" and meta.model_settings is None  # a scripted policy has no decoding settings
    merged = read_run_meta(tmp_path / "merged")
    assert merged.shard is None and [p.shard for p in merged.merged_from or []] == ["0/2", "1/2"]
    assert sum(p.records for p in merged.merged_from or []) == len(
        (tmp_path / "run" / "predictions.jsonl").read_text().splitlines()
    )
    assert read_bench_manifest(bench).format_version == FORMAT_VERSION
    fault, pipe_meta = (read_trajectory_run_meta(tmp_path / d) for d in ("faults", "pipe"))
    assert (fault.kind, fault.format_version, fault.deltas) == ("faults", FORMAT_VERSION, [0.0])
    assert (pipe_meta.kind, pipe_meta.format_version, pipe_meta.level) == ("pipe", FORMAT_VERSION, "synonym")

    # a PIPE run from before run.json was written for them is said to lack it
    (tmp_path / "pipe" / "run.json").unlink()
    assert validate_run_dir(tmp_path / "pipe") == [f"{tmp_path / 'pipe'}: no run.json beside trajectories.jsonl"]


def test_problems_are_one_line_each_and_exit_1(tmp_path: Path) -> None:
    bench, run = tmp_path / "bench", tmp_path / "run"
    _ok(
        "build",
        "--sources",
        "bfcl",
        "--seed",
        "0",
        "--out",
        str(bench),
        "--per-source",
        "bfcl=2",
        "--types",
        "CD",
        "--composition",
        "all",
    )
    _ok("run", "--bench", str(bench), "--model", "scripted:oracle", "--types", "clean", "--out", str(run))
    _ok("score", str(run), "--bootstrap", "0")
    assert validate_run_dir(tmp_path) == []
    # files written before formats were numbered (format 0) are valid
    old = {k: v for k, v in json.loads((run / "run.json").read_text()).items() if not k.endswith("_version")}
    (run / "run.json").write_text(json.dumps({**old, "model_settings": None}))
    assert read_run_meta(run).format_version == 0 and validate_run_dir(tmp_path) == []
    # a torn last line is what a killed run leaves: said, not refused by the readers
    with open(run / "predictions.jsonl", "a") as fh:
        fh.write('{"id": ')
    assert validate_run_dir(run) == [
        f"{run / 'predictions.jsonl'}:3: torn last line (a run killed mid-write; `--resume` cuts it)"
    ]
    _ok("score", str(run), "--bootstrap", "0")  # cuts it
    assert validate_run_dir(run) == []

    # a newer format, a sample file changed after the build, a bad verdict line
    meta = json.loads((run / "run.json").read_text())
    (run / "run.json").write_text(
        json.dumps({**meta, "format_version": FORMAT_VERSION + 1, "robustcall_version": "9.0.0"})
    )
    with open(bench / "CD.jsonl", "a") as fh:
        fh.write('{"id": "x"}\n')
    lines = (run / "scores.jsonl").read_text().splitlines()
    (run / "scores.jsonl").write_text("\n".join([lines[0], '{"id": "y", "benchmark": "b"}', *lines[1:]]) + "\n")
    result = runner.invoke(app, ["validate", str(tmp_path)])
    assert result.exit_code == 1
    assert result.stderr == "error: 4 problem(s) in 2 directories\n"  # the findings on stdout, the verdict on stderr
    assert result.stdout.splitlines() == [
        f"{bench / 'CD.jsonl'}:3: field benchmark: Field required (and 6 more)",
        f"{bench / 'CD.jsonl'}: sha256 differs from the manifest's (changed after the build)",
        f"{run / 'run.json'}: written by robustcall 9.0.0 with run format {FORMAT_VERSION + 1}; "
        f"this robustcall ({__version__}) reads up to {FORMAT_VERSION}: upgrade",
        f"{run / 'scores.jsonl'}:2: field type: Field required (and 1 more)",
    ]
    # and the commands that read the run refuse it the same way
    refused = runner.invoke(app, ["score", str(run)])
    assert refused.exit_code == 1 and f"reads up to {FORMAT_VERSION}: upgrade" in refused.output
    assert "Traceback" not in refused.output

    absent = runner.invoke(app, ["validate", str(tmp_path / "nothing")])
    assert (absent.exit_code, absent.stdout) == (1, "")
    assert absent.stderr == f"error: no such directory: {tmp_path / 'nothing'}\n"
