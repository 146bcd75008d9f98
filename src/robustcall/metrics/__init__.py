"""Statistics over verdicts and trajectories."""

from robustcall.metrics._fault_text import ACKNOWLEDGE_PATTERNS, CLASS_PATTERNS, Diagnosis, diagnose
from robustcall.metrics._faults import (
    LOOP_REPEATS,
    MODE_DISPLAY,
    EpisodeOutcome,
    FailureMode,
    FaultMetrics,
    FaultOutcome,
    analyse,
    failure_mode,
    fault_metrics,
    recovered,
    unrecoverable,
)
from robustcall.metrics._summary import COMPONENT_ORDER, Cell, Summary, bootstrap_halfwidth, summarize

__all__ = [
    "ACKNOWLEDGE_PATTERNS",
    "CLASS_PATTERNS",
    "COMPONENT_ORDER",
    "LOOP_REPEATS",
    "MODE_DISPLAY",
    "Cell",
    "Diagnosis",
    "EpisodeOutcome",
    "FailureMode",
    "FaultMetrics",
    "FaultOutcome",
    "Summary",
    "analyse",
    "bootstrap_halfwidth",
    "diagnose",
    "failure_mode",
    "fault_metrics",
    "recovered",
    "summarize",
    "unrecoverable",
]
