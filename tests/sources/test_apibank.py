"""API-Bank level-1/2 in ToolRL's processed form, checked against the raw dialogues."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from robustcall.core import Sample
from robustcall.sources import APIBANK_THINK_TOOL, LoadResult

ById = Callable[[LoadResult, str], Sample]


def test_level1_101_matches_the_paper_sample(apibank: LoadResult, by_id: ById) -> None:
    s = by_id(apibank, "apibank__level1_101")
    assert s.benchmark == "apibank"
    assert s.category == "level-1"
    assert s.source.original_id == "101"
    assert s.source.file == "level-1-api_processed.json"
    assert s.source.extra == {
        "golden_mode": "all",
        "level": 1,
        "dialogue": "apibank/lv1-lv2-samples/level-1-given-desc/ModifyAlarm-AddAgenda-GetUserToken-level-2-1.jsonl",
        "toolrl_other_id": 4,
        "meta_tools": ["**Think"],
    }
    assert [t.name for t in s.tools] == ["ModifyAlarm", "GetUserToken", "AddAgenda", "**Think"]
    add_agenda = s.tools[2]
    assert add_agenda.description == "The API for adding a agenda item includes content, time and location."
    assert list(add_agenda.properties()) == ["token", "content", "time", "location"]
    assert add_agenda.properties()["token"] == {"type": "str", "description": "User's token."}
    assert s.tools[3].description == "Recall relevant context and analyze the current user goal."
    assert s.tools[3].properties() == {}
    assert len(s.conversation) == 1 and s.conversation[0].role == "user"
    text = s.conversation[0].content
    assert text.startswith(
        "**Dialogue Records History**\n<user>Can you help me modify an alarm for user3 at 2023-03-24 09:00:00?</user>"
    )
    assert '<user>The content is "Lunch with friends" and location is "Restaurant X".</user>' in text
    assert text.endswith(
        "<user> Based on our conversation above, please only make one tool call to solve my need.</user>\n"
    )
    assert [g.model_dump(exclude_none=True) for g in s.golden_answers] == [
        {
            "name": "AddAgenda",
            "parameters": {
                "token": "p9o8i7u6y5t4r3e2w1q",
                "content": "Lunch with friends",
                "time": "2023-03-24 14:00:00",
                "location": "Restaurant X",
            },
        }
    ]
    assert s.eval_config.method == "apibank"
    assert s.eval_config.output_format == "tool_call"


def test_counts_and_skip_reasons(apibank: LoadResult) -> None:
    assert Counter(s.category for s in apibank.samples) == {"level-1": 394, "level-2": 61}
    assert apibank.skipped == {"gold call disagrees with API-Bank dialogue": 5, "gold tool not in tools": 6}
    ids = [s.id for s in apibank.samples]
    assert len(set(ids)) == len(ids)
    assert "apibank__level1_258" not in ids  # BookHotel with mangled ToolRL arguments
    assert "apibank__level2_13" not in ids  # gold GetUserToken is not among the given tools (level-2 tool search)


def test_level2_answers_given_as_a_dict_become_one_golden(apibank: LoadResult, by_id: ById) -> None:
    s = by_id(apibank, "apibank__level2_0")
    assert s.category == "level-2"
    assert [(g.name, g.parameters) for g in s.golden_answers] == [("SymptomSearch", {"symptom": "rash"})]
    assert [t.name for t in s.tools] == ["SymptomSearch", APIBANK_THINK_TOOL]


def test_every_golden_call_is_one_the_dialogue_made(apibank: LoadResult, shared_data: Path) -> None:
    for s in apibank.samples:
        turns = [json.loads(line) for line in (shared_data / s.source.extra["dialogue"]).read_text().splitlines()]
        made = [(t["api_name"], t["param_dict"]) for t in turns if t["role"] == "API"]
        assert all((g.name, g.parameters) in made for g in s.golden_answers), s.id
        assert all(s.tool(g.name) is not None for g in s.golden_answers)


def test_versions_hash_the_toolrl_files_and_the_dialogues_read(apibank: LoadResult) -> None:
    keys = set(apibank.versions)
    assert "toolrl/benchmarks/API-Bank/level-1-api_processed.json" in keys
    assert "toolrl/benchmarks/API-Bank/level-2-api_processed.json" in keys
    assert any(k.startswith("apibank/lv1-lv2-samples/level-1-given-desc/") for k in keys)
    assert all(len(v) == 64 for v in apibank.versions.values())
