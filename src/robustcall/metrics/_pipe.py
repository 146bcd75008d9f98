"""PIPE statistics (What Do Agents Learn from Trajectory-SFT, §4-6, Appendices F-G).

- success rates s0 (Origin), s1 (Perturb 1, synonyms), s2 (Perturb 2, symbols);
  Δ = (s1 + s2) / 2 − s0 (negative: the agent relied on the original names);
- legacy calls per episode (Table 9): calls of an original name the perturbed interface hides;
- Interface Reliance (Appendix F, eq. 2-3): per dual-interface ordering,
  IRLOG = mean_k log((n_ori^(k) + α) / (n_syn^(k) + α)), and IR = exp((IRLOG_1 + IRLOG_2) / 2);
  with one ordering this is eq. 1, the geometric mean of per-task preference ratios;
- naive IR (Appendix G, eq. 4): the arithmetic mean of the same ratios, for comparison only.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from robustcall.core import InputError

ALPHAS = (0.5, 1.0, 2.0)
"""The smoothing constants the paper reports (α = 1 in the main tables)."""

Counts = Sequence[tuple[int, int]]
"""Per episode: (n_ori, n_syn)."""


def _ratios(counts: Counts, alpha: float) -> list[float]:
    if alpha <= 0:
        raise ValueError(f"alpha must be > 0, got {alpha}")
    if not counts:
        raise InputError("interface reliance needs at least one episode")
    return [(ori + alpha) / (syn + alpha) for ori, syn in counts]


def ir_log(counts: Counts, alpha: float = 1.0) -> float:
    """Eq. 2: mean over episodes of log((n_ori + α) / (n_syn + α))."""
    return sum(math.log(r) for r in _ratios(counts, alpha)) / len(counts)


def interface_reliance(order_1: Counts, order_2: Counts | None = None, alpha: float = 1.0) -> float:
    """Eq. 3 (eq. 1 when only one ordering is given): > 1 prefers the original names."""
    logs = [ir_log(order_1, alpha)] + ([ir_log(order_2, alpha)] if order_2 is not None else [])
    return math.exp(sum(logs) / len(logs))


def naive_interface_reliance(counts: Counts, alpha: float = 1.0) -> float:
    """Eq. 4: the arithmetic mean of per-episode ratios (unstable; Appendix G)."""
    ratios = _ratios(counts, alpha)
    return sum(ratios) / len(ratios)


def pipe_delta(s0: float, s1: float, s2: float) -> float:
    """Δ = (s1 + s2) / 2 − s0."""
    return (s1 + s2) / 2 - s0
