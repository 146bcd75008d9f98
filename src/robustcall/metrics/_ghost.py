"""Ghost-tool calls (Appendix N (7), beyond the paper): calls to tools that are not in the list the
model was given, counted in every run kind and split three ways (craft-agents-oss#449, adk-python#4775):

- ``near_miss``: a listed name misspelt, restyled or decorated (once case and separators are dropped,
  one name contains the other, e.g. ``advanced_get_weather``; or a ``difflib`` similarity of at least
  0.8 to a listed name);
- ``sibling``: a real tool of a sibling library: listed for another sample or task of the same run;
- ``invented``: anything else.
"""

from __future__ import annotations

import re
import sys
from collections import defaultdict
from collections.abc import Collection, Iterable
from difflib import SequenceMatcher
from typing import Literal

from pydantic import BaseModel

from robustcall.core import PredictionRecord, Trajectory

GhostKind = Literal["near_miss", "sibling", "invented"]
NEAR_MISS_RATIO = 0.8


class GhostCounts(BaseModel):
    """Calls made and how many of them named a tool that was not listed, by kind."""

    calls: int = 0
    near_miss: int = 0
    sibling: int = 0
    invented: int = 0

    @property
    def ghost(self) -> int:
        return self.near_miss + self.sibling + self.invented

    def add(self, kind: GhostKind | None) -> None:
        self.calls += 1
        if kind is not None:
            setattr(self, kind, getattr(self, kind) + 1)


def _norm(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


def ghost_kind(name: str, listed: Collection[str], siblings: Collection[str]) -> GhostKind | None:
    """``None`` when ``name`` is listed; else which kind of ghost it is."""
    if name in listed:
        return None
    norm = _norm(name)
    for real in listed:
        other = _norm(real)
        contains = min(len(norm), len(other)) >= 4 and (other in norm or norm in other)
        if contains or SequenceMatcher(None, name, real).ratio() >= NEAR_MISS_RATIO:
            return "near_miss"
    return "sibling" if name in siblings else "invented"


def ghost_calls_in_records(records: Iterable[PredictionRecord]) -> GhostCounts:
    """Ghost calls over a single-turn run; siblings are the tools of the same benchmark's other samples."""
    return ghost_calls_in_rows(ghost_row(r) for r in records)


def ghost_row(record: PredictionRecord) -> tuple[str, frozenset[str], list[str]]:
    """What the ghost-call count needs of a record: its benchmark, its listed tool names and the
    names it called (so that a streamed run keeps these, not the records)."""
    listed = frozenset(sys.intern(t.name) for t in record.tools)
    return sys.intern(record.benchmark), listed, [c.name for c in record.prediction.tool_calls]


def ghost_calls_in_rows(rows: Iterable[tuple[str, frozenset[str], list[str]]]) -> GhostCounts:
    """:func:`ghost_calls_in_records` over :func:`ghost_row` rows."""
    got = list(rows)
    by_benchmark: dict[str, set[str]] = defaultdict(set)
    for benchmark, listed, _ in got:
        by_benchmark[benchmark].update(listed)
    counts = GhostCounts()
    for benchmark, listed, called in got:
        for name in called:
            counts.add(ghost_kind(name, listed, by_benchmark[benchmark]))
    return counts


def ghost_calls_in_trajectories(trajectories: Iterable[Trajectory]) -> GhostCounts:
    """Ghost calls over multi-turn episodes, against the tools listed at reset (``config["tools"]``);
    siblings are the tools listed in the run's other episodes of the same environment. Episodes
    written before the list was recorded are skipped."""
    trajs = [t for t in trajectories if isinstance(t.config.get("tools"), list)]
    by_env: dict[str, set[str]] = defaultdict(set)
    for t in trajs:
        by_env[t.env].update(str(n) for n in t.config["tools"])
    counts = GhostCounts()
    for t in trajs:
        listed = {str(n) for n in t.config["tools"]}
        for step in t.steps:
            if step.action is not None:
                counts.add(ghost_kind(step.action.name, listed, by_env[t.env]))
    return counts
