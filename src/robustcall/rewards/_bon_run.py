"""Running Best-of-n: drawing from a generator (``robustcall.report`` makes its tables:
``bon_accuracy_table``, ``bon_error_table``)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from robustcall.core import DEFAULTS, Sample, progress
from robustcall.models import DEFAULT_CONCURRENCY, ChatModel
from robustcall.rewards._sampling import Draw, sample_outputs


async def draw_all(
    samples: Sequence[Sample],
    model: ChatModel,
    *,
    n: int,
    temperature: float,
    seed: int,
    concurrency: int = DEFAULT_CONCURRENCY,
    max_tokens: int | None = DEFAULTS.draw_max_tokens,
) -> list[tuple[Draw, list[Draw]]]:
    """Per sample: the greedy draw (T = 0) and ``n`` draws at ``temperature``, in sample order; at most
    ``concurrency`` requests in flight at once."""
    gate = asyncio.Semaphore(max(1, concurrency))
    requests = asyncio.Semaphore(max(1, concurrency))
    told = progress()  # progress lines in a log
    told.start("best-of-n draws", len(samples) * (1 + n), unit="draws")

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
            told.advance(1 + len(draws), infra=sum(d.error is not None for d in [greedy, *draws]))
            return greedy, draws

    try:
        return list(await asyncio.gather(*(one(s) for s in samples)))
    finally:
        await model.aclose()
