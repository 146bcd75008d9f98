"""Statistics over verdicts."""

from robustcall.metrics._robustness import (
    DELTA_COMPONENTS,
    Estimate,
    Robustness,
    ScoreMatrix,
    Significance,
    error_mode_shares,
    marker,
    paired_significance,
    robustness,
    source_id,
)
from robustcall.metrics._summary import COMPONENT_ORDER, Cell, Summary, bootstrap_halfwidth, summarize

__all__ = [
    "COMPONENT_ORDER",
    "DELTA_COMPONENTS",
    "Cell",
    "Estimate",
    "Robustness",
    "ScoreMatrix",
    "Significance",
    "Summary",
    "bootstrap_halfwidth",
    "error_mode_shares",
    "marker",
    "paired_significance",
    "robustness",
    "source_id",
    "summarize",
]
