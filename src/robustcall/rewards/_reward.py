"""``load_scorer`` (a scorer from a spec string) and R_ToolRM ∈ [-3, 3] from any scorer."""

from __future__ import annotations

import math
from pathlib import Path

from robustcall.core import Message, ToolSpec
from robustcall.rewards._scorers import BfclScorer, OutputScorer, SchemaScorer

SCORER_HELP = "hf:<path-or-id>[#<file.gguf>] | judge:local | judge:<model>@<base_url> | schema | bfcl"


def load_scorer(spec: str, *, seed: int = 0, settings_file: Path | None = None, concurrency: int = 4) -> OutputScorer:
    """A scorer from a spec (see ``SCORER_HELP``).

    ``hf:<path>``: a ``transformers`` sequence classifier (``#file.gguf`` loads a GGUF from that
    directory); ``judge:...``: an LLM judge on the embedded model or any OpenAI-compatible endpoint
    (Listing 2; pointwise scores by round robin); ``schema``: R_schema; ``bfcl``: our scorer against
    gold registered on it (an input without gold scores 0).
    """
    kind, _, rest = spec.partition(":")
    if spec == "schema":
        return SchemaScorer()
    if spec == "bfcl":
        return BfclScorer()
    if kind == "hf" and rest:
        from robustcall.rewards._hf import HFClassifierScorer

        path, _, gguf = rest.partition("#")
        return HFClassifierScorer(path, gguf_file=gguf or None)
    if kind == "judge" and rest:
        from robustcall.models import make_model
        from robustcall.rewards._judge import JudgeScorer

        model_spec = "local" if rest == "local" else f"openai:{rest}"
        model = make_model(model_spec, mode="prompt", settings_file=settings_file, concurrency=concurrency)
        return JudgeScorer(model, seed=seed, concurrency=concurrency)
    raise ValueError(f"bad scorer spec {spec!r}: expected {SCORER_HELP}")


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
