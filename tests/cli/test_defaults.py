"""Defaults live in one record (``robustcall.core.DEFAULTS``), and ``--concurrency`` means the same
in every command."""

from __future__ import annotations

import dataclasses
from typing import Any

import typer

from robustcall.cli._options import CONCURRENCY_HELP
from robustcall.cli.main import app
from robustcall.core import DEFAULTS
from robustcall.metrics import DEFAULT_RESAMPLES
from robustcall.models import DEFAULT_CONCURRENCY, HttpClient, ModelSettings, make_model

# --concurrency options whose help text is still their own, each with the helper that moves it onto
# CONCURRENCY_HELP (cli/_options.py's ConcOpt); the test fails once one agrees, so that the entry is
# removed.
KNOWN_OWN_HELP: dict[str, str] = {}


def test_the_model_settings_and_bootstrap_defaults_come_from_the_one_record() -> None:
    settings = ModelSettings()
    for field in dataclasses.fields(ModelSettings):
        if hasattr(DEFAULTS, field.name):
            assert getattr(settings, field.name) == getattr(DEFAULTS, field.name), field.name
    assert (settings.timeout_s, settings.max_retries, settings.max_tokens) == (120.0, 5, 1024)
    assert (
        (DEFAULT_CONCURRENCY, DEFAULT_RESAMPLES) == (4, 10_000) == (DEFAULTS.concurrency, DEFAULTS.bootstrap_resamples)
    )


def test_the_connection_pool_follows_the_concurrency() -> None:
    assert HttpClient("http://127.0.0.1:9")._free == DEFAULTS.concurrency
    model = make_model("openai:m@http://127.0.0.1:9/v1,http://127.0.0.1:10/v1", concurrency=7)
    pool = model._endpoints()  # type: ignore[attr-defined]
    assert [ep.client._free for ep in pool.endpoints] == [7, 7]


def _commands(group: Any, prefix: str = "") -> dict[str, Any]:
    """Every leaf command by its path (typer's own click: checked by shape, not by class)."""
    out: dict[str, Any] = {}
    for name, cmd in group.commands.items():
        path = f"{prefix}{name}"
        if hasattr(cmd, "commands"):
            out.update(_commands(cmd, path + " "))
        else:
            out[path] = cmd
    return out


def test_concurrency_means_requests_in_flight_in_every_command() -> None:
    with_option = {}
    for path, cmd in _commands(typer.main.get_command(app)).items():
        for param in cmd.params:
            if "--concurrency" in getattr(param, "opts", []):
                with_option[path] = param
    expected = {"run", "bench", "rm build-bench", "rm train-data", "rm best-of-n", "faults run", "pipe run"}
    assert expected <= set(with_option)
    own = set()
    for path, param in with_option.items():
        assert param.default in (DEFAULTS.concurrency, None), path
        if not (param.help or "").startswith(CONCURRENCY_HELP):
            own.add(path)
    assert own <= set(KNOWN_OWN_HELP), (
        f"--concurrency help of its own (use cli._options.ConcOpt): {own - set(KNOWN_OWN_HELP)}"
    )
    agreeing = {p for p in KNOWN_OWN_HELP if p in with_option and p not in own}
    assert not agreeing, f"these now agree: remove them from KNOWN_OWN_HELP in tests/cli/test_defaults.py: {agreeing}"
