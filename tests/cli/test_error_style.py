"""One error style in every command (issue 28 items 6 and 7): ``error: ...`` first on stderr, a hint
when there is one, nothing on stdout, the documented exit statuses (usage 2, input 1,
infrastructure 3), never a traceback. Each case here printed a traceback, wrote to stdout, printed
``[Errno 2]`` or ``Invalid value`` for a missing file, or exited differently across commands."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from robustcall.cli.main import app
from robustcall.core import write_jsonl

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "run"))
from mock_openai import capital_sample, write_capital_bench


@pytest.fixture(scope="module")
def bench(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A full benchmark (every static type) of 2 BFCL samples: what ``leaderboard serve`` wants."""
    out = tmp_path_factory.mktemp("bench") / "bench"
    res = CliRunner().invoke(app, ["build", "--sources", "bfcl", "--per-source", "bfcl=2", "--out", str(out)])
    assert res.exit_code == 0, res.output
    return out


@pytest.fixture()
def small_bench(tmp_path: Path) -> Path:
    return write_capital_bench(tmp_path / "small", 2)


def refused(args: list[str], code: int, says: str, env: dict[str, str] | None = None) -> Result:
    res = CliRunner().invoke(app, args, env=env)
    where = f"exit {res.exit_code}\nstdout:\n{res.stdout}\nstderr:\n{res.stderr}"
    assert res.exception is None or isinstance(res.exception, SystemExit), (where, res.exception)
    assert "Traceback" not in res.output and "[Errno" not in res.output and "Invalid value:" not in res.output, where
    assert (res.exit_code, res.stdout) == (code, ""), where
    assert res.stderr.startswith("error: ") and len(res.stderr.splitlines()) <= 2, where
    assert says in " ".join(res.stderr.split()), where
    return res


# item 6: the last four tracebacks


def test_export_inspect_names_the_suffixes_it_writes(small_bench: Path, tmp_path: Path) -> None:
    pytest.importorskip("inspect_ai")
    refused(["export", "inspect", str(small_bench), "--out", str(tmp_path / "x.txt")], 1, "written as .eval or .json")


def test_leaderboard_serve_with_a_database_url_no_driver_reads(bench: Path) -> None:
    pytest.importorskip("sqlalchemy")
    res = refused(["leaderboard", "serve", "--bench", str(bench), "--db", "nosuch://x"], 1, "cannot use database URL")
    assert "sqlite:///FILE" in res.stderr  # the hint


def test_leaderboard_serve_with_a_database_that_does_not_answer_is_infrastructure(bench: Path) -> None:
    pytest.importorskip("psycopg")
    url = "postgresql+psycopg://u@127.0.0.1:1/x"  # nothing listens on port 1
    refused(["leaderboard", "serve", "--bench", str(bench), "--db", url], 3, "cannot reach the database")


def test_base_url_with_a_port_out_of_range(small_bench: Path, tmp_path: Path) -> None:
    args = ["run", "--bench", str(small_bench), "--out", str(tmp_path / "r"), "--types", "clean"]
    url = "http://127.0.0.1:99999/v1"
    refused([*args, "--model", "openai/m", "--base-url", url], 1, "bad base URL 'http://127.0.0.1:99999/v1'")
    refused([*args, "--model", f"openai:m@{url}"], 1, "Port out of range")


def test_a_socks_proxy_is_refused_with_a_message(small_bench: Path, tmp_path: Path) -> None:
    args = ["run", "--bench", str(small_bench), "--out", str(tmp_path / "r"), "--types", "clean"]
    env = {"HTTP_PROXY": "socks5://127.0.0.1:1080", "NO_PROXY": "", "no_proxy": ""}
    res = refused([*args, "--model", "openai:m@http://example.com/v1"], 1, "only http:// proxies are supported", env)
    assert res.stderr.splitlines()[1] == "use an http:// proxy, or add example.com to NO_PROXY"


# item 7: one style, one set of exit statuses


def test_model_setup_errors_go_to_stderr(tmp_path: Path) -> None:
    refused(["model", "setup", "--cache", str(tmp_path), "--gguf", str(tmp_path / "no.gguf")], 1, "setup failed")


