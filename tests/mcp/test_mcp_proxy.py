"""The fault proxy between an MCP client and real reference MCP servers from PyPI."""

from __future__ import annotations

import asyncio
import json
import socket
import sqlite3
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")

from mcp_servers import (
    BIN,
    client,
    git_server,
    make_git_repo,
    proxy_params,
    sqlite_server,
    sqlite_venv,
    time_server,
    upstream_params,
)

CONVERT = ("convert_time", {"source_timezone": "Europe/Warsaw", "time": "12:00", "target_timezone": "UTC"})


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def _dump(result: Any) -> tuple[bool, list[str]]:
    return bool(result.is_error), [b.text for b in result.content]


def _tools(listing: Any) -> list[tuple[str, Any]]:
    return [(t.name, t.input_schema) for t in listing.tools]


async def _session(target: Any, calls: list[tuple[str, dict[str, Any]]]) -> tuple[list[Any], list[Any]]:
    async with client(target) as c:
        tools = _tools(await c.list_tools())
        return tools, [_dump(await c.call_tool(name, args)) for name, args in calls]


def _log(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_git_repo(tmp_path_factory.mktemp("git") / "repo")


@pytest.fixture(scope="module")
def sqlite_env() -> Path:
    venv = sqlite_venv()
    if venv is None:
        pytest.skip("could not build the mcp-1.x environment for mcp-server-sqlite")
    return venv


def test_delta_zero_passes_time_calls_through_unchanged(tmp_path: Path) -> None:
    up = time_server()
    calls = [CONVERT, ("convert_time", {"source_timezone": "UTC", "time": "07:30", "target_timezone": "Asia/Tokyo"})]
    direct = run(_session(upstream_params(up), calls))
    proxied = run(_session(proxy_params(up, "--delta", "0", "--log", str(tmp_path / "log.jsonl")), calls))
    assert proxied == direct
    assert not (tmp_path / "log.jsonl").exists() or _log(tmp_path / "log.jsonl") == []


def test_delta_zero_passes_git_calls_through_unchanged(repo: Path) -> None:
    up = git_server(repo)
    calls = [("git_status", {"repo_path": str(repo)}), ("git_diff_unstaged", {"repo_path": str(repo)}),
             ("git_log", {"repo_path": str(repo), "max_count": 1})]  # fmt: skip
    direct = run(_session(upstream_params(up), calls))
    proxied = run(_session(proxy_params(up, "--delta", "0"), calls))
    assert proxied == direct and "world" in direct[1][1][1][0]


def test_delta_zero_passes_sqlite_calls_through_unchanged(tmp_path: Path, sqlite_env: Path) -> None:
    calls = [
        ("create_table", {"query": "CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT, price REAL)"}),
        ("write_query", {"query": "INSERT INTO items (name, price) VALUES ('lamp', 19.5), ('mug', 7.25)"}),
        ("read_query", {"query": "SELECT name, price FROM items ORDER BY price"}),
    ]
    direct = run(_session(upstream_params(sqlite_server(sqlite_env, tmp_path / "a.db")), calls))
    proxied = run(_session(proxy_params(sqlite_server(sqlite_env, tmp_path / "b.db"), "--delta", "0"), calls))
    assert proxied == direct and "lamp" in direct[1][2][1][0]


def test_execution_errors_at_delta_one_never_reach_the_upstream(tmp_path: Path, sqlite_env: Path) -> None:
    db, log = tmp_path / "x.db", tmp_path / "log.jsonl"
    sqlite3.connect(db).execute("CREATE TABLE t (v INTEGER)").connection.commit()
    insert = ("write_query", {"query": "INSERT INTO t (v) VALUES (1)"})
    _, results = run(_session(proxy_params(sqlite_server(sqlite_env, db), "--profile", "execution", "--delta", "1",
                                           "--log", str(log)), [insert, insert, insert]))  # fmt: skip
    assert all(err and text[0].startswith(("HTTP", "Tool execution timed out")) for err, text in results)
    assert sqlite3.connect(db).execute("SELECT COUNT(*) FROM t").fetchone() == (0,)
    entries = _log(log)
    assert len(entries) == 3 and {e["fault"]["fault_class"] for e in entries} == {"execution"}
    assert all(not e["fault"]["executed"] for e in entries)


def test_semantic_anomalies_at_delta_one_corrupt_real_results(tmp_path: Path, repo: Path) -> None:
    log = tmp_path / "log.jsonl"
    status = ("git_status", {"repo_path": str(repo)})
    _, direct = run(_session(upstream_params(git_server(repo)), [status]))
    calls = [status] * 5
    _, results = run(_session(proxy_params(git_server(repo), "--profile", "semantic", "--delta", "1",
                                           "--log", str(log)), calls))  # fmt: skip
    entries = _log(log)
    assert len(entries) == 5 and {e["fault"]["fault_class"] for e in entries} == {"semantic"}
    for (err, text), entry in zip(results, entries, strict=True):
        assert not err and entry["fault"]["executed"]
        assert entry["fault"]["detail"]["real_observation"] == direct[0][1][0]  # the upstream really ran
        assert text == [entry["fault"]["observation"]] and text[0] != direct[0][1][0]


def test_time_anomalies_that_break_the_output_schema_are_caught_by_the_client(tmp_path: Path) -> None:
    async def go() -> list[str]:
        out = []
        async with client(proxy_params(time_server(), "--profile", "semantic", "--delta", "1", "--seed", "3")) as c:
            for _ in range(6):
                try:
                    r = await c.call_tool(*CONVERT)
                    out.append("ok:" + r.content[0].text)
                except RuntimeError as exc:
                    out.append("schema:" + str(exc))
        return out

    outcomes = run(go())
    assert any(o.startswith("schema:Invalid structured content") or "did not return structured" in o for o in outcomes)


def test_nonstationarity_changes_tools_list_and_notifies(repo: Path, tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    seen: list[str] = []

    async def handler(msg: Any) -> None:
        seen.append(type(msg).__name__)

    async def go() -> tuple[Any, Any, Any]:
        target = proxy_params(git_server(repo), "--profile", "nonstationary", "--sticky", "--delta", "1",
                              "--log", str(log))  # fmt: skip
        async with client(target, mode="legacy", message_handler=handler) as c:
            before = _tools(await c.list_tools())
            first = await c.call_tool("git_status", {"repo_path": str(repo)})
            await asyncio.sleep(0.2)
            after = _tools(await c.list_tools())
            return before, first, after

    before, first, after = run(go())
    fault = _log(log)[0]["fault"]
    assert first.is_error and fault["fault_class"] == "nonstationary" and seen.count("ToolListChangedNotification") == 1
    b, a = dict(before), dict(after)
    if fault["fault_type"] == "tool_deprecated":
        assert "git_status" in b and "git_status" not in a
    elif fault["fault_type"] == "param_renamed":
        assert set(a["git_status"]["properties"]) == {"repo_path_v2"}
    else:
        assert a["git_status"]["required"] == ["repo_path", "api_version"]


@pytest.mark.parametrize("code", ["tool_deprecated", "param_renamed", "param_required"])
def test_each_interface_change_and_the_adapted_call(code: str, repo: Path, tmp_path: Path) -> None:
    profile = tmp_path / "p.yaml"
    profile.write_text(f"delta: 1.0\nat_calls: [0]\nsticky: true\nfaults: {{{code}: 1}}\n")
    args = {"repo_path": str(repo)}
    adapted = {"param_renamed": {"repo_path_v2": str(repo)}, "param_required": {**args, "api_version": "2"}}

    async def go() -> tuple[Any, Any, Any]:
        async with client(proxy_params(git_server(repo), "--profile", str(profile))) as c:
            first = await c.call_tool("git_status", args)
            names = [t.name for t in (await c.list_tools()).tools]
            second = await c.call_tool("git_status", adapted.get(code, args))
            return first, names, second

    first, names, second = run(go())
    assert first.is_error
    if code == "tool_deprecated":
        assert "git_status" not in names and second.is_error and "410 Gone" in second.content[0].text
    else:
        assert not second.is_error and "a.txt" in second.content[0].text  # the new interface works


def test_http_transport_on_localhost(repo: Path, tmp_path: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    log = tmp_path / "log.jsonl"
    cmd = [str(BIN / "robustcall"), "faults", "mcp-proxy", "--upstream", git_server(repo), "--transport", "http",
           "--port", str(port), "--profile", "transient", "--delta", "0.5", "--log", str(log)]  # fmt: skip
    proc = subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.time() + 60
        while time.time() < deadline:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.2)

        async def go() -> list[bool]:
            async with client(f"http://127.0.0.1:{port}/mcp") as c:
                return [bool((await c.call_tool("git_status", {"repo_path": str(repo)})).is_error) for _ in range(8)]

        errors = run(go())
    finally:
        proc.terminate()
        proc.wait(timeout=20)
    assert 0 < sum(errors) < 8 and sum(errors) == len(_log(log))


def test_same_seed_same_injections(repo: Path, tmp_path: Path) -> None:
    calls = [("git_status", {"repo_path": str(repo)}), ("git_log", {"repo_path": str(repo), "max_count": 1})] * 4
    logs = []
    for name in ("a", "b"):
        log = tmp_path / f"{name}.jsonl"
        run(_session(proxy_params(git_server(repo), "--delta", "0.5", "--seed", "11", "--log", str(log)), calls))
        logs.append(log.read_bytes())
    assert logs[0] == logs[1] and logs[0]
