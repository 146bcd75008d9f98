"""README's first install (``pip install -e .``) has no optional extra: every command that reaches one
ends in one line naming the extra and the pip command, exit 1, never a traceback (issue 36 item 1).

Tested the way it fails: a subprocess where every module of every extra is unimportable
(``sys.modules[name] = None``, as Python reads a module that is not there) runs each command that
needs an extra through the CLI, with inputs that get it as far as the import.
"""

from __future__ import annotations

import importlib.metadata
import itertools
import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from robustcall.cli._extras import COMMAND_EXTRAS, EXTRA_MODULES, INCLUDES, pip_command
from robustcall.cli.main import app

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "run"))
from mock_openai import write_capital_bench
from test_error_sweep import COMMANDS

REPO = Path(__file__).resolve().parents[2]

_BASE_INSTALL = """
import json, sys
for name in json.loads(sys.argv[1]):
    sys.modules[name] = None  # what `import name` meets on README's first install
from typer.testing import CliRunner
from robustcall.cli.main import app
out = []
for args in json.loads(sys.argv[2]):
    res = CliRunner().invoke(app, args, env={"ROBUSTCALL_CACHE": sys.argv[3]})
    bug = res.exception is not None and not isinstance(res.exception, SystemExit)
    out.append([res.exit_code, res.stdout, res.stderr, repr(res.exception) if bug else None])
print(json.dumps(out))
"""


def _pyproject_extras() -> dict[str, list[str]]:
    extras = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    return {k: v for k, v in extras.items() if k != "dev"}


def _dist(requirement: str) -> str:
    return re.split(r"[<>=!~\[; ]", requirement, maxsplit=1)[0]


def test_the_table_knows_every_extra_of_pyproject() -> None:
    extras = _pyproject_extras()
    assert set(EXTRA_MODULES) == set(extras)
    for extra, reqs in extras.items():
        included = {r.split("[")[1].rstrip("]") for r in reqs if r.startswith("robustcall[")}
        assert included == set(INCLUDES.get(extra, ())), extra
    # every distribution of an extra, where installed, provides one of the modules the table gives it
    provided: dict[str, set[str]] = {}
    for module, dists in importlib.metadata.packages_distributions().items():
        for dist in dists:
            provided.setdefault(dist.lower().replace("_", "-"), set()).add(module)
    checked = 0
    for extra, reqs in extras.items():
        for dist in (_dist(r).lower() for r in reqs if not r.startswith("robustcall[")):
            modules = provided.get(dist)
            if modules is None:
                continue  # not installed here
            assert modules & set(EXTRA_MODULES[extra]), (extra, dist, modules)
            checked += 1
    assert checked >= 15


def test_every_command_named_in_the_table_exists_and_its_help_names_the_extra() -> None:
    leaves = {" ".join(p) for p in COMMANDS}
    for command, (extra, _) in COMMAND_EXTRAS.items():
        assert command in leaves, command
        res = CliRunner().invoke(app, [*command.split(), "--help"], env={"COLUMNS": "80"})
        assert res.exit_code == 0, res.output
        assert f"Needs the `{extra}` extra" in res.output and pip_command(extra) in " ".join(res.output.split())


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory, shared_data: Path) -> dict[str, str]:
    d = tmp_path_factory.mktemp("extras")
    bench = write_capital_bench(d / "bench", 2)
    run = d / "run"
    res = CliRunner().invoke(
        app, ["run", "--bench", str(bench), "--types", "clean", "--model", "scripted:oracle", "--out", str(run)]
    )
    assert res.exit_code == 0, res.output
    pairs = d / "pairs.jsonl"
    res = CliRunner().invoke(
        app, ["rm", "build-bench", "-g", "scripted:always_first_tool", "--queries", "3", "-o", str(pairs)]
    )
    assert res.exit_code == 0, res.output
    recovery = d / "recovery.jsonl"
    recovery.write_text('{"messages": []}\n')
    return {
        "bench": str(bench),
        "run": str(run),
        "pairs": str(pairs),
        "recovery": str(recovery),
        "parquet": str(shared_data / "toolrl" / "dataset" / "rlla_4k" / "test.parquet"),
        "data": str(shared_data),
        "out": str(d / "out"),
    }


