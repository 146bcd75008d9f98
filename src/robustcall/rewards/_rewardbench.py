"""FC-RewardBench, built the paper's way (§3.1) from BFCL v3 single-turn and a generator pool.

For every query with possible answers: ``chosen_output`` is the canonical correct call sequence;
every generator draws ``k`` outputs at a temperature; an output is a candidate rejected call when our
BFCL scorer marks it incorrect (content is judged, not surface format: text in any readable call
format is read, text in none is an ``Incorrect output format``). One candidate per query is drawn
with ``seeded_rng(seed, test_id)``. Optionally, rule-based mutators (:mod:`._mutate`) top up the
types that fall short of a target mix (default Table 1's proportions of ``size``) on queries that
have no record yet, marked ``synthetic:<type>``. Records are sorted by ``test_id``.

With ``irrelevance=True`` (RM training data, as the paper's xlam-irrelevance share) queries with no
gold call are kept too: ``chosen_output`` is the empty call sequence ``[]`` and a rejected output is
a draw that makes any call (error type ``Irrelevance error``); a top-up is a call of the catalog's
first tool. FC-RewardBench itself (``irrelevance=False``) keeps queries with possible answers only.
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from robustcall.core import DEFAULTS, JsonlError, Message, Sample, ToolCall, progress, seeded_rng, validate_line
from robustcall.models import DEFAULT_CONCURRENCY, ChatModel
from robustcall.rewards._errors import classify_error
from robustcall.rewards._mutate import mutate
from robustcall.rewards._output import calls_text, output_calls
from robustcall.rewards._sampling import sample_outputs
from robustcall.rewards._types import (
    ERROR_TYPES,
    IRRELEVANCE_ERROR,
    SYNTHETIC_PREFIX,
    ErrorType,
    RewardPair,
    table1_targets,
)
from robustcall.score import SampleScorer


@dataclass
class BuildStats:
    """What a build saw: draws, how many were wrong, and where the records came from."""

    queries: int = 0
    gold_unpassable: int = 0
    """Queries whose canonical gold our scorer itself fails (BFCL lists a required parameter with no
    acceptable value on a few live items): left out, a chosen output must be correct."""
    draws: int = 0
    failed_draws: int = 0
    incorrect_draws: int = 0
    unclassified: int = 0
    queries_with_rejected: int = 0
    irrelevance_queries: int = 0
    """Queries with no gold call (kept only for RM training data, ``irrelevance=True``)."""
    by_type: Counter[str] = field(default_factory=Counter)
    by_model: Counter[str] = field(default_factory=Counter)

    def as_dict(self) -> dict[str, Any]:
        return {
            "queries": self.queries,
            "gold_unpassable": self.gold_unpassable,
            "draws": self.draws,
            "failed_draws": self.failed_draws,
            "incorrect_draws": self.incorrect_draws,
            "unclassified": self.unclassified,
            "queries_with_rejected": self.queries_with_rejected,
            "irrelevance_queries": self.irrelevance_queries,
            "by_type": {
                t: self.by_type.get(t, 0)
                for t in (*ERROR_TYPES, IRRELEVANCE_ERROR)
                if t in ERROR_TYPES or self.by_type.get(t)
            },
            "by_model": dict(sorted(self.by_model.items())),
        }


@dataclass(frozen=True)
class Candidate:
    model_name: str
    text: str
    error_type: str


def is_correct(scorer: SampleScorer, text: str) -> bool:
    """Our scorer's verdict on an output text (unreadable text is incorrect)."""
    calls = output_calls(text, scorer.sample.tools)
    if calls is None:
        return False
    return scorer.judge(text, [(c.name, c.arguments) for c in calls], calls).correct


def _rejects(scorer: SampleScorer) -> Callable[[str], bool]:
    return lambda text: not is_correct(scorer, text)


def gold_calls(sample: Sample) -> list[ToolCall]:
    return [g.as_call() for g in sample.golden_answers]


def _turn(m: Message) -> dict[str, Any]:
    """A conversation turn as the release writes it; an assistant's calls become its JSON text."""
    content = m.content
    if m.role == "assistant" and m.tool_calls:
        content = f"{content}\n{calls_text(m.tool_calls)}" if content else calls_text(m.tool_calls)
    return {"role": m.role, "content": content}


