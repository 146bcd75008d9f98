"""PIPE statistics (What Do Agents Learn from Trajectory-SFT, §4-6, Appendices F-G).

- success rates s0 (Origin), s1 (Perturb 1, synonyms), s2 (Perturb 2, symbols);
  Δ = (s1 + s2) / 2 − s0 (negative: the agent relied on the original names);
- legacy calls per episode (Table 9): calls of an original name the perturbed interface hides;
- Interface Reliance (Appendix F, eq. 2-3): per dual-interface ordering,
  IRLOG = mean_k log((n_ori^(k) + α) / (n_syn^(k) + α)), and IR = exp((IRLOG_1 + IRLOG_2) / 2);
  with one ordering this is eq. 1, the geometric mean of per-task preference ratios;
- naive IR (Appendix G, eq. 4): the arithmetic mean of the same ratios, for comparison only.

Combining the two orders. The paper gives two ways that differ: Appendix F's eq. 3 (``"eq3"``,
the default: IRLOG per order, then the mean of the two logs) and §6's prose (``"counts"``: average
each task's n_ori and n_syn over the two runs, then eq. 1 on the averaged counts; tasks are matched
by id and need both orders). On one task run as (3, 0) and (0, 1) at α = 1, eq. 3 gives
exp((log 4 + log ½) / 2) = √2 ≈ 1.41 and §6 gives (1.5 + 1) / (0.5 + 1) = 5/3 ≈ 1.67. eq. 3 is the
default because it is the one the paper writes as its implementation (Appendix F) and the one
Appendix G's worked example is an instance of (integer per-episode counts of one run, aggregated in
log space); the published tables cannot decide it (their per-task counts are not published, and
Table 11's naive values fall below Table 16's IR in places, e.g. SciWorld Gemma3-4b trained 0.25 vs
7.69, which no combination of the same counts allows, since an arithmetic mean is never below the
geometric one). Tables print which combination they use.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Literal

from robustcall.core import InputError

ALPHAS = (0.5, 1.0, 2.0)
"""The smoothing constants the paper reports (α = 1 in the main tables)."""

Counts = Sequence[tuple[float, float]]
"""Per episode: (n_ori, n_syn) (averaged counts may be halves)."""


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


Combine = Literal["eq3", "counts"]
COMBINES: tuple[Combine, ...] = ("eq3", "counts")
COMBINE_LABELS: dict[Combine, str] = {
    "eq3": "eq. 3: IR = exp((IRLOG_1 + IRLOG_2) / 2), IRLOG = mean over episodes of log((n_ori + α) / (n_syn + α))",
    "counts": "§6: per-task n_ori and n_syn averaged over the two orders, "
    "then IR = exp(mean log((n̄_ori + α) / (n̄_syn + α)))",
}


def averaged_counts(
    order_1: Mapping[str, tuple[int, int]], order_2: Mapping[str, tuple[int, int]]
) -> list[tuple[float, float]]:
    """§6: per task (present in both orders), n_ori and n_syn averaged across the two runs."""
    tasks = sorted(set(order_1) & set(order_2))
    if not tasks:
        raise ValueError("averaging counts over the two orders needs tasks run in both orders")
    return [((order_1[t][0] + order_2[t][0]) / 2, (order_1[t][1] + order_2[t][1]) / 2) for t in tasks]


def combined_interface_reliance(
    order_1: Mapping[str, tuple[int, int]],
    order_2: Mapping[str, tuple[int, int]],
    alpha: float = 1.0,
    combine: Combine = "eq3",
) -> float:
    """IR of a counterbalanced run, per task id and order, combined as ``combine`` says (module docstring)."""
    if combine == "eq3":
        return interface_reliance(list(order_1.values()), list(order_2.values()), alpha)
    if combine == "counts":
        return interface_reliance(averaged_counts(order_1, order_2), None, alpha)
    raise ValueError(f"unknown combination {combine!r}; known: {', '.join(COMBINES)}")


def naive_interface_reliance(counts: Counts, alpha: float = 1.0) -> float:
    """Eq. 4: the arithmetic mean of per-episode ratios (unstable; Appendix G)."""
    ratios = _ratios(counts, alpha)
    return sum(ratios) / len(ratios)


def pipe_delta(s0: float, s1: float, s2: float) -> float:
    """Δ = (s1 + s2) / 2 − s0."""
    return (s1 + s2) / 2 - s0
