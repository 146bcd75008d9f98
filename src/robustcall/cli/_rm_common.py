"""Shared pieces of ``robustcall rm``: loading samples, making generators and scorers, printing tables."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from rich.console import Console

from robustcall.cli._errors import CommandError, describe
from robustcall.core import Sample, atomic_write_text, seeded_rng

if TYPE_CHECKING:
    from robustcall.models import ChatModel
    from robustcall.rewards import OutputScorer, RewardPair

console = Console(stderr=True)


def fail(problem: str | BaseException, hint: str | None = None) -> CommandError:
    """The refusal to raise: ``error: <problem>`` (an exception as the user reads it), exit 1."""
    return CommandError(problem if isinstance(problem, str) else describe(problem), hint=hint)


def checked_scheduler(name: str) -> str:
    """``name`` when transformers knows the learning-rate schedule (checked before the base model
    loads), else a usage error naming the ones it knows."""
    from transformers import SchedulerType

    known = [s.value for s in SchedulerType]
    if name not in known:
        raise typer.BadParameter(f"{name!r}: one of {', '.join(known)}", param_hint="--scheduler")
    return name


def load_samples(
    sources: Sequence[str],
    data_dir: Path | None,
    files: Sequence[Path],
    *,
    relevant_only: bool,
    categories: Sequence[str] = (),
    limit: int | None,
    seed: int,
) -> list[Sample]:
    """Samples from named sources and release-shape JSONL files; a seeded subset of ``limit``."""
    from robustcall.sources import SourceError, load_jsonl_samples, load_source

    samples: list[Sample] = []
    try:
        for name in sources:
            samples += load_source(name, data_dir).samples
        for f in files:
            samples += load_jsonl_samples(f).samples
    except (SourceError, ValueError) as exc:
        raise fail(exc) from None
    if relevant_only:
        samples = [s for s in samples if s.golden_answers]
    if categories:
        samples = [s for s in samples if s.category in set(categories)]
    if limit is not None and len(samples) > limit:
        ids = sorted(range(len(samples)), key=lambda i: samples[i].id)
        seeded_rng(seed, "subset of samples").shuffle(ids)
        samples = [samples[i] for i in sorted(ids[:limit])]
    return samples


def make_generators(
    specs: Sequence[str], settings: Path | None, concurrency: int, *, episodes: bool = False
) -> list[ChatModel]:
    """The generators named by ``specs``; one that plays an environment (``scripted:random``,
    ``scripted:expert``, ...) is refused unless the command runs ``episodes`` (it has no samples'
    answers to give)."""
    from robustcall.models import BindsToEnv, make_model
    from robustcall.models.local import LocalModelNotReady

    try:
        models = [make_model(s, mode="prompt", settings_file=settings, concurrency=concurrency) for s in specs]
    except (ValueError, LocalModelNotReady) as exc:
        raise fail(exc) from None
    for spec, model in zip(specs, models, strict=True):
        if not episodes and isinstance(model, BindsToEnv):
            raise fail(
                f"{spec} plays an environment's episodes; it cannot answer benchmark samples",
                hint="give a model that answers text (openai:<model>@<url>, local, scripted:oracle, ...)",
            )
    return models


def make_scorer(spec: str, *, seed: int, settings: Path | None, gold: Sequence[Sample] = ()) -> OutputScorer:
    """A scorer; ``bfcl`` gets ``gold`` registered on it."""
    from robustcall.models.local import LocalModelNotReady
    from robustcall.rewards import BfclScorer, load_scorer

    try:
        scorer = load_scorer(spec, seed=seed, settings_file=settings)
    except (ValueError, OSError, LocalModelNotReady) as exc:
        raise fail(f"scorer {spec!r}: {describe(exc)}") from None
    if isinstance(scorer, BfclScorer):
        for s in gold:
            scorer.add(s.conversation, s.tools, s.golden_answers, s.category)
    return scorer


def close_scorer(scorer: object) -> None:
    close = getattr(scorer, "close", None)
    if callable(close):
        close()


def type_table(records: Sequence[RewardPair]) -> str:
    """Table 1 for ``records`` as Markdown: count and share per error type."""
    from robustcall.rewards import ERROR_TYPES

    n = len(records) or 1
    lines = ["| Error Type | Count | % |", "|---|---:|---:|"]
    kinds = list(ERROR_TYPES) + sorted({r.error_type for r in records} - set(ERROR_TYPES))
    for kind in kinds:
        c = sum(1 for r in records if r.error_type == kind)
        lines.append(f"| {kind} | {c} | {100 * c / n:.1f} |")
    lines.append(f"| Total | {len(records)} | 100.0 |")
    return "\n".join(lines) + "\n"


def write_json(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n")
