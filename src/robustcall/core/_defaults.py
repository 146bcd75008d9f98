"""Every default a command uses when it is not told otherwise, in one typed record.

``models`` (``ModelSettings``, the clients), ``run`` (the episode loop), ``metrics`` (the bootstrap),
``rewards`` and the CLI's option defaults all read ``DEFAULTS``; change a default here and it changes
everywhere. A settings file (``--settings``, per model) or a command-line option overrides it per run.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Defaults:
    """The defaults. Decoding follows Table 15 (temperature 0, 1024 tokens); B follows the paper."""

    concurrency: int = 4
    """Requests in flight at once (``--concurrency``, every command, every backend); the HTTP
    connection pool of an endpoint is sized to it."""
    temperature: float = 0.0
    max_tokens: int = 1024
    timeout_s: float = 120.0
    """Per-request timeout, the whole request (never unbounded)."""
    connect_timeout_s: float = 10.0
    """TCP (and TLS) connect."""
    first_byte_timeout_s: float = 60.0
    """From sending the request to the first byte of the answer."""
    idle_timeout_s: float = 30.0
    """Longest silence once the answer has begun."""
    max_response_bytes: int = 16 * 2**20
    """Largest response body read."""
    max_retries: int = 5
    """Retries after the first attempt on 429 / 5xx / timeouts / dropped connections."""
    backoff_base_s: float = 0.5
    """Backoff scale: a retry waits uniform in [0, min(max, base · 2**attempt)] (full jitter)."""
    backoff_max_s: float = 30.0
    """Longest backoff before a retry."""
    max_retry_wait_s: float = 300.0
    """Longest a request waits between its retries in all (backoff and ``Retry-After`` together)."""
    stop_after: int = 5
    """Identical endpoint failures in a row, retried attempts included, after which a command stops
    (``--stop-after``; 0: never)."""
    bootstrap_resamples: int = 10_000
    """B, the bootstrap resamples of every interval (``--bootstrap``)."""
    audit_pairs: int = 50
    """(clean, perturbed) pairs the Appendix H judge scores per type (``robustcall audit --n``)."""
    draw_max_tokens: int = 256
    """Length cap of every sampled reward-model draw (FC-RewardBench pools, Best-of-n): tool calls are
    short, a runaway draw is not."""


DEFAULTS = Defaults()
"""The one instance every module reads."""
