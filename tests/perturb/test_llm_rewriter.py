"""The LLM rewriter through a local fake endpoint: the Appendix F prompt, the cache, the guard."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from robustcall.core import Sample, seeded_rng
from robustcall.perturb import REGISTRY, GuardStats, LLMRewriter, PerturbContext
from robustcall.perturb._llm import TYPO_PROMPT, fill
from robustcall.sources import load_source

sys.path.insert(0, str(Path(__file__).parents[1] / "run"))
from mock_openai import mock_openai

TYPOED = "Find teh type of gene mutaiton based on SNP (Single Nucleotide Polymorphism) ID rs6034464."


@pytest.fixture(scope="module")
def m110() -> Sample:
    return next(s for s in load_source("bfcl").samples if s.id == "bfcl_v3__BFCL_v3_multiple__multiple_110")


def _typos(sample: Sample, rewriter: LLMRewriter, guard: GuardStats) -> Sample | None:
    ctx = PerturbContext(seeded_rng(0, sample.id, "realistic_typos"), rewriter, guard, "realistic_typos")
    return REGISTRY["realistic_typos"].apply(sample, ctx)


def test_llm_typos_are_used_and_cached(m110: Sample, tmp_path: Path) -> None:
    guard = GuardStats()
    with mock_openai(reply=TYPOED) as url:
        rw = LLMRewriter("mock", url, cache_path=tmp_path / "cache.sqlite")
        out = _typos(m110, rw, guard)
        assert out is not None and out.conversation[-1].content == TYPOED
        assert rw.requests == 1
    # the server is gone: a rebuild is answered from the cache
    again = LLMRewriter("mock", "http://127.0.0.1:9/v1", cache_path=tmp_path / "cache.sqlite")
    assert _typos(m110, again, guard) == out
    assert again.requests == 0 and again.cache_hits == 1
    assert guard.as_dict()["realistic_typos"]["passed"] == 2


def test_guard_rejects_a_rewrite_that_loses_the_golden_value(m110: Sample, tmp_path: Path) -> None:
    guard = GuardStats()
    with mock_openai(reply="Find the type of gene mutation for this SNP.") as url:
        rw = LLMRewriter("mock", url, cache_path=tmp_path / "cache.sqlite")
        out = _typos(m110, rw, guard)
    assert out is not None and "rs6034464" in out.conversation[-1].content
    stats = guard.as_dict()["realistic_typos"]
    assert stats["fallback"] == 1 and stats["violations"] >= 3 and rw.requests == 3


def test_prompt_is_appendix_f_verbatim() -> None:
    prompt = fill(TYPO_PROMPT, query="hello")
    assert prompt.startswith(
        "Add realistic typing errors to the following query, simulating natural human typos. hello"
    )
    assert prompt.endswith("output the perturbed query only.")
    assert json.dumps(prompt)
