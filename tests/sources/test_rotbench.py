"""RoTBench First_Turn: five noise splits, alternatives as golden answers."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from robustcall.core import Sample
from robustcall.sources import ROTBENCH_SPLITS, LoadResult

ById = Callable[[LoadResult, str], Sample]


def test_counts_per_split_and_nothing_skipped(rotbench: LoadResult) -> None:
    assert ROTBENCH_SPLITS == ("clean", "slight", "medium", "heavy", "union")
    assert Counter(s.category for s in rotbench.samples) == {
        "clean": 105,
        "slight": 210,
        "medium": 210,
        "heavy": 210,
        "union": 105,
    }
    assert rotbench.skipped == {}
    assert len({s.id for s in rotbench.samples}) == 840


def test_clean_0_holds_both_alternatives(rotbench: LoadResult, by_id: ById) -> None:
    s = by_id(rotbench, "rotbench__clean_0")
    assert s.benchmark == "rotbench"
    assert s.category == "clean"
    assert s.source.file == "First_Turn/clean.json"
    assert s.source.extra == {
        "golden_mode": "any",
        "rotbench_id": "Turn 1: What is the translation of the English phrase 'See you later' in Japanese?",
        "scenario": "TG",
    }
    assert [(m.role, m.content) for m in s.conversation] == [
        ("user", "What is the translation of the English phrase 'See you later' in Japanese?")
    ]
    assert [t.name for t in s.tools][:2] == ["get_translation_nllb", "get_translation_baidu"]
    assert {"ask_to_user", "finish"} <= {t.name for t in s.tools}
    assert [(g.name, g.parameters) for g in s.golden_answers] == [
        (
            "get_translation_nllb",
            {"input_text": "See you later", "tgt_lang": "jpn_Jpan", "src_lang": "eng_Latn", "max_length": "None"},
        ),
        ("get_translation_baidu", {"text": "See you later", "tgt_lang": "jp"}),
    ]
    assert s.eval_config.method == "rotbench" and s.eval_config.output_format == "react"


def test_noisy_split_golden_uses_the_noisy_tool_names(rotbench: LoadResult, by_id: ById) -> None:
    s = by_id(rotbench, "rotbench__slight_0")
    assert s.golden_answers[0].name == "get_tranlationnllb"
    assert s.tool("get_tranlationnllb") is not None and s.tool("get_translation_nllb") is None
    # the same query appears twice in slight, with different noise
    twin = by_id(rotbench, "rotbench__slight_105")
    assert twin.source.extra["rotbench_id"] == s.source.extra["rotbench_id"]
    assert twin.tools != s.tools


def test_every_golden_tool_is_listed(rotbench: LoadResult) -> None:
    for s in rotbench.samples:
        assert all(s.tool(g.name) is not None for g in s.golden_answers), s.id
