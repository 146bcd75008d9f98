"""BFCL v3 single-turn from the bfcl-eval wheel."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from robustcall.core import Sample, ToolCall
from robustcall.sources import BFCL_VERSION, LoadResult

ById = Callable[[LoadResult, str], Sample]


def test_fetch_bfcl_caches_the_pinned_wheel(bfcl_wheel: Path) -> None:
    assert bfcl_wheel.name == f"bfcl_eval-{BFCL_VERSION}-py3-none-any.whl"
    assert bfcl_wheel.is_file()


def test_multiple_110_matches_the_paper_sample(bfcl: LoadResult, by_id: ById) -> None:
    s = by_id(bfcl, "bfcl_v3__BFCL_v3_multiple__multiple_110")
    assert s.benchmark == "bfcl_v3"
    assert s.category == "multiple"
    assert s.source.original_id == "multiple_110"
    assert s.source.benchmark == "bfcl_v3"
    assert s.source.file == "BFCL_v3_multiple.json"
    assert s.source.extra["golden_mode"] == "all"
    assert [(m.role, m.content) for m in s.conversation] == [
        ("user", "Find the type of gene mutation based on SNP (Single Nucleotide Polymorphism) ID rs6034464.")
    ]
    assert [t.name for t in s.tools] == ["get_collectables_in_season", "mutation_type.find"]
    assert s.tools[1].parameters["type"] == "dict"  # BFCL's schema kept as given
    assert s.tools[1].required() == ["snp_id"]
    assert [g.model_dump() for g in s.golden_answers] == [
        {
            "name": "mutation_type.find",
            "parameters": {"snp_id": "rs6034464", "species": "Homo sapiens"},
            "acceptable": {"snp_id": ["rs6034464"], "species": ["Homo sapiens", ""]},
        }
    ]
    assert s.eval_config.method == "bfcl_ast"
    assert s.eval_config.output_format == "bfcl"
    assert s.golden_answers[0].as_call() == ToolCall(
        name="mutation_type.find", arguments={"snp_id": "rs6034464", "species": "Homo sapiens"}
    )


def test_counts_per_category(bfcl: LoadResult) -> None:
    assert Counter(s.category for s in bfcl.samples) == {
        "simple": 400,
        "multiple": 200,
        "parallel": 200,
        "parallel_multiple": 200,
        "live_simple": 258,
        "live_multiple": 1053,
        "live_parallel": 16,
        "live_parallel_multiple": 24,
        "irrelevance": 240,
        "live_irrelevance": 884,
    }
    assert bfcl.skipped == {}
    assert len({s.id for s in bfcl.samples}) == len(bfcl.samples)


def test_simple_is_simple_python_and_java_is_not_loaded(bfcl: LoadResult, by_id: ById) -> None:
    s = by_id(bfcl, "bfcl_v3__BFCL_v3_simple__simple_python_0")
    assert s.source.file == "BFCL_v3_simple.json"
    assert not any("java" in s.id for s in bfcl.samples)


def test_irrelevance_has_no_golden_call(bfcl: LoadResult) -> None:
    for cat in ("irrelevance", "live_irrelevance"):
        samples = [s for s in bfcl.samples if s.category == cat]
        assert samples and all(s.golden_answers == [] for s in samples)


def test_system_turns_are_kept(bfcl: LoadResult) -> None:
    with_system = [s for s in bfcl.samples if s.conversation[0].role == "system"]
    assert len(with_system) == 11 + 37 + 1 + 42  # live_simple, live_multiple, live_parallel, live_irrelevance
    assert all(s.conversation[-1].role == "user" for s in with_system if s.category != "live_irrelevance")


def test_parameter_only_acceptable_as_empty_is_left_out(bfcl: LoadResult, by_id: ById) -> None:
    g = by_id(bfcl, "bfcl_v3__BFCL_v3_simple__simple_python_211").golden_answers[0]
    assert g.acceptable is not None and g.acceptable["cc"] == [""] and g.acceptable["bcc"] == [""]
    assert "cc" not in g.parameters and "bcc" not in g.parameters


def test_empty_acceptable_list_is_kept_verbatim_and_left_out_of_parameters(bfcl: LoadResult, by_id: ById) -> None:
    g = by_id(bfcl, "bfcl_v3__BFCL_v3_live_simple__live_simple_106-63-0").golden_answers[0]
    assert g.acceptable is not None and g.acceptable["auto_loan_payment_start"] == []
    assert "auto_loan_payment_start" not in g.parameters


def test_nested_dicts_are_canonicalised_recursively(bfcl: LoadResult, by_id: ById) -> None:
    g = by_id(bfcl, "bfcl_v3__BFCL_v3_simple__simple_python_89").golden_answers[0]
    assert g.acceptable is not None
    assert g.acceptable["conditions"] == [
        {"department": ["Science"], "school": ["Bluebird High School", "Bluebird HS"]}
    ]
    assert g.parameters["conditions"] == {"department": "Science", "school": "Bluebird High School"}
    rows = by_id(bfcl, "bfcl_v3__BFCL_v3_simple__simple_python_96").golden_answers[0].parameters["conditions"]
    assert rows == [
        {"field": "age", "operation": ">", "value": "25"},
        {"field": "job", "operation": "=", "value": "engineer"},
    ]
    body = by_id(bfcl, "bfcl_v3__BFCL_v3_live_simple__live_simple_42-17-2").golden_answers[0].parameters["body"]
    assert body["airConJobMode"] == "COOL" and body["coolTargetTemperature"] == 22


def test_parallel_has_one_golden_per_call(bfcl: LoadResult, by_id: ById) -> None:
    s = by_id(bfcl, "bfcl_v3__BFCL_v3_parallel__parallel_0")
    assert len(s.golden_answers) >= 2


def test_versions_name_the_wheel_and_every_member_read(bfcl: LoadResult, bfcl_wheel: Path) -> None:
    assert bfcl.versions["bfcl-eval"] == BFCL_VERSION
    assert len(bfcl.versions[bfcl_wheel.name]) == 64
    assert "bfcl_eval/data/BFCL_v4_multiple.json" in bfcl.versions
    assert "bfcl_eval/data/possible_answer/BFCL_v4_multiple.json" in bfcl.versions
    assert "bfcl_eval/data/possible_answer/BFCL_v4_irrelevance.json" not in bfcl.versions


def test_records_round_trip_through_json(bfcl: LoadResult) -> None:
    from robustcall.core import Sample, dump_record

    for s in bfcl.samples[::97]:
        assert Sample.model_validate(json.loads(dump_record(s))) == s