def _command(argv: list[str]) -> str:
    """The command an argument list runs: its first one or two words before any option."""
    return " ".join(list(itertools.takewhile(lambda w: not w.startswith("-"), argv))[:2])


def _cases(i: dict[str, str]) -> list[tuple[list[str], str]]:
    """(command line, the extra it must name): every command of ``COMMAND_EXTRAS`` at least once."""
    out = i["out"]
    scripted = ["--model", "scripted:expert", "--out", out]
    hf_scorer = ["-s", "hf:some/rm", "-o", out]
    cases: list[tuple[list[str], str]] = [
        (["card", "--model", "scripted:oracle", "--env-model", "scripted:expert", "--out", out], "envs"),
        (["envs", "serve", "--env", "maze", "--port", "1"], "web"),
        (["envs", "serve", "--env", "textcraft"], "envs"),
        (["export", "hf", i["bench"], "--out", out], "hf"),
        (["export", "inspect", i["run"], "--out", out + ".eval"], "inspect"),
        (["faults", "mcp-proxy", "--upstream", sys.executable], "mcp"),
        (["mcp", "run", "--tasks", "suite", *scripted], "mcp"),
        (["mcp", "report", out], "mcp"),
        (["mcp", "score", "--log", i["recovery"], "--outcomes", i["recovery"]], "mcp"),
        (["faults", "sweep", "--env", "textcraft", *scripted], "envs"),
        (["leaderboard", "serve", "--bench", i["bench"], "--port", "1"], "web"),
        (["model", "setup", "--hf-repo", "some/repo"], "hf"),
        (["pipe", "curve", "--env", "textcraft", "--checkpoint", "a=scripted:expert", "--out", out], "envs"),
        (["rm", "eval", i["pairs"], *hf_scorer], "train"),
        (["rm", "eval", i["pairs"], "-s", "schema", "-o", out], "schema"),
        (["rm", "best-of-n", "-g", "scripted:always_first_tool", "--n", "2", "--limit", "1", *hf_scorer], "train"),
        (["rm", "filter", "--source", "toolalpaca", "--data-dir", i["data"], *hf_scorer], "train"),
        (["rm", "train", i["pairs"], "--base", "some/model", "--out", out], "train"),
        (["train", "dr-data", i["parquet"], "--out", out], "train"),
        (["train", "grpo", "--train", i["parquet"], "--out", out], "train"),
        (["train", "sft", "--recovery", i["recovery"], "--out", out], "train"),
        (["train", "verl", "--train", i["parquet"], "--eval", i["parquet"], "--out", out], "verl"),
    ]
    for env in ("textcraft", "babyai", "sciworld"):  # each needs its own module of the `envs` extra
        cases.append((["pipe", "run", "--env", env, *scripted], "envs"))
        cases.append((["faults", "run", "--env", env, *scripted], "envs"))
    return cases


def test_every_command_needing_an_extra_names_it_in_one_line_without_it(inputs: dict[str, str]) -> None:
    cases = [
        ([a if a != inputs["out"] else f"{a}{n}" for a in argv], extra)
        for n, (argv, extra) in enumerate(_cases(inputs))
    ]
    assert {_command(a) for a, _ in cases} >= set(COMMAND_EXTRAS)
    blocked = sorted({m for modules in EXTRA_MODULES.values() for m in modules})
    args = [json.dumps(blocked), json.dumps([a for a, _ in cases]), "/nonexistent/robustcall-cache"]
    done = subprocess.run(
        [sys.executable, "-c", _BASE_INSTALL, *args], capture_output=True, text=True, timeout=600, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]
    for (argv, extra), (code, stdout, stderr, bug) in zip(cases, json.loads(done.stdout), strict=True):
        where = f"robustcall {' '.join(argv)} -> {code}\n{stdout}\n{stderr}\n{bug}"
        assert bug is None and "Traceback" not in stdout + stderr, where
        last = stderr.strip().splitlines()[-1] if stderr.strip() else ""
        assert code == 1 and last.startswith(f"error: `robustcall {_command(argv)}` needs the `{extra}` extra")
        # one line, the last (best-of-n says first what it draws)
        assert last.endswith(pip_command(extra)) and stderr.count("error:") == 1, where
