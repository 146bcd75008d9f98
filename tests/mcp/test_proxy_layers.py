"""The proxy's interface layers in front of a real server (``mcp-server-time``): ``--perturb`` and
``--rename`` change what ``tools/list`` shows, calls map back (the recording shows the upstream's own
names only), distractor and legacy calls never reach it; and ``mcp score`` scores a user's own agent
(a plain ``mcp`` client script) from the proxy's log."""

from __future__ import annotations

import asyncio
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")

from mcp_servers import BIN, client, proxy_params, time_server

from robustcall.core import ToolCall, ToolSpec
from robustcall.mcp import DISTRACTOR_ERROR, mcp_interface_map, perturbed

CONVERT = {"source_timezone": "UTC", "time": "12:00", "target_timezone": "Asia/Tokyo"}
TOOLS = [
    ToolSpec(name="git_status", description="Shows the working tree status",
             parameters={"type": "object", "properties": {"repo_path": {"type": "string"}}, "required": ["repo_path"]}),
    ToolSpec(name="git_log", description="Shows the commit logs",
             parameters={"type": "object", "properties": {"repo_path": {"type": "string"}}, "required": ["repo_path"]}),
]  # fmt: skip


def _rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_views_route_real_and_distractor_tools() -> None:
    dup = perturbed(TOOLS, ["same_name_C"], targets=["git_status"], seed=1)
    assert [(s.spec.name, s.upstream) for s in dup.tools] == [
        ("git_status", "git_status"), ("git_log", "git_log"), ("git_status", None)]  # fmt: skip
    assert dup.route(ToolCall(name="git_status", arguments={"repo_path": "."})).upstream == "git_status"  # type: ignore[union-attr]
    assert dup.route(ToolCall(name="git_status", arguments={"query": "x"})).upstream is None  # type: ignore[union-attr]
    ab = perturbed(TOOLS, ["CD_AB"], targets=["git_status"], seed=1)
    assert sorted((s.spec.name, s.upstream) for s in ab.tools) == [
        ("git_log", "git_log"), ("git_sta", "git_status"), ("git_status", None)]  # fmt: skip
    every = perturbed(TOOLS, ["same_name_A"], seed=1)  # the proxy's default: around every tool
    assert [(s.spec.name, s.upstream) for s in every.tools] == [
        ("git_status", "git_status"), ("git_status", None), ("git_log", "git_log"), ("git_log", None)]  # fmt: skip
    assert (
        perturbed(TOOLS, ["redundant"], seed=3).distractors() == perturbed(TOOLS, ["redundant"], seed=3).distractors()
    )


def test_synonyms_of_mcp_tool_names() -> None:
    imap = mcp_interface_map("git", ["git_status", "git_diff_staged", "read_query", "frobnicate"])
    assert imap.names("synonym") == {"git_status": "repo_state", "git_diff_staged": "repo_changes_indexed",
                                     "read_query": "load_sql", "frobnicate": "frobnicate_op"}  # fmt: skip
    assert imap.names("symbol")["read_query"] == "z3"


def test_perturb_and_rename_in_front_of_the_time_server(tmp_path: Path) -> None:
    log, rec = tmp_path / "log.jsonl", tmp_path / "rec.jsonl"
    args = ("--perturb", "same_name_A,CD_AB", "--rename", "synonym", "--target", "convert_time", "--seed", "4",
            "--log", str(log), "--record", str(rec), "--log-calls", "--session", "perturbed/t1")  # fmt: skip

    async def go() -> tuple[list[str], list[Any]]:
        async with client(proxy_params(time_server(), *args)) as c:
            names = [t.name for t in (await c.list_tools()).tools]
            shown = json.loads(log.read_text().splitlines()[0])["shown"]
            real = next(n for n, up in shown if up == "convert_time")
            decoy = next(n for n, up in shown if up is None and n != real)
            results = [await c.call_tool(real, CONVERT), await c.call_tool(decoy, {}),
                       await c.call_tool("convert_time", CONVERT)]  # fmt: skip
            return names, [(r.is_error, r.content[0].text) for r in results]

    names, results = asyncio.run(go())
    assert "convert_time" not in names and "get_current_time" not in names  # every name is a synonym
    (ok, text), (derr, dtext), (lerr, ltext) = results
    assert not ok and "+09:00" in text
    assert derr and dtext.startswith(DISTRACTOR_ERROR.split("{")[0])
    assert lerr and ltext.startswith("Invalid Action: convert_time . Use ")
    head, *calls = _rows(log)
    assert head["kind"] == "interface" and head["rename"] == "synonym" and head["interface_map"]
    assert [c["outcome"] for c in calls] == ["upstream", "distractor", "legacy"]
    upstream = [r for r in _rows(rec) if r["op"] == "call"]
    assert [(r["tool"], r["arguments"]) for r in upstream] == [("convert_time", CONVERT)]  # only its own name

    async def replayed() -> tuple[Any, Any]:  # no upstream at all: the recording answers, the history decides
        async with client(proxy_params("", "--replay", str(rec), "--rename", "symbol")) as c:
            first = await c.call_tool("z2", CONVERT)
            again = await c.call_tool("z2", CONVERT)  # a second call has a history the recording lacks
            return (first.is_error, first.content[0].text), (again.is_error, again.content[0].text)

    first, again = asyncio.run(replayed())
    assert first == (False, text)
    assert again[0] and "not in the recording" in again[1]


def test_mcp_score_scores_a_users_own_agent(tmp_path: Path) -> None:
    """A plain client script is the agent; it runs a task clean and under a 503 at its first call."""
    log = tmp_path / "proxy.jsonl"
    profile = tmp_path / "p.yaml"
    profile.write_text("name: e503\ndelta: 1.0\nat_calls: [0]\nfaults: {http_503: 1}\n")
    sessions = {"clean": ("--delta", "0"), "faults-e503": ("--profile", str(profile))}

    async def agent(extra: tuple[str, ...], session: str) -> bool:
        params = proxy_params(time_server(), *extra, "--log", str(log), "--log-calls", "--session", session)
        async with client(params) as c:
            for _ in range(3):  # the user's agent retries a failed call, up to three times
                r = await c.call_tool("convert_time", CONVERT)
                if not r.is_error:
                    return "21:00" in r.content[0].text
        return False

    outcomes = [{"task": "tokyo", "condition": cond, "success": asyncio.run(agent(extra, f"{cond}/tokyo"))}
                for cond, extra in sessions.items()]  # fmt: skip
    (tmp_path / "outcomes.jsonl").write_text("".join(json.dumps(o) + "\n" for o in outcomes))
    done = subprocess.run([str(BIN / "robustcall"), "mcp", "score", "--log", str(log), "--outcomes",
                           str(tmp_path / "outcomes.jsonl"), "--out", str(tmp_path / "fig.json")],
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    rows = {r["condition"]: r for r in json.loads((tmp_path / "fig.json").read_text())}
    assert rows["clean"]["success"] == 1.0 and rows["faults-e503"]["success"] == 1.0
    assert (rows["faults-e503"]["delta"], rows["faults-e503"]["rasr"], rows["faults-e503"]["faults"]) == (0.0, 1.0, 1)
    calls = [r for r in _rows(log) if r["session"] == "faults-e503/tokyo"]
    assert [c["outcome"] for c in calls] == ["fault", "upstream"]
