"""Every command that talks to a model, against an endpoint that fails: nothing listening, always
HTTP 500, always HTTP 401. Each must ask only a few times (retried attempts count toward
``--stop-after``, and a request waiting out a backoff gives up when the run stops), name the
failure (the server's message, or the network's error), and exit 3.

An ``openai/<model>`` spec with no ``--base-url``, no ``OPENAI_BASE_URL`` and no ``OPENAI_API_KEY``
is refused before any request (OpenAI's API answers nothing without a key); with a URL the command
line did not name, one line says where requests go before the first one is sent.

Backoff waits are made instant (``_openai._sleep``); the data are a few records or episodes.
"""

from __future__ import annotations

import socket
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from robustcall.cli.main import app
from robustcall.core import write_jsonl
from robustcall.models import _factory, _http, _openai

sys.path.insert(0, str(Path(__file__).parents[1] / "run"))
from mock_openai import capital_sample, completion, serve_chat, write_capital_bench

runner = CliRunner()

STOP_AFTER = 5
LOOP = 2 * STOP_AFTER - 1
"""The most requests a run-loop command at --concurrency 1 sends (see ``COMMANDS``)."""
BROKEN = "the mock backend is broken"
BAD_KEY = "Incorrect API key provided"

Argv = Callable[[str, Path], list[str]]
"""(model spec, a fresh folder) -> the command line."""


def _bench_dir(tmp: Path) -> Path:
    return write_capital_bench(tmp / "bench", 12)


def _samples_file(tmp: Path) -> Path:
    path = tmp / "samples.jsonl"
    write_jsonl(path, [capital_sample(i) for i in range(12)])
    return path


def _rm_bench(tmp: Path) -> Path:
    path = tmp / "fc_bench.jsonl"
    made = runner.invoke(app, ["rm", "build-bench", "--queries", "12", "--size", "12", "--top-up", "-o", str(path)])
    assert made.exit_code == 0, made.output
    return path


def _bench_cmd(spec: str, tmp: Path) -> list[str]:
    write_capital_bench(tmp / "job" / "bench", 12)  # `bench` uses a benchmark already built in OUT/bench
    return ["bench", "--model", spec, "--out", str(tmp / "job"), "--types", "clean", "--mode", "prompt",
            "--concurrency", "1"]  # fmt: skip


COMMANDS: dict[str, tuple[Argv, int]] = {
    # name: (command line, the most requests it may send: STOP_AFTER failed attempts and the ones
    # in flight then, which end without a retry. In the run loop a request waiting out a backoff lends
    # its place to a new record (docs/run.md), so up to STOP_AFTER - 1 more may be in flight there.)
    "run": (
        lambda spec, tmp: ["run", "--bench", str(_bench_dir(tmp)), "--out", str(tmp / "out"), "--types", "clean",
                           "--mode", "prompt", "--model", spec, "--concurrency", "1"],
        LOOP,
    ),
    "bench": (_bench_cmd, LOOP),
    "faults run": (
        lambda spec, tmp: ["faults", "run", "--env", "maze", "--model", spec, "--limit", "12", "--concurrency", "1",
                           "--max-steps", "3", "--out", str(tmp / "out")],
        LOOP,
    ),
    "faults sweep": (
        lambda spec, tmp: ["faults", "sweep", "--env", "maze", "--model", spec, "--limit", "6", "--deltas", "0,0.5",
                           "--concurrency", "1", "--max-steps", "3", "--out", str(tmp / "out")],
        LOOP,
    ),
    "pipe run": (
        lambda spec, tmp: ["pipe", "run", "--env", "maze", "--model", spec, "--limit", "12", "--concurrency", "1",
                           "--max-steps", "3", "--out", str(tmp / "out")],
        LOOP,
    ),
    "pipe curve": (
        lambda spec, tmp: ["pipe", "curve", "--env", "maze", "--checkpoint", f"ep1={spec}", "--limit", "12",
                           "--max-steps", "3", "--out", str(tmp / "out")],
        LOOP,
    ),
    "rm build-bench": (
        lambda spec, tmp: ["rm", "build-bench", "-g", spec, "--queries", "12", "--concurrency", "1",
                           "-o", str(tmp / "out.jsonl")],
        STOP_AFTER,  # one request at a time (--concurrency 1)
    ),
    "rm eval": (
        lambda spec, tmp: ["rm", "eval", str(_rm_bench(tmp)), "-s", f"judge:{spec.removeprefix('openai:')}",
                           "-o", str(tmp / "ev")],
        STOP_AFTER + 3,  # the judge's own concurrency: 4
    ),
    "rm train-data": (
        lambda spec, tmp: ["rm", "train-data", "--samples", str(_samples_file(tmp)), "-g", spec,
                           "--concurrency", "1", "-o", str(tmp / "pairs.jsonl")],
        STOP_AFTER,
    ),
    "rm best-of-n": (
        lambda spec, tmp: ["rm", "best-of-n", "-g", spec, "--samples", str(_samples_file(tmp)), "--n", "2",
                           "--concurrency", "1", "-o", str(tmp / "bon")],
        STOP_AFTER,
    ),
}  # fmt: skip


