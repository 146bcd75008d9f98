"""Appendix L error modes of an incorrect prediction, in the rubric's deterministic order."""

from __future__ import annotations

from collections.abc import Iterable

from robustcall.core import Component, ErrorMode, ToolCall


def error_mode(
    raw: str,
    calls: list[ToolCall],
    golden_names: Iterable[str],
    component: Component,
    *,
    alternatives: bool = False,
) -> ErrorMode:
    """Classify an incorrect prediction.

    ``empty``: no call and ``not raw.strip()``; ``omitted``: text but no parseable call; then, with
    calls: a called name that no golden call has is ``name_bias`` under Reward perturbations (the
    model picked a distractor) and ``wrong`` elsewhere; names right but arguments wrong is
    ``param_mismatch``; names and arguments each fine but the set wrong (count, order, duplicates)
    is ``other``. ``alternatives``: the golden calls are alternatives (one suffices), not a set.
    """
    if not calls:
        return "empty" if not raw.strip() else "omitted"
    gold = list(golden_names)
    gold_set = set(gold)
    if any(c.name not in gold_set for c in calls):
        return "name_bias" if component == "reward" and gold else "wrong"
    if alternatives or sorted(c.name for c in calls) == sorted(gold):
        return "param_mismatch"
    return "other"
