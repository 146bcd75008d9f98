"""Every page of ``--help`` fits 80 columns, at ``COLUMNS=80`` and piped, and cuts nothing: every
option name, every default and every command's summary is there in full (issue 36 item 3)."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from typer.main import get_command
from typer.testing import CliRunner

from robustcall.cli.main import app


def _pages(cmd: Any = None, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    cmd = cmd if cmd is not None else get_command(app)
    yield path, cmd
    for name, sub in sorted(getattr(cmd, "commands", {}).items()):
        yield from _pages(sub, (*path, name))


PAGES = dict(_pages())


def _flat(text: str) -> str:
    """The help as one line: wrapped lines joined (a word broken after a hyphen joined again)."""
    return " ".join(re.sub(r"-\n\s+", "-", text).split())


def _shown_default(param: Any) -> str | None:
    if param.param_type_name != "option" or param.is_flag:
        return None
    if param.default is None or isinstance(param.default, (list, tuple)):
        return None
    if not (param.show_default or param.show_default is None):
        return None
    return str(param.default)


def _check_page(path: tuple[str, ...], cmd: Any, text: str) -> None:
    where = f"robustcall {' '.join(path)} --help:\n{text}"
    assert text.startswith("Usage:"), where
    too_wide = [line for line in text.splitlines() if len(line) > 80]
    assert not too_wide, (too_wide, where)
    flat = _flat(text)
    for param in cmd.params:
        for opt in (*param.opts, *param.secondary_opts):
            if opt.startswith("-"):
                assert re.search(rf"(^|[\s,/]){re.escape(opt)}([\s,/=]|$)", flat), (opt, where)
        default = _shown_default(param)
        if default is not None:
            assert f"default: {default}" in flat, (param.name, default, where)
    for name, sub in getattr(cmd, "commands", {}).items():
        if not sub.hidden:
            summary = " ".join((sub.short_help or sub.help or "").split())
            assert f"{name} {summary}" in flat, (name, where)


@pytest.mark.parametrize("columns", ["80", None], ids=["COLUMNS=80", "piped"])
@pytest.mark.parametrize("path", sorted(PAGES), ids=lambda p: " ".join(p) or "robustcall")
def test_help_fits_80_columns_and_cuts_nothing(path: tuple[str, ...], columns: str | None) -> None:
    res = CliRunner().invoke(app, [*path, "--help"], env={"COLUMNS": columns, "TERMINAL_WIDTH": None})
    assert res.exit_code == 0, res.output
    _check_page(path, PAGES[path], res.output)


def test_help_piped_through_a_real_pipe() -> None:
    """As a user reads it with ``| less``: a process whose stdout is a pipe, no COLUMNS set."""
    path = ("faults", "run")
    code = "from robustcall.cli.main import app; app()"
    env = {k: v for k, v in __import__("os").environ.items() if k not in ("COLUMNS", "TERMINAL_WIDTH")}
    done = subprocess.run(
        [sys.executable, "-c", code, *path, "--help"], capture_output=True, text=True, env=env, check=False
    )
    assert done.returncode == 0, done.stderr
    _check_page(path, PAGES[path], done.stdout.replace("-c faults run", "robustcall faults run"))
    assert "--max-infra-errors" in done.stdout
