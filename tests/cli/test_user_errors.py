"""The user errors of issue 17 item 1, one by one: a short message, a non-zero exit, no traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from robustcall.cli.main import app

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "run"))
from mock_openai import write_capital_bench

runner = CliRunner()


@pytest.fixture()
def bench(tmp_path: Path) -> Path:
    d = tmp_path / "bench"
    return write_capital_bench(d, 2)


def _run(bench: Path, out: Path, *extra: str) -> list[str]:
    return ["run", "--types", "clean", "--bench", str(bench), "--out", str(out), *extra]


def _refused(args: list[str], *, code: int | None = None, says: str = "") -> str:
    result = runner.invoke(app, args, env={"ROBUSTCALL_CACHE": "/nonexistent/robustcall-cache"})
    lines = [ln for ln in result.output.splitlines() if ln.strip()]
    assert result.exit_code != 0, result.output
    if code is not None:
        assert result.exit_code == code, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output and 1 <= len(lines) <= 2, result.output
    assert says in result.output, result.output
    return result.output


def test_bad_model_spec_is_one_line(bench: Path, tmp_path: Path) -> None:
    out = _refused(
        ["run", "--types", "clean", "--bench", str(bench), "--out", str(tmp_path / "r"), "--model", "openai:gpt-4o"],
        code=1,
        says="bad model spec",
    )
    assert out.startswith("error: ")


def test_existing_output_folder_asks_for_resume(bench: Path, tmp_path: Path) -> None:
    args = [
        "run",
        "--types",
        "clean",
        "--bench",
        str(bench),
        "--out",
        str(tmp_path / "r"),
        "--model",
        "scripted:oracle",
    ]
    assert runner.invoke(app, args).exit_code == 0
    _refused(args, code=1, says="--resume")


def test_local_model_before_setup_says_what_to_run(bench: Path, tmp_path: Path) -> None:
    _refused(
        ["run", "--types", "clean", "--bench", str(bench), "--out", str(tmp_path / "r"), "--model", "local"],
        code=1,
        says="robustcall model setup",
    )


def test_settings_typo_is_refused_for_any_backend(bench: Path, tmp_path: Path) -> None:
    settings = tmp_path / "settings.yaml"
    settings.write_text("some-model:\n  temprature: 0.5\n")
    _refused(
        _run(bench, tmp_path / "r", "--model", "scripted:oracle", "--settings", str(settings)),
        code=1,
        says="unknown setting 'temprature'",
    )
    settings.write_text("x: [\n")
    _refused(
        _run(bench, tmp_path / "r2", "--model", "scripted:oracle", "--settings", str(settings)),
        code=1,
        says="settings.yaml:2:1: not valid YAML",
    )


def test_jsonl_error_in_a_replay_file_names_file_and_line(bench: Path, tmp_path: Path) -> None:
    bad = tmp_path / "preds.jsonl"
    bad.write_text("{}\n")
    _refused(
        ["run", "--types", "clean", "--bench", str(bench), "--out", str(tmp_path / "r"), "--model", f"replay:{bad}"],
        code=1,
        says="preds.jsonl:1: field",
    )


@pytest.mark.parametrize(
    ("option", "value"),
    [("--concurrency", "0"), ("--concurrency", "-5"), ("--limit", "0"), ("--limit", "-3")],
)
def test_non_positive_counts_are_refused(bench: Path, tmp_path: Path, option: str, value: str) -> None:
    _refused(
        [
            "run",
            "--types",
            "clean",
            "--bench",
            str(bench),
            "--out",
            str(tmp_path / "r"),
            "--model",
            "scripted:oracle",
            option,
            value,
        ],
        code=2,
        says=option,
    )
    assert not (tmp_path / "r").exists()


def test_port_out_of_range_is_refused(bench: Path) -> None:
    _refused(["leaderboard", "serve", "--bench", str(bench), "--port", "99999"], code=2, says="--port")


def test_bench_folder_without_manifest_is_refused(bench: Path, tmp_path: Path) -> None:
    (bench / "manifest.json").unlink()
    for args in (
        ["run", "--types", "clean", "--bench", str(bench), "--out", str(tmp_path / "r"), "--model", "scripted:oracle"],
        ["audit", str(bench)],
        ["leaderboard", "serve", "--bench", str(bench)],
    ):
        _refused(args, code=1, says="manifest.json")


def test_unknown_type_is_one_line(bench: Path, tmp_path: Path) -> None:
    _refused(
        [
            "run",
            "--types",
            "clean",
            "--bench",
            str(bench),
            "--out",
            str(tmp_path / "r"),
            "--model",
            "scripted:oracle",
            "--types",
            "nope",
        ],
        code=2,  # a usage mistake, as in `build --types nope`
        says="unknown perturbation type 'nope'",
    )


def test_debug_shows_the_traceback(bench: Path, tmp_path: Path) -> None:
    result = runner.invoke(
        app,
        ["--debug", *_run(bench, tmp_path / "r", "--model", "scripted:nope")],
    )
    assert result.exit_code != 0
    assert isinstance(result.exception, ValueError) and "unknown scripted policy" in str(result.exception)


def test_the_installed_command_prints_no_traceback(bench: Path, tmp_path: Path) -> None:
    """The real entry point (typer's pretty tracebacks included), in a subprocess."""
    cmd = [sys.executable, "-m", "robustcall.cli.main", "run", "--types", "clean", "--bench", str(bench)]
    cmd += ["--out", str(tmp_path / "r"), "--model", "scripted:nope"]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr.startswith("error: unknown scripted policy 'nope'") and done.stderr.count("\n") == 1


def test_a_bad_line_in_a_bench_file_names_file_and_line(bench: Path, tmp_path: Path) -> None:
    with open(bench / "clean.jsonl", "a") as fh:
        fh.write('{"id": "x"\n')
    _refused(_run(bench, tmp_path / "r", "--model", "scripted:oracle"), code=1, says="clean.jsonl:3: invalid JSON")
    _refused(_run(bench / "clean.jsonl", tmp_path / "r"), code=1, says="a file, not a benchmark folder")


def test_one_exit_code_per_mistake(bench: Path, tmp_path: Path) -> None:
    """A bad name on the command line is a usage mistake (2) in every command; a missing input file
    an input error (1); `train grpo --dry-run` checks what `train verl` checks (issue 36 item 4)."""
    missing = str(tmp_path / "missing.parquet")
    train = ["--train", missing, "--out", str(tmp_path / "o")]
    verl = ["train", "verl", *train, "--eval", missing, "--dry-run"]
    grpo = ["train", "grpo", *train, "--dry-run"]
    usage = {
        "--types": ["run", "--bench", str(bench), "--out", str(tmp_path / "r"), "--types", "nosuch"],
        "--level": ["envs", "serve", "--env", "maze", "--level", "nosuch"],
        "--protocol": ["envs", "serve", "--env", "maze", "--protocol", "nosuch"],
    }
    for command in (verl, grpo):
        usage[f"{command[1]} --recipe"] = [*command, "--recipe", "nosuch"]
        usage[f"{command[1]} --reward"] = [*command, "--reward", "nosuch"]
        usage[f"{command[1]} toolrm"] = [*command, "--recipe", "toolrm"]  # and no --toolrm-scorer
    for what, args in usage.items():
        out = _refused(args, code=2, says="nosuch" if "toolrm" not in what else "needs --toolrm-scorer")
        assert "Invalid value for --" in out, (what, out)
    for command in (verl, grpo):
        _refused(command, code=1, says=f"No such file or directory: {missing}")


def test_errors_say_what_is_wrong_in_full(tmp_path: Path) -> None:
    missing = tmp_path / "nonexistent.parquet"
    dr_data = ["train", "dr-data", str(missing), "--out", str(tmp_path / "dr")]
    _refused(dr_data, code=1, says=f"No such file or directory: {missing}")
    out = _refused(["envs", "serve", "--env", "nosuch"], code=1, says="unknown environment 'nosuch'")
    assert out.count("'") % 2 == 0, out  # no quote dropped at either end
    out = _refused(["envs", "serve", "--env", "maze", "--faults", "nosuch"], code=1, says="no profile file 'nosuch'")
