"""Table 3's composition: which (sample, type) records a ``--composition paper`` build keeps.

The paper's counts (Tables 7-14: one sample count per type reproduces every accuracy and half-width
printed there; with Table 3's per-source totals):

- every clean sample gets the 4 Observation types, RedunTool and the 6 Transition types (199 each);
- the 5 Dup types and the 6 Reward types have fewer records (:func:`paper_type_counts`), and per source
  the records of these 11 types are Table 3's total minus 12 per clean sample
  (``paper_allocated_by_source``): BFCL 121, API-Bank 758, RoTBench 227, ToolAlpaca 227, ToolEyes 0.

Which samples carry them is not published; :func:`allocate` picks (sample, type) pairs meeting both
margins with a seeded rule (docs/perturbations.md, "Composition").
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from robustcall.core import STATIC_TYPES, TRANSITION_TYPES, Sample, paper_reference, seeded_rng, type_info
from robustcall.perturb._protect import golden_strings, protect
from robustcall.sources import PAPER_TABLE3

COMPOSITIONS = ("paper", "all")
"""``paper``: Table 3's clean slice and Tables 7-14's per-type counts (the default);
``all``: the balanced clean selection and every static type on every sample it applies to."""


def paper_type_counts() -> dict[str, int]:
    """Records per type in RobustBench-TC, ``clean`` first (Tables 7-14; 3,721 in all): read from
    the one copy of the paper's numbers, ``core.paper_reference()`` (``paper_models.yaml``)."""
    ref = paper_reference()
    return {"clean": ref.clean_records, **ref.type_records}


ALLOCATED_TYPES: tuple[str, ...] = tuple(
    t for t in STATIC_TYPES if t.startswith("same_name") or type_info(t).component == "reward"
)
"""The types the paper gives to only some samples: the 5 Dup types and the 6 Reward types (every
other type has 199 records; tests/perturb/test_composition.py checks it against the counts)."""

EVERY_SAMPLE = 1 + len(STATIC_TYPES) + len(TRANSITION_TYPES) - len(ALLOCATED_TYPES)
"""Records per clean sample from the clean record and the types every sample gets (12)."""


def takes_every_type(sample: Sample) -> bool:
    """Whether the types the paper gives to every sample can edit ``sample``: some word of the query
    is not protected (Typo, QueryPara: a query that is all golden value, such as a calculator's
    expression, cannot be edited), some tool has a description and some parameter a description
    (ToolPara, ParamPara, RedunTool). A ``paper`` build draws its clean slice from such samples
    (API-Bank has a few ``GetToday`` dialogues whose tools take no parameter at all)."""
    query = sample.conversation[sample.last_user_index()].content
    prot = protect(query, golden_strings(sample))
    return (
        any(not prot.covers(m.start(), m.end()) for m in re.finditer(r"\w+", query))
        and any(t.description.strip() for t in sample.tools)
        and any(
            isinstance(p, dict) and str(p.get("description") or "").strip()
            for t in sample.tools
            for p in t.properties().values()
        )
    )


def paper_allocated_by_source() -> dict[str, int]:
    """Records of the :data:`ALLOCATED_TYPES` per source in the paper: Table 3's total minus
    :data:`EVERY_SAMPLE` per clean sample."""
    return {name: total - EVERY_SAMPLE * clean for name, (clean, _, total) in PAPER_TABLE3.items()}


@dataclass
class Allocation:
    """What :func:`allocate` chose: the sample ids kept per type, and the targets it could not meet."""

    chosen: dict[str, set[str]] = field(default_factory=dict)
    type_targets: dict[str, int] = field(default_factory=dict)
    source_targets: dict[str, int] = field(default_factory=dict)
    shortfall: dict[str, int] = field(default_factory=dict)
    """Type or source -> records short of its target (empty when both margins are met)."""


