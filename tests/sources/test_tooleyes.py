"""ToolEyes: golden = any tool of the library the query was written for."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from robustcall.core import Sample
from robustcall.sources import LoadResult

ById = Callable[[LoadResult, str], Sample]


def test_counts_per_scenario(tooleyes: LoadResult) -> None:
    assert Counter(s.category for s in tooleyes.samples) == {
        "PL": 70,
        "TG": 58,
        "RS": 56,
        "IR": 54,
        "FT": 50,
        "DU": 49,
        "AM": 45,
    }
    assert tooleyes.skipped == {}
    assert "tooleyes/Test_Data/scenario_data_raw.json" in tooleyes.versions


def test_sample_0_golden_names_every_library_tool_but_the_meta_tools(tooleyes: LoadResult, by_id: ById) -> None:
    s = by_id(tooleyes, "tooleyes__0")
    assert s.category == "TG"
    assert s.source.extra == {"golden_mode": "any_name", "tool_library": "Random/Random", "scenario": "TG"}
    assert s.conversation[0].content == (
        "I'm in need of assistance in generating a random string with a length of 8,please give me one."
    )
    assert [t.name for t in s.tools] == [
        "get_random_number",
        "get_uuid",
        "generate_string",
        "generate_password",
        "generate_placeholder_text",
        "ask_to_user",
        "finish",
    ]
    assert [g.name for g in s.golden_answers] == [t.name for t in s.tools[:5]]
    assert all(g.parameters == {} and g.acceptable is None for g in s.golden_answers)
    assert s.eval_config.method == "tooleyes" and s.eval_config.output_format == "react"


def test_no_sample_lists_meta_tools_as_golden(tooleyes: LoadResult) -> None:
    for s in tooleyes.samples:
        names = {g.name for g in s.golden_answers}
        assert names and not names & {"ask_to_user", "finish"}
        assert all(s.tool(n) is not None for n in names)