@pytest.fixture(autouse=True)
def _instant_backoff(monkeypatch: pytest.MonkeyPatch) -> None:
    async def no_wait(seconds: float) -> None:
        del seconds

    monkeypatch.setattr(_openai, "_sleep", no_wait)
    for var in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "ROBUSTCALL_DEBUG"):
        monkeypatch.delenv(var, raising=False)


@pytest.fixture()
def connects(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every TCP connection the model client tries to open (host:port)."""
    tried: list[str] = []
    real = _http.HttpClient._connect

    async def counting(self: _http.HttpClient) -> Any:
        tried.append(f"{self.host}:{self.port}")
        return await real(self)

    monkeypatch.setattr(_http.HttpClient, "_connect", counting)
    return tried


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def _always(status: int, message: str, seen: list[dict[str, Any]]) -> Iterator[str]:
    async def handler(body: dict[str, Any]) -> Any:
        seen.append(body)
        return status, {"error": {"message": message, "type": "server_error"}}, {}

    with serve_chat(handler) as url:
        yield url


def _check(result: Any, requests: int, most: int, *reason: str) -> None:
    assert "Traceback" not in result.output, result.output
    assert result.exit_code == 3, result.output
    assert STOP_AFTER <= requests <= most, (requests, result.output)
    assert f"stopped after {STOP_AFTER} identical failures in a row" in result.output
    for text in reason:
        assert text in result.output, result.output
    assert "internal error" not in result.output


@pytest.mark.parametrize("command", list(COMMANDS))
def test_an_always_500_endpoint_gets_a_few_requests_and_the_command_says_why(command: str, tmp_path: Path) -> None:
    argv, most = COMMANDS[command]
    seen: list[dict[str, Any]] = []
    with _always(500, BROKEN, seen) as url:
        result = runner.invoke(app, argv(f"openai:m@{url}", tmp_path))
    _check(result, len(seen), most, "HTTP 500", BROKEN)


@pytest.mark.parametrize("command", list(COMMANDS))
def test_an_always_401_endpoint_is_not_retried_and_the_command_says_why(command: str, tmp_path: Path) -> None:
    argv, most = COMMANDS[command]
    seen: list[dict[str, Any]] = []
    with _always(401, BAD_KEY, seen) as url:
        result = runner.invoke(app, argv(f"openai:m@{url}", tmp_path))
    # one error style: the server's message, never its raw JSON body (`rm best-of-n` and `rm
    # build-bench` printed `HTTP 401: {"error": ...}`)
    _check(result, len(seen), most, f"HTTP 401 from {url}/chat/completions: {BAD_KEY}")
    assert '{"error"' not in result.output, result.output


@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_down_endpoint_gets_a_few_connection_attempts_and_the_networks_error(
    command: str, tmp_path: Path, connects: list[str]
) -> None:
    argv, most = COMMANDS[command]
    port = _free_port()  # nothing listens there
    result = runner.invoke(app, argv(f"openai:m@http://127.0.0.1:{port}/v1", tmp_path))
    _check(result, len(connects), most, f"cannot connect to 127.0.0.1:{port}")
    assert set(connects) == {f"127.0.0.1:{port}"}


def test_stop_after_0_asks_every_record_with_every_retry(tmp_path: Path) -> None:
    seen: list[dict[str, Any]] = []
    with _always(500, BROKEN, seen) as url:
        result = runner.invoke(
            app,
            ["run", "--bench", str(write_capital_bench(tmp_path / "b", 3)), "--out", str(tmp_path / "o"),
             "--types", "clean", "--model", f"openai:m@{url}", "--concurrency", "1", "--stop-after", "0"],
        )  # fmt: skip
    assert result.exit_code == 3, result.output
    assert len(seen) == 3 * 6  # the first attempt and 5 retries each (max_retries)
    assert "3 of 3 requests ended in infrastructure errors" in result.output
    assert f"3 x HTTP 500: {BROKEN} (gave up after 6 attempts)" in result.output


def test_max_infra_errors_lets_a_command_that_lost_some_requests_exit_0(tmp_path: Path) -> None:
    seen: list[dict[str, Any]] = []

    async def every_third_refused(body: dict[str, Any]) -> Any:
        seen.append(body)
        if len(seen) % 3 == 0:
            return 401, {"error": {"message": BAD_KEY}}, {}
        return completion("no call")

    with serve_chat(every_third_refused) as url:
        argv = ["faults", "run", "--env", "maze", "--model", f"openai:m@{url}", "--limit", "6",
                "--concurrency", "1", "--max-steps", "1"]  # fmt: skip
        strict = runner.invoke(app, [*argv, "--out", str(tmp_path / "a")])
        assert strict.exit_code == 3, strict.output
        assert "2 of 6 episodes ended in infrastructure errors" in strict.output
        assert f"2 x HTTP 401 from {url}/chat/completions: {BAD_KEY}" in strict.output
        allowed = runner.invoke(app, [*argv, "--out", str(tmp_path / "b"), "--max-infra-errors", "2"])
        assert allowed.exit_code == 0, allowed.output


KEYLESS: dict[str, Argv] = {
    "run": COMMANDS["run"][0],
    "bench": _bench_cmd,
    "faults run": COMMANDS["faults run"][0],
    "faults sweep": COMMANDS["faults sweep"][0],
    "pipe run": COMMANDS["pipe run"][0],
    "pipe curve": COMMANDS["pipe curve"][0],
    "rm build-bench": COMMANDS["rm build-bench"][0],
    "rm train-data": COMMANDS["rm train-data"][0],
    "rm best-of-n": COMMANDS["rm best-of-n"][0],
}
"""The commands that take an ``openai/<model>`` generator or agent (a judge names its URL)."""


@pytest.mark.parametrize("command", list(KEYLESS))
def test_openai_model_without_url_or_key_is_refused_before_any_request(
    command: str, tmp_path: Path, connects: list[str]
) -> None:
    result = runner.invoke(app, KEYLESS[command]("openai/gpt-4o-mini", tmp_path))
    assert result.exit_code == 1, result.output
    assert connects == []
    assert "Traceback" not in result.output
    assert (
        "error: openai/gpt-4o-mini would send its requests to https://api.openai.com/v1 "
        "(no --base-url or OPENAI_BASE_URL), which needs OPENAI_API_KEY" in result.output
    )


@pytest.mark.parametrize("command", list(KEYLESS))
def test_a_url_nobody_named_is_said_once_before_the_first_request(
    command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[dict[str, Any]] = []
    with _always(401, BAD_KEY, seen) as url:
        monkeypatch.setattr(_factory, "OPENAI_DEFAULT_BASE_URL", url)  # stands in for OpenAI's API
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        result = runner.invoke(app, KEYLESS[command]("openai/m", tmp_path))
    line = f"openai/m: requests go to {url} (no --base-url or OPENAI_BASE_URL)"
    assert result.output.count(line) == 1, result.output
    assert result.output.index(line) < result.output.index("HTTP 401")
    assert seen and all(b["model"] == "m" for b in seen)


def test_a_url_from_openai_base_url_is_said_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[dict[str, Any]] = []
    with _always(401, BAD_KEY, seen) as url:
        monkeypatch.setenv("OPENAI_BASE_URL", url)
        result = runner.invoke(app, COMMANDS["run"][0]("openai/m", tmp_path))
    assert f"openai/m: requests go to {url} (OPENAI_BASE_URL)" in result.output
    assert len(seen) == STOP_AFTER and result.exit_code == 3


def test_an_always_429_endpoint_stops_too(tmp_path: Path) -> None:
    """A spent quota (429 to every request) stops the run like any other repeated failure."""
    seen: list[dict[str, Any]] = []
    with _always(429, "You exceeded your current quota", seen) as url:
        result = runner.invoke(app, COMMANDS["run"][0](f"openai:m@{url}", tmp_path))
    assert result.exit_code == 3, result.output
    assert "stopped after 5 identical failures in a row: HTTP 429: You exceeded your current quota" in result.output
    assert len(seen) < 12 * 6, len(seen)  # not every record with every retry
