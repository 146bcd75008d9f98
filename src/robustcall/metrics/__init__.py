"""Statistics over verdicts."""

from robustcall.metrics._summary import COMPONENT_ORDER, Cell, Summary, bootstrap_halfwidth, summarize

__all__ = ["COMPONENT_ORDER", "Cell", "Summary", "bootstrap_halfwidth", "summarize"]
