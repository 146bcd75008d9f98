"""The paper's 21 models as reference rows of the ranked table, merged with the stored submissions.

Figure 5's leaderboard is seeded with them; here they are not stored (they have no predictions to
score) but read from the package (``robustcall.core.paper_reference``) and merged page by page into
the store's ranking: one query per page, never the whole table.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from robustcall.core import TYPES, PaperModel, paper_reference

COMPONENTS = ("observation", "action", "reward", "transition")


@dataclass(frozen=True)
class ReferenceRow:
    """One of the paper's models as Figure 5 shows it (accuracies from the records Tables 7-14 imply)."""

    name: str
    type: str
    pert_acc: float
    clean_acc: float
    components: dict[str, float]


class Ranked(Protocol):
    """What the merge reads of a stored submission."""

    @property
    def pert_acc(self) -> float | None: ...


def reference_row(model: PaperModel) -> ReferenceRow:
    ref = paper_reference()
    by_component = {c: [t for t in ref.type_records if TYPES[t].component == c] for c in COMPONENTS}
    return ReferenceRow(
        name=model.name,
        type=model.type,
        pert_acc=ref.pooled_accuracy(model, list(ref.type_records)),
        clean_acc=ref.correct(model)["clean"] / ref.clean_records,
        components={c: ref.pooled_accuracy(model, types) for c, types in by_component.items()},
    )


def reference_rows() -> list[ReferenceRow]:
    """The paper's 21 models, best Pert. Acc. first (Figure 5's order)."""
    return sorted((reference_row(m) for m in paper_reference().models), key=lambda r: -r.pert_acc)


def _sub_above(sub: Ranked, ref: ReferenceRow) -> bool:
    """A submission ranks above a paper row when its Pert. Acc. is higher (ties: the paper's row first)."""
    return sub.pert_acc is not None and sub.pert_acc > ref.pert_acc


S = TypeVar("S", bound=Ranked)


@dataclass(frozen=True)
class MergedPage(Generic[S]):
    entries: list[tuple[int, S | ReferenceRow]]
    """(rank, row) in rank order; rank 1 is the best."""
    more: bool
    """Rows follow this page."""
    no_submissions: bool
    """The store is empty (known on page 1)."""


def merged_page(
    fetch: Callable[[int, int], list[S]], refs: Sequence[ReferenceRow], page: int, size: int
) -> MergedPage[S]:
    """Page ``page`` (from 1) of ``size`` rows of the submissions (``fetch(offset, limit)``, in the
    store's ranking) merged with ``refs`` (sorted best first).

    A submission at store index k sits at merged position k + (paper rows above it), which is k to
    k + len(refs): the page's submissions are all among the ``size + len(refs)`` from offset
    ``page start − len(refs)``; a paper row's position is its index plus the submissions above it,
    which that window decides for every paper row that can fall on the page."""
    r = len(refs)
    start = (page - 1) * size
    offset = max(0, start - r)
    window = fetch(offset, size + r + 1)
    full = len(window) == size + r + 1
    placed: list[tuple[int, S | ReferenceRow]] = [
        (offset + i + sum(1 for ref in refs if not _sub_above(sub, ref)), sub) for i, sub in enumerate(window)
    ]
    beyond = False
    for j, ref in enumerate(refs):
        if offset > 0 and not (window and _sub_above(window[0], ref)):
            continue  # above the window: its position is at most j + offset < start
        if full and _sub_above(window[-1], ref):
            beyond = True  # below the window, which already reaches past this page
            continue
        placed.append((j + offset + sum(1 for sub in window if _sub_above(sub, ref)), ref))
    placed.sort(key=lambda p: p[0])
    entries = [(pos + 1, row) for pos, row in placed if start <= pos < start + size]
    more = full or beyond or any(pos >= start + size for pos, _ in placed)
    return MergedPage(entries, more, no_submissions=page == 1 and not window)
