"""Single-turn runs through the one loop: a work item is answered into one predictions-file line.

Kill the process at any moment and ``resume=True`` finishes the run: records already written are
kept (a torn last line is cut), infrastructure errors are dropped so they are asked again, and
nothing is answered twice (:mod:`robustcall.run._loop`).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from robustcall.core import PREDICTIONS, Prediction, PredictionRecord, Sample, prediction_line, trial_key
from robustcall.formats import MAX_PARSE_CHARS
from robustcall.models import DEFAULT_CONCURRENCY, ChatModel
from robustcall.run._answer import answer
from robustcall.run._loop import STOP_AFTER, Checkpoint, Outcome, RunStats, run_loop
from robustcall.run._plan import WorkItem

PREDICTION_CHECKPOINT: Checkpoint[PredictionRecord, tuple[str, str, int]] = Checkpoint(
    PredictionRecord, trial_key, lambda r: r.prediction.error_kind == "infra"
)
"""A predictions file read back: one record per (sample id, type, trial); infra errors are asked again."""


def _item_key(item: WorkItem) -> tuple[str, str, int]:
    return item.key


def load_done(path: Path) -> tuple[dict[tuple[str, str, int], PredictionRecord], int]:
    """Completed records of an earlier attempt (last one per key wins) and how many were dropped.

    Infra-error records are dropped so that a resume asks again; the file is rewritten compacted
    (atomically) so that it never holds two records for one key.
    """
    return PREDICTION_CHECKPOINT.load(path)


def unrecordable(pred: Prediction, exc: Exception) -> Prediction:
    """The record kept when ``pred`` cannot be written as JSON (a model output no bound caught):
    the text, truncated, without its calls, as a model-format error (scored as no call)."""
    why = f"unreadable: the model's output could not be recorded ({type(exc).__name__}: {str(exc)[:200]})"
    return Prediction(
        raw_output=pred.raw_output[:MAX_PARSE_CHARS],
        error=why,
        error_kind="model_format",
        latency_s=pred.latency_s,
        usage=pred.usage,
    )


async def run_items(
    items: list[WorkItem],
    model: ChatModel,
    out_dir: Path,
    *,
    concurrency: int = DEFAULT_CONCURRENCY,
    resume: bool = False,
    fsync: bool = False,
    on_record: Callable[[Prediction], None] | None = None,
    stop_after: int = STOP_AFTER,
    max_tokens: Callable[[Sample], int | None] | None = None,
) -> RunStats:
    """Answer every item not yet in ``out_dir/predictions.jsonl`` and append its record (the one
    loop, :func:`~robustcall.run._loop.run_loop`, with a work item as the unit).

    After ``stop_after`` identical infrastructure errors in a row (0: never) no new item is
    started; the ones in flight are finished and recorded, and ``RunStats.stopped`` says why.
    ``max_tokens``: a per-sample output cap below the model's settings (e.g. ``GoldBudget``).
    """
    name = model.name

    async def work(item: WorkItem) -> Outcome:
        sample = item.sample
        try:
            pred = await answer(sample, model, None if max_tokens is None else max_tokens(sample), item.seed)
        except Exception as exc:  # a bug of ours must not lose the run: record it, retry on resume
            pred = Prediction(error=f"internal error: {type(exc).__name__}: {exc}", error_kind="infra")
        try:
            line = prediction_line(sample, pred, name, item.trial)
        except Exception as exc:  # e.g. a value pydantic will not serialise: the output is scored
            pred = unrecordable(pred, exc)
            line = prediction_line(sample, pred, name, item.trial)
        if on_record is not None:
            on_record(pred)
        if pred.error_kind == "infra":
            return Outcome(line, sample.id, pred.error or "unknown infrastructure error")
        return Outcome(line, sample.id)

    return await run_loop(
        items,
        work,
        _item_key,
        out_dir / PREDICTIONS,
        PREDICTION_CHECKPOINT,
        concurrency=concurrency,
        resume=resume,
        fsync=fsync,
        stop_after=stop_after,
        what="predictions",
    )
