"""The oracle policy through the real answer path scores 1 on every sample of every source,
except BFCL items whose own gold contradicts their schema (upstream rejects those too)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from robustcall.core import PredictionRecord, Sample
from robustcall.models import make_model
from robustcall.run import answer, clean_id_of
from robustcall.score import score_records
from robustcall.sources import SOURCE_NAMES, load_source

# Gold passes a parameter the schema lacks, marks a required one optional, or has an empty list.
BFCL_GOLD_FAULTS = {
    "bfcl_v3__BFCL_v3_live_multiple__live_multiple_507-149-4",
    "bfcl_v3__BFCL_v3_live_multiple__live_multiple_862-181-3",
    "bfcl_v3__BFCL_v3_live_multiple__live_multiple_964-207-0",
    "bfcl_v3__BFCL_v3_live_simple__live_simple_106-63-0",
    "bfcl_v3__BFCL_v3_live_simple__live_simple_112-68-0",
    "bfcl_v3__BFCL_v3_parallel_multiple__parallel_multiple_12",
    "bfcl_v3__BFCL_v3_parallel_multiple__parallel_multiple_26",
}


def _oracle(samples: list[Sample]) -> list[PredictionRecord]:
    async def go() -> list[PredictionRecord]:
        model = make_model("scripted:oracle")
        return [PredictionRecord(**dict(s), prediction=await answer(s, model)) for s in samples]

    return asyncio.run(go())


@pytest.mark.parametrize("source", SOURCE_NAMES)
def test_oracle_is_right_on_every_sample(source: str, shared_data: Path) -> None:
    samples = load_source(source, shared_data).samples
    wrong = {v.id for v in score_records(_oracle(samples)) if not v.correct}
    assert wrong == (BFCL_GOLD_FAULTS if source == "bfcl" else set())


def test_oracle_is_right_on_every_static_perturbation(tmp_path: Path, shared_data: Path) -> None:
    """Every static type keeps the task solvable: the golden answer (updated where a type changes
    it) passes the scorer. Dup-WrongP places a same-name distractor with a wrong schema anywhere,
    even before the ground truth: the call is judged against the ground-truth tool's schema."""
    from robustcall.core import read_jsonl
    from robustcall.perturb import build_benchmark

    sources = ["bfcl", "apibank", "rotbench", "toolalpaca", "tooleyes"]
    build_benchmark(sources, shared_data, 0, tmp_path, per_source=dict.fromkeys(sources, 12))
    samples = [s for f in sorted(tmp_path.glob("*.jsonl")) for s in read_jsonl(f, Sample)]
    assert {s.perturbation.type for s in samples} >= {"clean", "same_name_C", "CD_AB", "TD_NT"}
    wrong = [s for s in samples if s.id in {v.id for v in score_records(_oracle(samples)) if not v.correct}]
    assert [s.id for s in wrong if clean_id_of(s) not in BFCL_GOLD_FAULTS] == []
