"""Running Best-of-n: drawing from a generator, then the tables (accuracy per method, Table 8)."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING

from robustcall.core import Sample
from robustcall.models import DEFAULT_CONCURRENCY, ChatModel
from robustcall.rewards._bestofn import IRRELEVANCE_ERROR, BonRecord, methods_of
from robustcall.rewards._sampling import Draw, sample_outputs
from robustcall.rewards._types import ERROR_TYPES

if TYPE_CHECKING:
    from robustcall.report import Table


async def draw_all(
    samples: Sequence[Sample],
    model: ChatModel,
    *,
    n: int,
    temperature: float,
    seed: int,
    concurrency: int = DEFAULT_CONCURRENCY,
    max_tokens: int | None = 256,
) -> list[tuple[Draw, list[Draw]]]:
    """Per sample: the greedy draw (T = 0) and ``n`` draws at ``temperature``, in sample order; at most
    ``concurrency`` requests in flight at once."""
    gate = asyncio.Semaphore(max(1, concurrency))
    requests = asyncio.Semaphore(max(1, concurrency))

    async def one(sample: Sample) -> tuple[Draw, list[Draw]]:
        async with gate:
            greedy = (
                await sample_outputs(model, sample, 1, temperature=0.0, seed=seed, max_tokens=max_tokens, gate=requests)
            )[0]
            draws = (
                await sample_outputs(
                    model, sample, n, temperature=temperature, seed=seed, max_tokens=max_tokens, gate=requests
                )
                if n
                else []
            )
            return greedy, draws

    try:
        return list(await asyncio.gather(*(one(s) for s in samples)))
    finally:
        await model.aclose()


def accuracy_table(records: Sequence[BonRecord], n: int) -> Table:
    """Per benchmark and method: native accuracy (BFCL AST / source rules) and full-sequence match."""
    from robustcall.report import Table

    methods = methods_of(records)
    benches = sorted({r.benchmark for r in records})
    header = ["Method"] + [f"{b} {m}" for b in benches for m in ("acc", "FSM")]
    rows = []
    for method in methods:
        cells = [method]
        for b in benches:
            rs = [r for r in records if r.benchmark == b and method in r.correct]
            acc = sum(r.correct[method] for r in rs) / len(rs) if rs else 0.0
            fsm = sum(r.fsm[method] for r in rs) / len(rs) if rs else 0.0
            cells += [f"{100 * acc:.1f}", f"{100 * fsm:.1f}"]
        rows.append(cells)
    sizes = ", ".join(f"{b}: {sum(r.benchmark == b for r in records)}" for b in benches)
    return Table(
        name="best_of_n",
        title=f"Best-of-{n} accuracy (%) by selection method ({sizes} samples)",
        header=header,
        rows=rows,
        notes=["acc: the source's own scorer (BFCL: AST); FSM: full-sequence match of names and values."],
    )


def error_table(records: Sequence[BonRecord]) -> Table:
    """Table 8: error counts per type for every method's picks."""
    from robustcall.report import Table

    methods = methods_of(records)
    counts = {m: Counter(r.error_type[m] for r in records if m in r.error_type) for m in methods}
    kinds = [*ERROR_TYPES, IRRELEVANCE_ERROR, "Other"]
    kinds = [k for k in kinds if any(counts[m][k] for m in methods)]
    rows = [[k] + [str(counts[m][k]) for m in methods] for k in kinds]
    rows.append(["Total"] + [str(sum(counts[m].values())) for m in methods])
    return Table(
        name="best_of_n_errors",
        title="Errors of the picked outputs by type (Table 8)",
        header=["Error type", *methods],
        rows=rows,
    )
