"""``load_scorer`` (a scorer from a spec string; the kinds registered by name) and R_ToolRM ∈ [-3, 3]
from any scorer."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from robustcall.core import Message, ToolSpec
from robustcall.models import DEFAULT_CONCURRENCY
from robustcall.rewards._scorers import BfclScorer, OutputScorer, SchemaScorer


@dataclass(frozen=True)
class ScorerSpec:
    """A scorer spec cut at its kind, with what the caller asked for besides."""

    kind: str
    rest: str
    """What follows ``<kind>:`` (``""`` for a bare kind)."""
    seed: int = 0
    settings_file: Path | None = None
    concurrency: int = DEFAULT_CONCURRENCY


@dataclass(frozen=True)
class ScorerKind:
    """One kind of reward scorer: how its specs read and how to build one."""

    name: str
    usage: str
    """How its specs read (``hf:<path-or-id>[#<file.gguf>]``)."""
    build: Callable[[ScorerSpec], OutputScorer]
    takes_rest: bool = True
    """``<kind>:<rest>`` (``True``, the rest required) or the bare ``<kind>`` (``False``)."""


SCORERS: dict[str, ScorerKind] = {}
"""Registered scorer kinds by name, in registration order (the order of ``scorer_help()``)."""


def register_scorer(kind: ScorerKind) -> ScorerKind:
    """Register (or replace) a kind of scorer under ``kind.name``."""
    SCORERS[kind.name] = kind
    return kind


def scorer_help() -> str:
    """Every registered scorer kind's usage, ``|``-separated."""
    return " | ".join(k.usage for k in SCORERS.values())


def _hf(spec: ScorerSpec) -> OutputScorer:
    from robustcall.rewards._hf import HFClassifierScorer

    path, _, gguf = spec.rest.partition("#")
    return HFClassifierScorer(path, gguf_file=gguf or None)


def _judge(spec: ScorerSpec) -> OutputScorer:
    from robustcall.models import make_model
    from robustcall.rewards._judge import JudgeScorer

    model_spec = "local" if spec.rest == "local" else f"openai:{spec.rest}"
    model = make_model(model_spec, mode="prompt", settings_file=spec.settings_file, concurrency=spec.concurrency)
    return JudgeScorer(model, seed=spec.seed, concurrency=spec.concurrency)


def _pooling(spec: ScorerSpec) -> OutputScorer:
    import os

    from robustcall.rewards._pooling import PoolingScorer

    target, _, flag = spec.rest.partition("#")
    model, at, base_url = target.rpartition("@")
    if not at or not model or not base_url or flag not in ("", "sigmoid"):
        raise ValueError(f"bad scorer spec 'pooling:{spec.rest}': expected pooling:<model>@<base_url>[#sigmoid]")
    return PoolingScorer(model, base_url, sigmoid=flag == "sigmoid", api_key=os.environ.get("ROBUSTCALL_RM_API_KEY"))


register_scorer(ScorerKind("hf", "hf:<path-or-id>[#<file.gguf>]", _hf))
register_scorer(ScorerKind("judge", "judge:local | judge:<model>@<base_url>", _judge))
register_scorer(ScorerKind("pooling", "pooling:<model>@<base_url>[#sigmoid]", _pooling))
register_scorer(ScorerKind("schema", "schema", lambda spec: SchemaScorer(), takes_rest=False))
register_scorer(ScorerKind("bfcl", "bfcl", lambda spec: BfclScorer(), takes_rest=False))

SCORER_HELP = scorer_help()
"""The built-in scorer kinds' usage (``scorer_help()`` lists kinds registered later too)."""


def load_scorer(
    spec: str, *, seed: int = 0, settings_file: Path | None = None, concurrency: int = DEFAULT_CONCURRENCY
) -> OutputScorer:
    """A scorer from a spec (see ``scorer_help()``; kinds in ``SCORERS``).

    ``hf:<path>``: a ``transformers`` sequence classifier (``#file.gguf`` loads a GGUF from that
    directory); ``judge:...``: an LLM judge on the embedded model or any OpenAI-compatible endpoint
    (Listing 2; pointwise scores by round robin); ``pooling:<model>@<base_url>``: a reward model served
    by vLLM's pooling API (``_pooling.py``; ``#sigmoid`` when it returns σ(logit)); ``schema``: R_schema;
    ``bfcl``: our scorer against gold registered on it (an input without gold scores 0).
    """
    name, sep, rest = spec.partition(":")
    kind = SCORERS.get(name)
    if kind is None or (kind.takes_rest and not rest) or (not kind.takes_rest and sep):
        raise ValueError(f"bad scorer spec {spec!r}: expected {scorer_help()}")
    return kind.build(ScorerSpec(name, rest, seed, settings_file, concurrency))


def to_toolrm_range(raw: float, score_range: tuple[float, float] | None = None) -> float:
    """A raw score mapped onto [-3, 3]: linearly from a bounded scorer's ``score_range``
    (schema ±1, bfcl and judge [0, 1]), else ``6·σ(r) − 3`` for an unbounded RM logit (0 -> 0,
    monotone, ±3 only in the limit)."""
    if score_range is not None:
        lo, hi = score_range
        if hi <= lo:
            return 0.0
        return -3.0 + 6.0 * (min(max(raw, lo), hi) - lo) / (hi - lo)
    if raw >= 0:
        return 6.0 / (1.0 + math.exp(-raw)) - 3.0
    e = math.exp(raw)
    return 6.0 * e / (1.0 + e) - 3.0


def toolrm_reward(
    scorer: OutputScorer, conversation: list[Message], tools: list[ToolSpec], outputs: list[str]
) -> list[float]:
    """R_ToolRM ∈ [-3, 3] (§5.3.2) for each output: the scorer's raw score through :func:`to_toolrm_range`."""
    bounds = getattr(scorer, "score_range", None)
    return [to_toolrm_range(r, bounds) for r in scorer.score(conversation, tools, outputs)]
