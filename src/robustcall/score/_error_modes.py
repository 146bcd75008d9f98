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
    distractors: Iterable[str] = (),
) -> ErrorMode:
    """Classify an incorrect prediction.

    ``empty``: no call and ``not raw.strip()``; ``omitted``: text but no parseable call; then, with
    calls: a called name that no golden call has is ``name_bias`` under Reward perturbations when it
    is the perturbation's distractor (``distractors``: the model picked it, Appendix L) and ``wrong``
    otherwise (any other wrong name, and every wrong name outside Reward); names right but arguments
    wrong is ``param_mismatch``; names and arguments each fine but the set wrong (count, order,
    duplicates) is ``other``. ``alternatives``: the golden calls are alternatives (one suffices), not
    a set.
    """
    modes = ErrorModes(golden_names, component, alternatives=alternatives, distractors=distractors)
    return modes.classify(raw, [(c.name, c.arguments) for c in calls])


_NONE: frozenset[str] = frozenset()


class ErrorModes:
    """:func:`error_mode` for one sample (golden names prepared once); calls as ``(name, args)``."""

    __slots__ = ("_alternatives", "_bias", "_gold", "_gold_set")

    def __init__(
        self,
        golden_names: Iterable[str],
        component: Component,
        *,
        alternatives: bool = False,
        distractors: Iterable[str] = (),
    ) -> None:
        # built per record on the per-record path, so kept to what every classification reads
        self._gold = list(golden_names)  # sorted where compared (a few names), not for every record
        self._gold_set = frozenset(self._gold)
        # the distractors a call may have picked: only under Reward, never a golden name
        self._bias = frozenset(distractors).difference(self._gold) if component == "reward" else _NONE
        self._alternatives = alternatives

    def classify(self, raw: str, calls: Sequence[tuple[str, Any]]) -> ErrorMode:
        if not calls:
            return "empty" if not raw or raw.isspace() else "omitted"  # not raw.strip(), without the copy
        gold_set = self._gold_set
        off = False
        for name, _ in calls:
            if name not in gold_set:
                if name in self._bias:
                    return "name_bias"
                off = True
        if off:
            return "wrong"
        if self._alternatives or sorted(name for name, _ in calls) == sorted(self._gold):
            return "param_mismatch"
        return "other"
