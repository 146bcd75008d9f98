"""Which failed answers to retry, how long to wait, and which ones are the model's own fault."""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

BackoffLender = Callable[[], AbstractAsyncContextManager[None]]

backoff_lender: ContextVar[BackoffLender | None] = ContextVar("robustcall_backoff_lender", default=None)
"""Set by a run loop that bounds how many requests are in flight: a request waiting out a backoff
enters ``backoff_lender()`` for the wait, so that its place goes to another request meanwhile and
it queues for a place again after (a retry never holds a place it does not use)."""

_JITTER = random.Random()
"""Backoff jitter only: it spreads retries in time and never touches a result."""

# llama.cpp's 500 when the model's text misses the tool-call grammar / format. Older servers say
# "Failed to parse input at pos N: <raw text>", newer ones "The model produced output that does
# not match the expected <format> format"; both are the model's output, not the endpoint failing.
_MODEL_FORMAT = re.compile(
    r"failed to parse input at pos|does not match the expected .{0,80}format|"
    r"failed to parse tool call|tool call arguments as json|"
    r"(?:output|generation|text) (?:does not|doesn't) match the (?:tool[- ]call )?grammar",
    re.IGNORECASE,
)
_RAW_AFTER = re.compile(r"failed to parse input at pos \d+:\s?(.*)\Z", re.IGNORECASE | re.DOTALL)


@dataclass(frozen=True)
class ModelFormatError:
    """A server answer rejecting the model's own output."""

    message: str
    raw_text: str
    """The model's text when the server quoted it, else ``""``."""


def model_format_error(status: int, message: str) -> ModelFormatError | None:
    """Classify an HTTP 500 whose message says the model's output did not parse."""
    if status != 500 or not _MODEL_FORMAT.search(message):
        return None
    m = _RAW_AFTER.search(message)
    return ModelFormatError(message=message, raw_text=m.group(1) if m else "")


def retryable_status(status: int) -> bool:
    """429 and 5xx are worth another try; other 4xx are the request's fault."""
    return status == 429 or 500 <= status <= 599


def retry_after_s(value: str | None, *, now: datetime | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (delta-seconds or an HTTP date)."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())


def backoff_s(attempt: int, base_s: float, max_s: float) -> float:
    """Exponential backoff with full jitter: uniform in [0, min(max, base * 2**attempt)]."""
    return _JITTER.uniform(0.0, min(max_s, base_s * (2.0**attempt)))