def test_model_setup_check_not_ready_is_an_error_line(tmp_path: Path) -> None:
    res = CliRunner().invoke(app, ["model", "setup", "--check", "--cache", str(tmp_path)])
    assert res.exit_code == 1 and "missing" in res.stdout  # the report, then the verdict
    assert res.stderr.startswith("error: not ready\n") and "robustcall model setup" in res.stderr


@pytest.mark.parametrize("command", [["rm", "eval", "{missing}", "--scorer", "bfcl"],
                                     ["rm", "train", "{missing}", "--base", "m", "--out", "{out}"],
                                     ["train", "dr-data", "{missing}", "--out", "{out}"]])  # fmt: skip
def test_a_missing_file_is_named_without_errno_or_invalid_value(command: list[str], tmp_path: Path) -> None:
    missing = tmp_path / "nowhere" / "pairs.jsonl"
    args = [a.format(missing=missing, out=tmp_path / "out") for a in command]
    refused(args, 1, f"No such file or directory: {missing}")


@pytest.mark.parametrize(
    "command",
    [
        ["run", "--bench", "{bench}", "--out", "{out}", "--types", "clean"],
        ["pipe", "run", "--env", "maze", "--out", "{out}"],
        ["faults", "run", "--env", "maze", "--out", "{out}"],
        ["faults", "sweep", "--env", "maze", "--out", "{out}"],
    ],
)
def test_a_bad_model_spec_exits_1_in_every_command(command: list[str], small_bench: Path, tmp_path: Path) -> None:
    args = [a.format(bench=small_bench, out=tmp_path / "out") for a in command]
    refused([*args, "--model", "openai:gpt-4o"], 1, "bad model spec 'openai:gpt-4o'")


@pytest.mark.parametrize(
    "command",
    [
        ["rm", "build-bench", "-o", "{out}.jsonl", "--queries", "10", "-g"],
        ["rm", "train-data", "-o", "{out}.jsonl", "--samples", "{samples}", "-g"],
        ["rm", "best-of-n", "--n", "2", "--limit", "2", "-g"],
    ],
)
@pytest.mark.parametrize("policy", ["scripted:random", "scripted:expert"])
def test_a_model_that_plays_an_environment_is_refused_where_samples_are_answered(
    command: list[str], policy: str, tmp_path: Path
) -> None:
    """`rm build-bench -g scripted:random` printed a 112-line traceback (issue 34)."""
    samples = tmp_path / "samples.jsonl"
    write_jsonl(samples, [capital_sample(i) for i in range(2)])
    args = [a.format(out=tmp_path / "out", samples=samples) for a in command]
    res = refused([*args, policy], 1, f"{policy} plays an environment's episodes; it cannot answer benchmark samples")
    assert "scripted:oracle" in res.stderr  # the hint


def test_build_with_an_unknown_source_prints_no_progress_line_first(tmp_path: Path) -> None:
    refused(["build", "--out", str(tmp_path / "b"), "--sources", "nosuch"], 2, "unknown source(s) nosuch")
    refused(["build", "--out", str(tmp_path / "b"), "--data-dir", str(tmp_path / "no")], 1, "--data-dir:")


def test_a_click_path_check_is_an_input_error(tmp_path: Path) -> None:
    missing = str(tmp_path / "no-bench")
    refused(["leaderboard", "serve", "--bench", missing], 1, f"--bench: dir '{missing}' does not exist")


def test_validate_a_missing_directory(tmp_path: Path) -> None:
    refused(["validate", str(tmp_path / "no")], 1, "no such directory")


def test_usage_errors_exit_2_with_a_hint() -> None:
    res = refused(["run", "--no-such-option"], 2, "No such option: --no-such-option")
    assert "--help" in res.stderr.splitlines()[1]


def test_debug_still_shows_the_traceback(tmp_path: Path) -> None:
    env = dict(os.environ, ROBUSTCALL_DEBUG="1")
    res = CliRunner().invoke(app, ["train", "dr-data", str(tmp_path / "no.jsonl"), "--out", str(tmp_path)], env=env)
    assert res.exit_code != 0 and res.exception is not None
