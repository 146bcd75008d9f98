"""The console script registers only the asked command's module: the map of commands to modules is
complete, each module registers exactly the commands mapped to it, and the script runs a command
without importing the other command modules."""

from __future__ import annotations

import subprocess
import sys

from robustcall.cli.main import COMMAND_MODULES, app, make_app


def _names(cli: object) -> set[str]:
    import typer

    assert isinstance(cli, typer.Typer)
    commands = {c.name or (c.callback.__name__ if c.callback else "") for c in cli.registered_commands}
    groups = {g.typer_instance.info.name or g.name or "" for g in cli.registered_groups if g.typer_instance}
    return (commands | groups) - {"version"}


def test_every_command_is_mapped_to_the_module_that_registers_it() -> None:
    assert _names(app) == set(COMMAND_MODULES)
    for module in set(COMMAND_MODULES.values()):
        assert _names(make_app([module])) == {c for c, m in COMMAND_MODULES.items() if m == module}, module


def test_the_script_imports_only_the_asked_commands_module() -> None:
    code = (
        "import sys; from robustcall.cli.main import main\n"
        "try:\n    main(['import', 'bfcl', '--help'])\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in sys.modules if m.startswith('robustcall.cli.') and m.endswith('_cmd')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip().splitlines()[-1] == "['robustcall.cli.export_cmd']"
    assert "--bfcl-out" in out


def test_help_and_version_and_unknown_commands_still_work() -> None:
    run = [sys.executable, "-m", "robustcall.cli.main"]
    helped = subprocess.run([*run, "--help"], capture_output=True, text=True, check=True).stdout
    assert all(name in helped for name in COMMAND_MODULES)
    version = subprocess.run([*run, "--version"], capture_output=True, text=True, check=True).stdout
    assert version.startswith("robustcall ")
    unknown = subprocess.run([*run, "nosuch"], capture_output=True, text=True, check=False)
    assert unknown.returncode == 2 and "nosuch" in unknown.stderr