def base_record(sample: Sample) -> dict[str, Any]:
    return {
        "tools": [t.model_dump(mode="json") for t in sample.tools],
        "conversation": [_turn(m) for m in sample.conversation],
        "chosen_output": calls_text(gold_calls(sample)),
        "test_category": sample.category,
        "test_id": sample.id,
    }


def irrelevance_candidates(draws: Sequence[tuple[str, str]], stats: BuildStats) -> list[Candidate]:
    """The draws of a no-call query that make a call (prose and unreadable text are not rejected)."""
    out: list[Candidate] = []
    for model_name, text in draws:
        calls = output_calls(text)
        if calls:
            stats.incorrect_draws += 1
            out.append(Candidate(model_name, calls_text(calls), IRRELEVANCE_ERROR))
    return out


def candidates_of(sample: Sample, draws: Sequence[tuple[str, str]], stats: BuildStats) -> list[Candidate]:
    """The incorrect draws ``(model_name, text)`` of one sample, normalised and typed."""
    scorer = SampleScorer(sample)
    out: list[Candidate] = []
    for model_name, text in draws:
        calls = output_calls(text, sample.tools)
        if calls is not None and scorer.judge(text, [(c.name, c.arguments) for c in calls], calls).correct:
            continue
        stats.incorrect_draws += 1
        rejected = text if calls is None else calls_text(calls)
        kind = classify_error(rejected, sample.golden_answers, sample.tools)
        if kind is None:
            stats.unclassified += 1
            continue
        out.append(Candidate(model_name, rejected, kind))
    return out


async def draw_pool(
    samples: Sequence[Sample],
    generators: Sequence[ChatModel],
    *,
    per_generator: int,
    temperature: float,
    seed: int,
    concurrency: int = DEFAULT_CONCURRENCY,
    stats: BuildStats | None = None,
    max_tokens: int | None = DEFAULTS.draw_max_tokens,
) -> dict[str, list[tuple[str, str]]]:
    """Every generator's ``per_generator`` draws for every sample: sample id -> ``(model, text)``;
    at most ``concurrency`` requests in flight at once."""
    stats = stats if stats is not None else BuildStats()
    gate = asyncio.Semaphore(max(1, concurrency))
    requests = asyncio.Semaphore(max(1, concurrency))  # in flight, over every generator
    out: dict[str, list[tuple[str, str]]] = {}
    told = progress()  # progress lines in a log
    told.start("generator pool", len(samples) * len(generators) * per_generator, unit="draws")

    async def one(sample: Sample) -> None:
        async with gate:
            got: list[tuple[str, str]] = []
            for model in generators:
                draws = await sample_outputs(
                    model,
                    sample,
                    per_generator,
                    temperature=temperature,
                    seed=seed,
                    logprobs=False,
                    max_tokens=max_tokens,
                    gate=requests,
                )
                for d in draws:
                    stats.draws += 1
                    if d.error is not None:
                        stats.failed_draws += 1
                    else:
                        got.append((model.name, d.text))
                told.advance(len(draws), infra=sum(d.error is not None for d in draws))
            out[sample.id] = got

    await asyncio.gather(*(one(s) for s in samples))
    return out


