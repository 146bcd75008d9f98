"""ToolAlpaca eval_simulated: multi-step golden answers, skipped placeholders."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from robustcall.core import Sample
from robustcall.sources import LoadResult

ById = Callable[[LoadResult, str], Sample]


def test_counts_and_skip_reasons(toolalpaca: LoadResult) -> None:
    assert len(toolalpaca.samples) == 67
    assert toolalpaca.skipped == {"gold action not in tools": 9, "unparseable action input": 24}
    assert Counter(s.source.extra["api"] for s in toolalpaca.samples)["Axolotl"] == 10
    assert list(toolalpaca.versions) == ["toolalpaca/eval_simulated.json"]


def test_axolotl_inst1_golden_and_tools(toolalpaca: LoadResult, by_id: ById) -> None:
    s = by_id(toolalpaca, "toolalpaca__Axolotl__inst1")
    assert s.benchmark == "toolalpaca"
    assert s.category == "Animals"
    assert s.source.extra == {"golden_mode": "sequence", "api": "Axolotl", "instruction_index": 1}
    assert s.conversation[0].content.startswith("I'm looking for an axolotl that is wild in color and medium in size.")
    assert [t.name for t in s.tools] == ["getRandomAxolotlImage", "searchAxolotlImages", "getAxolotlFacts"]
    search = s.tools[1]
    assert search.description == "Search for axolotl images based on specific criteria such as color, gender, and size."
    assert search.properties()["color"] == {
        "type": "string",
        "enum": ["wild", "leucistic", "albino"],
        "description": "The color of the axolotl (e.g., 'wild', 'leucistic', 'albino', etc.).",
    }
    assert search.properties()["page"] == {"type": "integer", "description": "The page number for pagination purposes."}
    assert search.required() == []
    (g,) = s.golden_answers
    assert g.name == "searchAxolotlImages"
    assert g.parameters == {"color": "wild", "size": "medium", "page": 1}  # "gender": "" = left open
    assert g.acceptable == {"color": ["wild"], "gender": [""], "size": ["medium"], "page": [1]}
    assert s.eval_config.method == "toolalpaca" and s.eval_config.output_format == "react"


def test_multi_step_golden_keeps_order(toolalpaca: LoadResult, by_id: ById) -> None:
    s = by_id(toolalpaca, "toolalpaca__Axolotl__inst6")
    assert [g.parameters["size"] for g in s.golden_answers] == ["small", "medium", "large"]


def test_required_parameters_are_read(toolalpaca: LoadResult) -> None:
    required = {t.name: t.required() for s in toolalpaca.samples for t in s.tools}
    assert any(required.values())
    for s in toolalpaca.samples:
        assert all(s.tool(g.name) is not None for g in s.golden_answers)


def test_placeholder_inputs_are_skipped(toolalpaca: LoadResult) -> None:
    ids = {s.id for s in toolalpaca.samples}
    # AniAPI golden steps refer to earlier results: {"animeId": ${animeId from searchAnime}}
    assert sum(i.startswith("toolalpaca__AniAPI__") for i in ids) == 2


def test_samples_of_one_api_do_not_share_tool_objects(toolalpaca: LoadResult, by_id: ById) -> None:
    a, b = by_id(toolalpaca, "toolalpaca__Axolotl__inst0"), by_id(toolalpaca, "toolalpaca__Axolotl__inst1")
    assert a.tools == b.tools
    assert all(x is not y for x, y in zip(a.tools, b.tools, strict=True))
    assert a.tools[0].parameters is not b.tools[0].parameters
