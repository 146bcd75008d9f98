"""Options several commands share, with one help text each (defaults from ``robustcall.core.DEFAULTS``)."""

from __future__ import annotations

from typing import Annotated

import typer

from robustcall.core import DEFAULTS

CONCURRENCY_HELP = "Requests in flight at once; each model's connection pool is sized to it."
"""What ``--concurrency`` means in every command: model requests in flight at once, whatever loop
issues them (samples of a run, episodes of a fault run, draws of a reward-bench build)."""

DEFAULT_CONCURRENCY = DEFAULTS.concurrency
DEFAULT_RESAMPLES = DEFAULTS.bootstrap_resamples

ConcOpt = Annotated[int, typer.Option("--concurrency", min=1, help=CONCURRENCY_HELP)]
"""``--concurrency`` (default ``DEFAULTS.concurrency``)."""
BootstrapOpt = Annotated[int, typer.Option("--bootstrap", min=0, help="Bootstrap resamples B.")]
"""``--bootstrap`` (default ``DEFAULTS.bootstrap_resamples``)."""