def assemble(
    samples: Sequence[Sample],
    pool: dict[str, list[tuple[str, str]]],
    *,
    seed: int,
    size: int | None = None,
    top_up: bool = False,
    targets: dict[ErrorType, int] | None = None,
    stats: BuildStats | None = None,
    irrelevance: bool = False,
) -> list[RewardPair]:
    """Records from a drawn pool: one seeded rejected call per query, then optional mutator top-ups.

    ``size``: at most this many records (a seeded subset of the pool's); with ``top_up`` also the
    total the default target mix is scaled to and that top-ups never exceed (pool records are all
    kept, so a type the pool over-produces stays over its share). ``targets``: per-type counts.
    ``irrelevance``: keep no-call queries too (RM training data; see the module doc).
    """
    stats = stats if stats is not None else BuildStats()
    relevant = [s for s in samples if s.golden_answers]
    stats.queries = len(relevant)
    passable = [s for s in relevant if is_correct(SampleScorer(s), calls_text(gold_calls(s)))]
    stats.gold_unpassable = len(relevant) - len(passable)
    relevant = passable
    records: dict[str, RewardPair] = {}
    for sample in relevant:
        cands = candidates_of(sample, pool.get(sample.id, []), stats)
        if not cands:
            continue
        pick = seeded_rng(seed, "rejected", sample.id).choice(cands)
        records[sample.id] = RewardPair(
            **base_record(sample), rejected_output=pick.text, error_type=pick.error_type, model_name=pick.model_name
        )
    no_call = [s for s in samples if not s.golden_answers and s.tools] if irrelevance else []
    stats.irrelevance_queries = len(no_call)
    for sample in no_call:
        cands = irrelevance_candidates(pool.get(sample.id, []), stats)
        if cands:
            pick = seeded_rng(seed, "rejected", sample.id).choice(cands)
            records[sample.id] = RewardPair(
                **base_record(sample), rejected_output=pick.text, error_type=pick.error_type, model_name=pick.model_name
            )
    stats.queries_with_rejected = len(records)
    if size is not None and len(records) > size:
        keep = sorted(records)
        seeded_rng(seed, "subset").shuffle(keep)
        records = {k: records[k] for k in sorted(keep[:size])}
    if top_up:
        goal = targets if targets is not None else table1_targets(size if size is not None else len(records))
        have = Counter(r.error_type for r in records.values())
        free = [s for s in relevant if s.id not in records]
        seeded_rng(seed, "top-up order").shuffle(free)
        cap = size if size is not None else sum(goal.values())
        for kind in ERROR_TYPES:
            need = min(goal.get(kind, 0) - have[kind], cap - len(records))
            for sample in list(free):
                if need <= 0:
                    break
                scorer = SampleScorer(sample)
                rng = seeded_rng(seed, "mutate", kind, sample.id)
                text = mutate(kind, gold_calls(sample), sample.golden_answers, sample.tools, rng, _rejects(scorer))
                if text is None:
                    continue
                records[sample.id] = RewardPair(
                    **base_record(sample), rejected_output=text, error_type=kind, model_name=SYNTHETIC_PREFIX + kind
                )
                free.remove(sample)
                need -= 1
        for sample in no_call:
            if sample.id in records or len(records) >= cap:
                continue
            first = sample.tools[0]
            text = calls_text([ToolCall(name=first.name, arguments={})])
            records[sample.id] = RewardPair(
                **base_record(sample),
                rejected_output=text,
                error_type=IRRELEVANCE_ERROR,
                model_name=SYNTHETIC_PREFIX + IRRELEVANCE_ERROR,
            )
    out = [records[k] for k in sorted(records)]
    stats.by_type = Counter(r.error_type for r in out)
    stats.by_model = Counter(r.model_name for r in out)
    return out


def _jsonish(value: Any) -> Any:
    if isinstance(value, str):
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            return value
    return value


def read_pairs(path: Path) -> list[RewardPair]:
    """FC-RewardBench records from ``.jsonl`` / ``.json`` (a list) / ``.parquet``: our files or the
    original release (whose ``tools`` / ``conversation`` may be JSON strings). A bad record raises
    ``JsonlError`` naming the file and line (row)."""
    rows: list[tuple[int, Any]]
    if path.suffix == ".parquet":
        import pyarrow.parquet as pq  # type: ignore[import-untyped]

        rows = list(enumerate(pq.read_table(path).to_pylist(), start=1))
    elif path.suffix == ".json":
        data = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(data, list):
            raise JsonlError(path, 1, "expected a JSON list of records")
        rows = list(enumerate(data, start=1))
    else:
        from robustcall.core import iter_json_lines

        rows = list(iter_json_lines(path))
    out: list[RewardPair] = []
    for lineno, obj in rows:
        if isinstance(obj, dict):
            obj = {k: _jsonish(v) if k in ("tools", "conversation") else v for k, v in obj.items()}
            for key in ("chosen_output", "rejected_output"):
                if key in obj and not isinstance(obj[key], str):
                    obj[key] = json.dumps(obj[key], ensure_ascii=False)
        out.append(validate_line(path, lineno, obj, RewardPair))
    return out
