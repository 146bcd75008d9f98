"""select_clean: seeded, deterministic, balanced across categories, sorted by id."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from robustcall.core import EvalConfig, Message, Sample, SourceInfo, dump_record
from robustcall.sources import DEFAULT_COMPOSITION, SOURCE_NAMES, LoadResult, load_source, select_clean


def _toy(sizes: dict[str, int]) -> LoadResult:
    samples = [
        Sample(
            id=f"toy__{cat}_{i}",
            benchmark="toy",
            category=cat,
            source=SourceInfo(original_id=str(i), benchmark="toy"),
            conversation=[Message(role="user", content="q")],
            tools=[],
            golden_answers=[],
            eval_config=EvalConfig(method="exact"),
        )
        for cat, n in sizes.items()
        for i in range(n)
    ]
    return LoadResult(source="toy", samples=samples)


def test_default_composition_is_the_papers_199() -> None:
    assert tuple(DEFAULT_COMPOSITION) == SOURCE_NAMES
    assert DEFAULT_COMPOSITION == {"bfcl": 32, "apibank": 74, "rotbench": 21, "toolalpaca": 21, "tooleyes": 51}
    assert sum(DEFAULT_COMPOSITION.values()) == 199


def test_same_seed_same_selection_other_seed_other_selection() -> None:
    toy = _toy({"a": 50, "b": 30, "c": 5})
    first = [s.id for s in select_clean(toy, 20, seed=0)]
    assert first == [s.id for s in select_clean(toy, 20, seed=0)]
    assert first == sorted(first)
    assert first != [s.id for s in select_clean(toy, 20, seed=1)]


def test_selection_does_not_depend_on_input_order() -> None:
    toy = _toy({"a": 50, "b": 30, "c": 5})
    shuffled = LoadResult(source="toy", samples=list(reversed(toy.samples)))
    assert select_clean(toy, 17, seed=3) == select_clean(shuffled, 17, seed=3)


def test_balanced_allocation_caps_small_categories() -> None:
    toy = _toy({"big": 100, "mid": 10, "tiny": 2})
    counts = Counter(s.category for s in select_clean(toy, 30, seed=0))
    assert counts == {"tiny": 2, "mid": 10, "big": 18}
    counts = Counter(s.category for s in select_clean(toy, 7, seed=0))
    assert sum(counts.values()) == 7 and counts["tiny"] == 2 and abs(counts["big"] - counts["mid"]) <= 1


def test_n_at_least_len_returns_everything_sorted() -> None:
    toy = _toy({"b": 3, "a": 2})
    everything = select_clean(toy, 99, seed=0)
    assert [s.id for s in everything] == sorted(s.id for s in toy.samples)
    assert select_clean(toy, 0, seed=0) == []
    with pytest.raises(ValueError):
        select_clean(toy, -1, seed=0)


def test_default_selection_on_real_sources(
    bfcl: LoadResult, apibank: LoadResult, rotbench: LoadResult, toolalpaca: LoadResult, tooleyes: LoadResult
) -> None:
    results = {"bfcl": bfcl, "apibank": apibank, "rotbench": rotbench, "toolalpaca": toolalpaca, "tooleyes": tooleyes}
    for name, result in results.items():
        picked = select_clean(result, DEFAULT_COMPOSITION[name], seed=0)
        assert len(picked) == DEFAULT_COMPOSITION[name]
        assert [s.id for s in picked] == [s.id for s in select_clean(result, DEFAULT_COMPOSITION[name], seed=0)]
        cats = Counter(s.category for s in picked)
        assert set(cats) == {s.category for s in result.samples}, name  # every category represented
        assert max(cats.values()) - min(cats.values()) <= 1, name


def test_loading_twice_gives_identical_records(shared_data: Path) -> None:
    for name in ("apibank", "rotbench", "toolalpaca", "tooleyes"):
        a, b = load_source(name, shared_data), load_source(name, shared_data)
        assert [dump_record(s) for s in a.samples] == [dump_record(s) for s in b.samples], name
        assert a.skipped == b.skipped and a.versions == b.versions
