"""Appendix L error modes of an incorrect prediction, in the rubric's deterministic order."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

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
    modes = ErrorModes(golden_names, component, alternatives=alternatives)
    return modes.classify(raw, [(c.name, c.arguments) for c in calls])


class ErrorModes:
    """:func:`error_mode` for one sample (golden names prepared once); calls as ``(name, args)``."""

    __slots__ = ("_alternatives", "_gold", "_gold_set", "_name_bias")

    def __init__(self, golden_names: Iterable[str], component: Component, *, alternatives: bool = False) -> None:
        gold = list(golden_names)
        self._gold = sorted(gold)
        self._gold_set = frozenset(gold)
        self._name_bias: ErrorMode = "name_bias" if component == "reward" and gold else "wrong"
        self._alternatives = alternatives

    def classify(self, raw: str, calls: Sequence[tuple[str, Any]]) -> ErrorMode:
        if not calls:
            return "empty" if not raw.strip() else "omitted"
        gold_set = self._gold_set
        for name, _ in calls:
            if name not in gold_set:
                return self._name_bias
        if self._alternatives or sorted(name for name, _ in calls) == self._gold:
            return "param_mismatch"
        return "other"
