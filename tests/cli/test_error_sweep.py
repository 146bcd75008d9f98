"""Every command, given wrong arguments, ends in a short message and a non-zero exit, never a traceback.

The commands are enumerated from the typer app itself, so a command added later is swept too.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.main import get_command
from typer.testing import CliRunner

from robustcall.cli.main import app

MAX_LINES = 4
"""A user error is one or two lines; click's usage errors add a "see --help" line."""


def _commands(group: Any = None, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    group = group if group is not None else get_command(app)
    for name, cmd in sorted(getattr(group, "commands", {}).items()):
        if getattr(cmd, "commands", None):
            yield from _commands(cmd, (*path, name))
        else:
            yield (*path, name), cmd


COMMANDS = dict(_commands())


def _opt(param: Any) -> str:
    return next((o for o in param.opts if o.startswith("--")), param.opts[0])


OUTPUTS = ("out", "output_dir")
"""Parameters that name what a command writes: a path that does not exist yet is right for them."""


def _required_args(cmd: Any, value: str, output: str | None = None) -> list[str]:
    """Every required parameter of ``cmd`` given ``value`` (outputs given ``output`` when set)."""
    args: list[str] = []
    for p in cmd.params:
        if not p.required:
            continue
        v = output if output is not None and p.name in OUTPUTS else value
        if type(p).__name__ == "TyperArgument":
            args.append(v)
        else:
            args += [_opt(p), v]
    return args


def _numeric(param: Any) -> bool:
    """Whether ``param`` takes an int or a float (typer >= 0.20 keeps the annotation, click a type)."""
    descriptor = getattr(param, "type_descriptor", None)
    if descriptor is not None:
        return descriptor.annotation in (int, float, int | None, float | None)
    return type(getattr(param, "type", None)).__name__ in ("IntParamType", "FloatParamType", "IntRange", "FloatRange")


def _wrong_invocations(path: tuple[str, ...], cmd: Any, files: dict[str, Path]) -> list[tuple[list[str], int | None]]:
    """Wrong command lines for one command, built from its own parameters, each with the exit status
    it must end in (``None``: any of 1, 2, 3)."""
    base = list(path)
    cases: list[tuple[list[str], int | None]] = [([*base, "--no-such-option"], 2)]
    names = {p.name: p for p in cmd.params}
    required = [p for p in cmd.params if p.required]
    if required:
        cases.append((base, 2))  # the required arguments left out
    if any(p.name not in OUTPUTS for p in required):
        cases.append(([*base, *_required_args(cmd, str(files["missing"]), output=str(files["fresh"]))], None))
    if required or any(n in names for n in ("model", "generator", "scorer")):
        malformed = _required_args(cmd, str(files["malformed"]), output=str(files["fresh"]))
        if any(p.name not in OUTPUTS for p in required):
            cases.append(([*base, *malformed], None))
        fresh_out = [_opt(names["out"]), str(files["fresh"])] if "out" in names and not names["out"].required else []
        for spec_opt in ("model", "generator", "scorer"):
            if spec_opt in names and names[spec_opt].required is False:
                cases.append(([*base, *malformed, *fresh_out, _opt(names[spec_opt]), "openai:gpt-4o"], 1))
    req = _required_args(cmd, str(files["missing"]), output=str(files["fresh"]))
    for numeric in ("limit", "concurrency", "port", "n", "jobs"):
        if numeric in names:
            cases.append(([*base, *req, _opt(names[numeric]), "-5"], None))
    for param in cmd.params:  # every number-valued option given a word: click refuses it before the command runs
        if param.opts and param.opts[0].startswith("-") and _numeric(param) and not param.is_flag:
            cases.append(([*base, _opt(param), "many", *req], 2))  # first: click checks in command-line order
    return cases


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("wrong")
    malformed = d / "malformed.jsonl"
    malformed.write_text('{"id": "x"\nnot json at all\n')
    return {"missing": d / "no" / "such" / "thing.jsonl", "malformed": malformed, "fresh": d / "fresh"}


def _check(args: list[str], code: int | None = None) -> None:
    result = CliRunner().invoke(app, args, env={"ROBUSTCALL_CACHE": "/nonexistent/robustcall-cache"})
    where = (
        f"`robustcall {' '.join(args)}` -> exit {result.exit_code}\nstdout:\n{result.stdout}\nstderr:\n{result.stderr}"
    )
    # an exception other than SystemExit escaping the command would be a traceback for the user
    assert result.exception is None or isinstance(result.exception, SystemExit), (where, result.exception)
    assert "Traceback" not in result.output, where
    # the documented statuses: usage 2, input 1, infrastructure 3 (never 0, never another)
    assert result.exit_code == code if code is not None else result.exit_code in (1, 2, 3), where
    # the message goes to stderr, `error:` first, nothing before it (not even an empty line) and
    # nothing on stdout; a hint may follow on stderr
    assert result.stderr.startswith("error: "), where
    assert result.stdout == "", where
    assert len(result.output.splitlines()) <= MAX_LINES, where


def test_the_sweep_knows_every_command() -> None:
    assert {" ".join(p) for p in COMMANDS} >= {"run", "score", "report", "bench", "build", "leaderboard serve"}
    assert len(COMMANDS) >= 25


@pytest.mark.parametrize("path", sorted(COMMANDS), ids=" ".join)
def test_every_command_refuses_wrong_arguments_in_a_few_lines(path: tuple[str, ...], files: dict[str, Path]) -> None:
    for args, code in _wrong_invocations(path, COMMANDS[path], files):
        _check(args, code)
