"""What an FC-RewardBench file holds, in the layout of the ToolRM paper's Appendix tables:
Table 6's statistics (examples, tools, multi-turn queries, nested calls, calls per output),
Table 1's error types and Table 7's count of rejected outputs per generator model (which the
records store as ``model_name``).

Definitions (the paper gives the columns, not how they are counted):

- **# Tools**: distinct tool definitions over all records (canonical JSON of the spec, so two
  different tools that share a name count twice); the average is the catalog size per record.
- **MT query**: a record whose conversation holds more than one user turn; its **turns** are its
  user turns (BFCL v3 single-turn, the benchmark's source, has none).
- **Nested calls**: some chosen output passes a call of a catalog tool as an argument value (a
  ``{"name", "arguments"}`` object, or a string ``tool(...)``).
- **Avg. output tool calls**: calls per chosen output; the rejected outputs' average beside it is
  over the readable ones (an *Incorrect output format* record may not parse).
- **Data source**: *Real* for rejected outputs a generator wrote, *Synthetic* for mutator top-ups
  (``synthetic:<type>``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from robustcall.core import canonical_json
from robustcall.rewards._output import output_calls
from robustcall.rewards._types import SYNTHETIC_PREFIX, RewardPair


@dataclass
class BenchStats:
    """Table 6's statistics of one FC-RewardBench file, with its error types and generators."""

    examples: int = 0
    tools: int = 0
    """Distinct tool definitions."""
    tools_per_query: float = 0.0
    mt_queries: int = 0
    mt_turns: float | None = None
    """Mean user turns of the multi-turn records (``None`` without any)."""
    nested: int = 0
    """Records whose chosen output nests a call."""
    chosen_calls: float = 0.0
    rejected_calls: float | None = None
    """Mean calls of the readable rejected outputs (``None`` when none is readable)."""
    unreadable_rejected: int = 0
    real: int = 0
    synthetic: int = 0
    by_type: Counter[str] = field(default_factory=Counter)
    by_model: Counter[str] = field(default_factory=Counter)
    by_model_type: dict[str, Counter[str]] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {
            "examples": self.examples,
            "tools": self.tools,
            "tools_per_query": self.tools_per_query,
            "mt_queries": self.mt_queries,
            "mt_turns": self.mt_turns,
            "nested": self.nested,
            "chosen_calls": self.chosen_calls,
            "rejected_calls": self.rejected_calls,
            "unreadable_rejected": self.unreadable_rejected,
            "real": self.real,
            "synthetic": self.synthetic,
            "by_type": dict(sorted(self.by_type.items())),
            "by_model": dict(sorted(self.by_model.items())),
            "by_model_type": {m: dict(sorted(c.items())) for m, c in sorted(self.by_model_type.items())},
        }


def _nests(value: Any, names: set[str]) -> bool:
    """``value`` (an argument) holds a call of one of ``names``."""
    if isinstance(value, dict):
        if value.get("name") in names and isinstance(value.get("arguments", value.get("parameters")), dict):
            return True
        return any(_nests(v, names) for v in value.values())
    if isinstance(value, list):
        return any(_nests(v, names) for v in value)
    if isinstance(value, str):
        head = value.strip().split("(", 1)
        return len(head) == 2 and head[0] in names and value.strip().endswith(")")
    return False


def bench_stats(records: Sequence[RewardPair]) -> BenchStats:
    """Table 6's columns, Table 1's types and Table 7's generators for ``records``."""
    st = BenchStats(examples=len(records))
    tools: set[str] = set()
    mt_turns: list[int] = []
    chosen: list[int] = []
    rejected: list[int] = []
    for r in records:
        tools.update(canonical_json(t) for t in r.tools)
        users = sum(1 for m in r.conversation if m.get("role") == "user")
        if users > 1:
            mt_turns.append(users)
        names = {str(t.get("name")) for t in r.tools}
        calls = output_calls(r.chosen_output) or []
        chosen.append(len(calls))
        st.nested += any(_nests(v, names) for c in calls for v in c.arguments.values())
        bad = output_calls(r.rejected_output)
        if bad is None:
            st.unreadable_rejected += 1
        else:
            rejected.append(len(bad))
        st.synthetic += r.model_name.startswith(SYNTHETIC_PREFIX)
        st.by_type[r.error_type] += 1
        st.by_model[r.model_name] += 1
        st.by_model_type.setdefault(r.model_name, Counter())[r.error_type] += 1
    n = len(records)
    st.real = n - st.synthetic
    st.tools = len(tools)
    st.tools_per_query = sum(len(r.tools) for r in records) / n if n else 0.0
    st.mt_queries = len(mt_turns)
    st.mt_turns = sum(mt_turns) / len(mt_turns) if mt_turns else None
    st.chosen_calls = sum(chosen) / n if n else 0.0
    st.rejected_calls = sum(rejected) / len(rejected) if rejected else None
    return st
