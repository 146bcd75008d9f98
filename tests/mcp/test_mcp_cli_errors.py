"""User errors of the ``mcp`` commands end in one line and a non-zero exit (no traceback)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("mcp")

from typer.testing import CliRunner

from robustcall.cli.main import app
from robustcall.mcp import load_tasks


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["mcp", "run", "--tasks", "{tmp}/none.yaml", "--model", "scripted:expert", "--out", "{tmp}/o"],
         "cannot read the task file"),
        (["mcp", "run", "--tasks", "suite", "--model", "scripted:expert", "--out", "{tmp}/o", "--perturb", "bogus"],
         "unknown perturbation type 'bogus' over MCP"),
        (["mcp", "run", "--tasks", "suite", "--model", "scripted:expert", "--out", "{tmp}/o", "--task", "nope"],
         "no task nope in"),
        (["mcp", "run", "--tasks", "suite", "--model", "scripted:expert", "--out", "{tmp}/o", "--rename", "odd"],
         "--rename must be synonym, symbol or dual"),
        (["mcp", "run", "--tasks", "{tmp}/bad.yaml", "--model", "scripted:expert", "--out", "{tmp}/o"],
         "not a valid MCP task file"),
        (["mcp", "report", "{tmp}"], "is not an `mcp run` folder"),
        (["mcp", "score", "--log", "{tmp}/bad.yaml", "--outcomes", "{tmp}/bad.yaml"], "not JSONL"),
    ],
)  # fmt: skip
def test_user_errors_are_one_line(args: list[str], says: str, tmp_path: Path) -> None:
    (tmp_path / "bad.yaml").write_text("servers: {}\ntasks:\n  - {id: a, server: x}\n")
    res = CliRunner().invoke(app, [a.replace("{tmp}", str(tmp_path)) for a in args])
    assert res.exit_code != 0 and (res.exception is None or isinstance(res.exception, SystemExit))
    lines = [line for line in res.output.strip().splitlines() if line.strip()]
    assert len(lines) <= 2 and says in res.output and "Traceback" not in res.output


def test_a_missing_server_is_named_before_anything_runs(tmp_path: Path) -> None:
    tasks = tmp_path / "t.jsonl"
    tasks.write_text('{"id": "a", "server": {"command": "no-such-mcp-server --x"}, "instruction": "hi", '
                     '"verify": {"answer": ["x"]}}\n')  # fmt: skip
    assert [t.id for t in load_tasks(tasks).tasks] == ["a"]
    res = CliRunner().invoke(app, ["mcp", "run", "--tasks", str(tasks), "--model", "scripted:expert", "--out",
                                   str(tmp_path / "o")])  # fmt: skip
    assert res.exit_code == 1 and "server 'a' is not installed (no-such-mcp-server)" in res.output
