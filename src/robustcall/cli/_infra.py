"""One contract for every command that talks to a model: the endpoint's failures are named, the
run stops on repeated identical ones, and infrastructure errors left at the end exit 3.

``--stop-after N``: after N identical failures in a row (retried attempts count; 0: never) nothing
more is sent and the command exits 3 with the failure's text. ``--max-infra-errors M``: a command
that finished with more than M requests, records or episodes lost to the endpoint exits 3.
Either way the most common failures are printed with their counts (``print_failures``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from robustcall.cli._errors import EXIT_INFRA_ERRORS
from robustcall.core import DEFAULTS, RunFailed

if TYPE_CHECKING:  # the model clients load only when a command talks to a model
    from robustcall.models import FailureWatch

STOP_AFTER = DEFAULTS.stop_after

console = Console(stderr=True)

MaxInfraOpt = Annotated[
    int,
    typer.Option(
        "--max-infra-errors",
        min=0,
        help="Infrastructure errors a finished run may leave and still exit 0 (default 0; else exit 3).",
    ),
]
StopAfterOpt = Annotated[
    int | None,
    typer.Option(
        "--stop-after",
        min=0,
        help=f"Stop after this many identical endpoint failures in a row, retried attempts included "
        f"(default {STOP_AFTER}; 0: never); exit 3.",
    ),
]


def stop_after_or_default(stop_after: int | None) -> int:
    return STOP_AFTER if stop_after is None else stop_after


def short(reason: str) -> str:
    """A failure's text on one line, at most 300 characters."""
    from robustcall.run import one_line

    return one_line(reason)


def top_failures(reasons: Counter[str], n: int = 3) -> list[tuple[str, int]]:
    """The ``n`` most common failures with their counts, most common first."""
    return sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0]))[:n]


def print_failures(reasons: Counter[str], n: int = 3) -> None:
    """``  <count> x <reason>`` for the most common failures, on stderr."""
    for reason, count in top_failures(reasons, n):
        console.print(f"  {count} x {short(reason)}", soft_wrap=True, markup=False, highlight=False)


def reasons_of(errors: Iterable[str | None]) -> Counter[str]:
    return Counter(e for e in errors if e is not None)


def stopped_error(stop_after: int, reason: str, then: str) -> RunFailed:
    """Exit 3: the command stopped on ``stop_after`` identical failures; ``then`` says what next."""
    from robustcall.run import stopped_failure

    return stopped_failure(stop_after, reason, then)


def check_infra(errors: int, total: int, max_infra_errors: int, what: str, then: str) -> None:
    """Exit 3 when a finished command left more infrastructure errors than allowed."""
    if errors > max_infra_errors:
        raise RunFailed(
            f"{errors} of {total} {what} ended in infrastructure errors "
            f"(allowed: --max-infra-errors {max_infra_errors}); {then}",
            exit_code=EXIT_INFRA_ERRORS,
        )


@contextmanager
def watching(stop_after: int | None) -> Iterator[FailureWatch]:
    """A ``FailureWatch`` over every request made in this context (``asyncio.run`` and event loops
    started inside it see it too)."""
    from robustcall.models import FailureWatch, failure_watch

    watch = FailureWatch(stop_after_or_default(stop_after))
    token = failure_watch.set(watch)
    try:
        yield watch
    finally:
        failure_watch.reset(token)


def finish_watched(watch: FailureWatch, max_infra_errors: int) -> None:
    """After a watched command's endpoint work: print the failures; exit 3 when it stopped, or when
    more requests got no answer than ``max_infra_errors`` allows (nothing is written then)."""
    lost = sum(watch.lost.values())
    requests = lost + watch.answered
    if lost:
        console.print(f"{lost} of {requests} requests got no answer from the endpoint:")
        print_failures(watch.lost)
    then = "fix the endpoint or the request, then run the same command again (nothing was written)"
    if watch.stopped is not None:
        raise stopped_error(watch.stop_after, watch.stopped, then)
    check_infra(lost, requests, max_infra_errors, "requests", then)
