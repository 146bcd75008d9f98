"""The ToolRM paper's Appendix A.9 ablations (Table 10): train one RM per variant of the training
setup and score each on FC-RewardBench.

Variants, in Table 10's sections (a row is left out, with a note, where its subset is empty or
what it needs was not given):

- the full model (every pair, the configured η);
- **Hyperparameter Ablation**: *Without obfuscation* (a second pair file built with
  ``rm train-data --no-obfuscate``), *High reward centering (η = 0.1)*, *No reward centering (η = 0)*;
- **Data Ablation**: *Without <dataset>* for each training dataset when there are several (a pair's
  dataset is its ``test_id`` up to ``__``: ``apibank__level1_0`` → ``apibank``; else its
  ``test_category``), and the training-data size sweep: a seeded share of the pairs;
- **Generator model ablation**: *Only large (≥ 12 B) models* and *Only small (≤ 2 B) models*, by
  the parameter count in the generator's name (``Qwen2.5-1.5B-Instruct`` → 1.5) or one given;
  mutator top-ups (``synthetic:…``) and generators of unknown size are in neither.

Training and scoring are a function the caller passes (:data:`TrainScore`), so the runner is the
same for a tiny CPU model, a GPU run at full size, or a test's scripted stand-in.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from robustcall.core import seeded_rng
from robustcall.rewards._eval import PairwiseResult, evaluate
from robustcall.rewards._scorers import OutputScorer
from robustcall.rewards._types import SYNTHETIC_PREFIX, RewardPair

LARGE_B = 12.0
"""Table 10: "Only large (≥ 12 B) models"."""
SMALL_B = 2.0
"""Table 10: "Only small (≤ 2 B) models"."""
HIGH_ETA = 0.1
"""Table 10: "High reward centering (η = 0.1)"."""

SECTIONS = ("Hyperparameter Ablation", "Data Ablation", "Generator model ablation")
"""Table 10's sections, in its order (the full model's row comes first, in no section)."""

_SIZE = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)[bB](?![a-zA-Z])")


@dataclass(frozen=True)
class Variant:
    """One row of Table 10: what it trains on and with which η."""

    section: str
    """One of :data:`SECTIONS`, or ``""`` for the full model."""
    label: str
    pairs: tuple[RewardPair, ...]
    center: float
    """The reward-centering coefficient η."""


@dataclass(frozen=True)
class AblationRow:
    """A trained variant's FC-RewardBench result."""

    section: str
    label: str
    pairs: int
    center: float
    result: PairwiseResult

    def as_dict(self) -> dict[str, Any]:
        return {
            "section": self.section,
            "label": self.label,
            "pairs": self.pairs,
            "center": self.center,
            **self.result.as_dict(),
        }


TrainScore = Callable[[Variant, int], OutputScorer]
"""Train an RM on a variant (its index second, for output folders) and return it as a scorer."""


def dataset_of(pair: RewardPair) -> str:
    """The training dataset a pair came from: its id's source prefix (``apibank__…``), else its category."""
    head, sep, _ = pair.test_id.partition("__")
    return head if sep and head else pair.test_category


def generator_size(name: str, given: Mapping[str, float] | None = None) -> float | None:
    """Billions of parameters of a generator: ``given[name]``, else the last ``<n>B`` in its name."""
    if given and name in given:
        return given[name]
    found = _SIZE.findall(name.rsplit("/", 1)[-1])
    return float(found[-1]) if found else None


def _fmt_share(share: float) -> str:
    return f"{100 * share:g}%"


def plan_ablation(
    pairs: Sequence[RewardPair],
    *,
    center: float = 0.01,
    plain_pairs: Sequence[RewardPair] | None = None,
    shares: Sequence[float] = (0.25, 0.5),
    sizes: Mapping[str, float] | None = None,
    seed: int = 0,
    sections: Sequence[str] = SECTIONS,
) -> tuple[list[Variant], list[str]]:
    """Table 10's variants for ``pairs`` (and notes on the rows left out, with why); ``sections``: the
    sections to plan (the full model's row always comes first)."""
    notes: list[str] = []
    unknown = [s for s in sections if s not in SECTIONS]
    if unknown:
        raise ValueError(f"unknown section {unknown[0]!r}; known: {', '.join(SECTIONS)}")
    variants = _plan(pairs, center, plain_pairs, shares, sizes, seed, notes)
    return [v for v in variants if not v.section or v.section in sections], [
        n for n in notes if _section_of_note(n) in sections
    ]