def targets(clean_per_source: Mapping[str, int]) -> tuple[dict[str, int], dict[str, int]]:
    """Per-source and per-type targets for the allocated types in a build with these clean counts.

    With the paper's clean counts (Table 3) they are the paper's numbers. A build of other sizes or
    of fewer sources scales each source's row by its clean count (half up) and shares the sum over
    the types in the paper's proportions (largest remainder, ties in Table 1's order)."""
    paper_rows = paper_allocated_by_source()
    rows: dict[str, int] = {}
    for name, n in clean_per_source.items():
        clean = PAPER_TABLE3[name][0] if name in PAPER_TABLE3 else 0
        rows[name] = (2 * paper_rows[name] * n + clean) // (2 * clean) if clean else 0
    paper = paper_type_counts()
    total, paper_total = sum(rows.values()), sum(paper[t] for t in ALLOCATED_TYPES)
    exact = {t: paper[t] * total / paper_total for t in ALLOCATED_TYPES}
    cols = {t: int(v) for t, v in exact.items()}
    by_remainder = sorted(ALLOCATED_TYPES, key=lambda t: (-(exact[t] - cols[t]), ALLOCATED_TYPES.index(t)))
    for t in by_remainder[: total - sum(cols.values())]:
        cols[t] += 1
    return rows, cols


def allocate(applicable: Mapping[str, Sequence[str]], source_of: Mapping[str, str], seed: int) -> Allocation:
    """Choose which samples carry each allocated type.

    ``applicable``: type -> ids of the clean samples it applies to (every allocated type);
    ``source_of``: clean id -> source, for every clean sample of the build.

    1. Each source's target (:func:`targets`) is spread as evenly as possible over its samples
       that some allocated type applies to: every sample gets ``target // n`` types (at most as
       many as apply to it), the rest one more, those drawn with (seed, source).
    2. Types are filled in order of their target, largest first (Table 1's order among equals):
       each takes its target's worth of the samples it applies to with the most types still owed,
       ties broken by a (seed, type) shuffle.

    Step 2 is the greedy of the Gale-Ryser theorem: when every type applies to every sample of a
    source it meets both margins whenever any choice can; it does with the paper's counts
    (tests/perturb/test_composition.py). Whatever it cannot meet is reported in ``shortfall``.
    """
    clean_per_source = Counter(source_of.values())
    rows, cols = targets(clean_per_source)
    types_of = Counter(i for t in ALLOCATED_TYPES for i in set(applicable.get(t, ())))
    owed: dict[str, int] = {}
    for name in sorted(clean_per_source):
        room = {i: types_of[i] for i in sorted(i for i, s in source_of.items() if s == name)}
        owed.update(_spread(rows[name], {i: r for i, r in room.items() if r}, seed, name))
    out = Allocation(type_targets=cols, source_targets=rows)
    for code in sorted(ALLOCATED_TYPES, key=lambda t: (-cols[t], ALLOCATED_TYPES.index(t))):
        pool = sorted(i for i in applicable.get(code, ()) if owed.get(i, 0) > 0)
        seeded_rng(seed, "composition", code).shuffle(pool)
        pool.sort(key=lambda i: -owed[i])  # stable: the shuffle breaks ties
        taken = pool[: cols[code]]
        for i in taken:
            owed[i] -= 1
        out.chosen[code] = set(taken)
        if len(taken) < cols[code]:
            out.shortfall[code] = cols[code] - len(taken)
    for name in sorted(rows):
        got = sum(1 for ids in out.chosen.values() for i in ids if source_of[i] == name)
        if got < rows[name]:
            out.shortfall[name] = rows[name] - got
    return out


def _spread(total: int, room: dict[str, int], seed: int, source: str) -> dict[str, int]:
    """``total`` split as evenly as possible over ``room``'s samples, none above its room; the
    samples that get one more are drawn with (seed, source)."""
    owed = dict.fromkeys(room, 0)
    left = min(total, sum(room.values()))
    open_ = sorted(room)
    while left > 0 and open_:
        share = left // len(open_)
        if share == 0:
            for i in seeded_rng(seed, "composition", source).sample(open_, left):
                owed[i] += 1
            break
        for i in open_:
            take = min(share, room[i] - owed[i])
            owed[i] += take
            left -= take
        open_ = [i for i in open_ if owed[i] < room[i]]
    return owed