def _section_of_note(note: str) -> str:
    if note.startswith("Without obfuscation"):
        return SECTIONS[0]
    return SECTIONS[1] if note.startswith("Without <dataset>") else SECTIONS[2]


def _plan(
    pairs: Sequence[RewardPair],
    center: float,
    plain_pairs: Sequence[RewardPair] | None,
    shares: Sequence[float],
    sizes: Mapping[str, float] | None,
    seed: int,
    notes: list[str],
) -> list[Variant]:
    out = [Variant("", "ToolRM", tuple(pairs), center)]
    hyper = SECTIONS[0]
    if plain_pairs is not None:
        out.append(Variant(hyper, "Without obfuscation", tuple(plain_pairs), center))
    else:
        notes.append("Without obfuscation: left out (give --plain-pairs, built by rm train-data --no-obfuscate)")
    out.append(Variant(hyper, f"High reward centering (η = {HIGH_ETA:g})", tuple(pairs), HIGH_ETA))
    out.append(Variant(hyper, "No reward centering (η = 0)", tuple(pairs), 0.0))
    data = SECTIONS[1]
    datasets = sorted({dataset_of(p) for p in pairs})
    if len(datasets) > 1:
        for name in datasets:
            out.append(Variant(data, f"Without {name}", tuple(p for p in pairs if dataset_of(p) != name), center))
    else:
        notes.append(f"Without <dataset>: left out (the pairs come from one dataset: {', '.join(datasets)})")
    order = sorted(range(len(pairs)), key=lambda i: pairs[i].test_id)
    seeded_rng(seed, "ablation subset").shuffle(order)
    for share in sorted(s for s in shares if 0 < s < 1):
        keep = sorted(order[: max(1, round(share * len(pairs)))])
        out.append(Variant(data, f"{_fmt_share(share)} of the training data", tuple(pairs[i] for i in keep), center))
    gen = SECTIONS[2]
    size_of = {
        m: None if m.startswith(SYNTHETIC_PREFIX) else generator_size(m, sizes) for m in {p.model_name for p in pairs}
    }
    unknown = sorted(m for m, b in size_of.items() if b is None and not m.startswith(SYNTHETIC_PREFIX))
    if unknown:
        notes.append(f"generators of unknown size (in neither size row; --generator-size NAME=B): {', '.join(unknown)}")
    bounds: tuple[tuple[str, Callable[[float], bool]], ...] = (
        (f"Only large (≥ {LARGE_B:g} B) models", lambda b: b >= LARGE_B),
        (f"Only small (≤ {SMALL_B:g} B) models", lambda b: b <= SMALL_B),
    )
    for label, test in bounds:
        chosen = tuple(p for p in pairs if (b := size_of[p.model_name]) is not None and test(b))
        if chosen:
            out.append(Variant(gen, label, chosen, center))
        else:
            notes.append(f"{label}: left out (no pair from such a generator)")
    return out


def run_ablation(
    variants: Sequence[Variant],
    bench: Sequence[RewardPair],
    train_score: TrainScore,
    *,
    done: Callable[[AblationRow], None] | None = None,
) -> list[AblationRow]:
    """Train and score every variant in order; ``done`` sees each row as it is finished."""
    rows = []
    for i, v in enumerate(variants):
        scorer = train_score(v, i)
        try:
            result = evaluate(scorer, bench)
        finally:
            close = getattr(scorer, "close", None)
            if callable(close):
                close()
        row = AblationRow(v.section, v.label, len(v.pairs), v.center, result)
        rows.append(row)
        if done is not None:
            done(row)
    return rows
