"""Per-source scoring rules, Appendix L error modes and infra-error handling."""

from __future__ import annotations

from typing import Any, get_args

import pytest

from robustcall.core import (
    EvalConfig,
    GoldenAnswer,
    Message,
    PerturbationInfo,
    Prediction,
    PredictionRecord,
    ScoreMethod,
    SourceInfo,
    ToolCall,
    ToolSpec,
)
from robustcall.score import MODES, GoldenModeError, check_bfcl, score_record, score_records, standardize
from robustcall.sources import GoldenMode

WEATHER = ToolSpec(
    name="get_weather",
    parameters={
        "type": "dict",
        "properties": {
            "city": {"type": "string"},
            "days": {"type": "integer"},
            "temp": {"type": "float"},
            "tags": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["city"],
    },
)
CHEAP = ToolSpec(name="get_weather_fast_cheap", parameters={"type": "dict", "properties": {"city": {"type": "string"}}})


def rec(
    method: ScoreMethod,
    golden: list[GoldenAnswer],
    calls: list[ToolCall],
    *,
    raw: str = "x",
    category: str = "simple",
    component: Any = "clean",
    extra: dict[str, Any] | None = None,
    tools: list[ToolSpec] | None = None,
    error_kind: Any = None,
    meta: dict[str, Any] | None = None,
) -> PredictionRecord:
    return PredictionRecord(
        id="s1",
        benchmark="b",
        category=category,
        source=SourceInfo(original_id="1", benchmark="b", extra=extra or {}),
        perturbation=PerturbationInfo(
            type="clean" if component == "clean" else "t", mdp_category=component, metadata=meta or {}
        ),
        conversation=[Message(role="user", content="q")],
        tools=tools or [WEATHER, CHEAP],
        golden_answers=golden,
        eval_config=EvalConfig(method=method),
        prediction=Prediction(
            raw_output=raw, tool_calls=calls, error_kind=error_kind, error="boom" if error_kind else None
        ),
    )


def call(name: str = "get_weather", **args: Any) -> ToolCall:
    return ToolCall(name=name, arguments=args)


def bfcl_gold(**acceptable: list[Any]) -> GoldenAnswer:
    return GoldenAnswer(name="get_weather", acceptable=acceptable)


def bfcl(calls: list[ToolCall], gold: GoldenAnswer, category: str = "simple") -> str | None:
    return check_bfcl(category, [WEATHER, CHEAP], calls, [gold])


def test_standardize_string_matches_upstream_rules() -> None:
    assert standardize("April 1, 2024") == standardize("april 1 2024") == "april12024"
    assert standardize("It's") == 'it"s'


def test_bfcl_rules() -> None:
    gold = bfcl_gold(city=["Paris", "paris, fr"], days=[3, ""], temp=[1.0, ""])
    assert bfcl([call(city="PARIS")], gold) is None  # case / punctuation insensitive, optional omitted
    assert bfcl([call(city="Paris, FR", days=3, temp=1)], gold) is None  # int accepted for float
    assert bfcl([call(city="Paris", days=3.0)], gold) == "type_error:simple"  # no float for int
    assert bfcl([call(city="Paris", days="3")], gold) == "type_error:simple"
    assert bfcl([call(days=3)], gold) == "simple_function_checker:missing_required"
    assert bfcl([call(city="Paris", zz=1)], gold) == "simple_function_checker:unexpected_param"
    assert bfcl([call(city="Lyon")], gold) == "value_error:string"
    assert bfcl([call("get_weather_fast_cheap", city="Paris")], gold) == "simple_function_checker:wrong_func_name"
    assert bfcl([call(city="Paris"), call(city="Paris")], gold) == "simple_function_checker:wrong_count"
    required_optional = bfcl_gold(city=["Paris"], days=[3])
    assert bfcl([call(city="Paris")], required_optional) == "simple_function_checker:missing_optional"
    tags = bfcl_gold(city=["Paris"], tags=[["Sun Set", "rain"]])
    assert bfcl([call(city="Paris", tags=["sunset", "Rain"])], tags) is None
    assert bfcl([call(city="Paris", tags=["rain", "sunset"])], tags) == "value_error:list/tuple"
    assert bfcl([call(city="Paris", tags=[1])], tags) == "type_error:nested"


def test_bfcl_parallel_is_order_free_and_irrelevance_wants_no_call() -> None:
    golds = [
        GoldenAnswer(name="get_weather", acceptable={"city": ["A"]}),
        GoldenAnswer(name="get_weather", acceptable={"city": ["B"]}),
    ]
    tools = [WEATHER]
    assert check_bfcl("parallel", tools, [call(city="B"), call(city="A")], golds) is None
    assert check_bfcl("parallel", tools, [call(city="B"), call(city="B")], golds) is not None
    assert check_bfcl("irrelevance", tools, [], []) is None
    assert check_bfcl("irrelevance", tools, [call(city="A")], []) == "irrelevance:called"


def test_bfcl_without_acceptable_uses_canonical_parameters() -> None:
    gold = GoldenAnswer(name="get_weather", parameters={"city": "Paris"})
    assert score_record(rec("bfcl_ast", [gold], [call(city="paris")])).correct is True
    assert score_record(rec("bfcl_ast", [gold], [call(city="Paris", days=1)])).correct is False


def test_apibank_strings_case_insensitive_numbers_normalised() -> None:
    gold = [GoldenAnswer(name="get_weather", parameters={"city": "Paris ", "days": "5"})]
    assert score_record(rec("apibank", gold, [call(city="paris", days=5.0)])).correct is True
    assert score_record(rec("apibank", gold, [call(city="paris", days=6)])).correct is False
    assert score_record(rec("apibank", gold, [call(city="paris")])).correct is False
    meta = {"meta_tools": ["**Think"]}
    with_think = [ToolCall(name="**Think", arguments={}), call(city="Paris", days=5)]
    assert score_record(rec("apibank", gold, with_think, extra=meta)).correct is True


def test_rotbench_any_alternative_field_by_field() -> None:
    gold = [
        GoldenAnswer(name="get_weather", parameters={"city": "Paris"}),
        GoldenAnswer(name="get_weather", parameters={"city": "Paris", "days": 1}),
    ]
    extra = {"golden_mode": "any"}
    assert score_record(rec("rotbench", gold, [call(city="Paris", days="1")], extra=extra)).correct is True
    assert score_record(rec("rotbench", gold, [call(city="Paris", days=2)], extra=extra)).correct is False
    assert score_record(rec("rotbench", gold, [call("finish")], extra=extra)).correct is False


def test_toolalpaca_subset_of_values() -> None:
    gold = [GoldenAnswer(name="get_weather", parameters={"city": "Paris"})]
    assert score_record(rec("toolalpaca", gold, [call(city="paris", days=3)])).correct is True
    assert score_record(rec("toolalpaca", gold, [call(days=3)])).correct is False


def test_tooleyes_partial_credit_and_library_alternatives() -> None:
    gold = [GoldenAnswer(name="a"), GoldenAnswer(name="b"), GoldenAnswer(name="c"), GoldenAnswer(name="d")]
    v = score_record(rec("tooleyes", gold, [call("a"), call("x"), call("c")]))
    assert v.correct is False and v.score == 0.25  # a matched, then b never comes: 1 of 4 in order
    v = score_record(rec("tooleyes", gold, [call("a"), call("b"), call("c"), call("d")]))
    assert v.correct is True and v.score == 1.0
    lib = {"acceptable_names": [["a", "a2"], ["b"], ["c"], ["d"]]}
    v = score_record(rec("tooleyes", gold, [call("a2"), call("b"), call("c"), call("d")], extra=lib))
    assert v.correct is True
    anymode = [GoldenAnswer(name="t1"), GoldenAnswer(name="t2")]
    assert score_record(rec("tooleyes", anymode, [call("t2")], extra={"golden_mode": "any"})).correct is True


def test_tooleyes_any_name_one_listed_tool_is_right() -> None:
    """ToolEyes' loader lists the query's library with ``golden_mode="any_name"``: one call to any
    listed tool is the right answer (it used to be read as "call every tool of the library")."""
    lib = [GoldenAnswer(name="a"), GoldenAnswer(name="b"), GoldenAnswer(name="c")]
    extra = {"golden_mode": "any_name"}
    v = score_record(rec("tooleyes", lib, [call("b")], extra=extra))
    assert (v.correct, v.score, v.error_mode) == (True, 1.0, None)
    v = score_record(rec("tooleyes", lib, [call("finish"), call("a")], extra=extra))
    assert (v.correct, v.score, v.error_mode) == (False, 0.0, "wrong")
    assert score_record(rec("tooleyes", lib, [], raw="", extra=extra)).error_mode == "empty"


def test_a_golden_mode_the_scorer_does_not_read_is_an_error() -> None:
    lib = [GoldenAnswer(name="a"), GoldenAnswer(name="b")]
    with pytest.raises(GoldenModeError, match="golden_mode 'any_nam' is not one the tooleyes scorer reads"):
        score_record(rec("tooleyes", lib, [call("a")], extra={"golden_mode": "any_nam"}))
    gold = bfcl_gold(city=["Paris"])
    with pytest.raises(GoldenModeError, match="bfcl_ast"):
        score_record(rec("bfcl_ast", [gold], [call(city="Paris")], extra={"golden_mode": "any"}))
    # every mode a loader can emit is read by some scorer
    assert set(get_args(GoldenMode)) <= set().union(*MODES.values())


BOOK = ToolSpec(
    name="hotel.book",
    parameters={
        "type": "dict",
        "properties": {"city": {"type": "string"}, "nights": {"type": "integer"}},
        "required": ["city", "nights"],
    },
)


def _decoy(name: str, props: dict[str, Any] | None = None) -> ToolSpec:
    props = props or {}
    return ToolSpec(name=name, parameters={"type": "dict", "properties": props, "required": list(props)})


def test_several_same_name_decoys_each_call_judged_by_its_golden_tool() -> None:
    """A multi-call record with 2-4 decoys sharing the golden tools' names, decoys placed first:
    every call is judged against its own golden tool's schema (not the first of that name)."""
    wrong = {"query": {"type": "string"}, "limit": {"type": "integer"}}
    tools = [
        _decoy("get_weather", wrong),  # Dup-WrongP before the GT
        WEATHER,
        _decoy("hotel.book"),  # Dup-NoDesc before the GT
        _decoy("hotel.book", wrong),
        BOOK,
        _decoy("get_weather"),
    ]
    gold = [
        bfcl_gold(city=["Paris"], days=[3, ""]),
        GoldenAnswer(name="hotel.book", acceptable={"city": ["Paris"], "nights": [2]}),
    ]
    calls = [call(city="Paris", days=3), call("hotel.book", city="Paris", nights=2)]
    listed = {"distractor": ["get_weather", "hotel.book"], "position": [0, 2, 3, 5]}
    for meta in (listed, {}):  # listed decoys, or none listed: the schema that fits the gold
        v = score_record(
            rec("bfcl_ast", gold, calls, category="parallel_multiple", tools=tools, component="action", meta=meta)
        )
        assert (v.correct, v.detail) == (True, None)
    # the golden tool's rules still apply: a parameter only a decoy declares is unexpected
    bad = [call(city="Paris", days=3, query="x"), calls[1]]
    v = score_record(rec("bfcl_ast", gold, bad, category="parallel_multiple", tools=tools, meta=listed))
    assert v.correct is False


def test_score_cli_names_the_sample_with_an_unknown_golden_mode(tmp_path: Any) -> None:
    from typer.testing import CliRunner

    from robustcall.cli.main import app
    from robustcall.core import write_jsonl

    lib = [GoldenAnswer(name="a"), GoldenAnswer(name="b")]
    write_jsonl(tmp_path / "predictions.jsonl", [rec("tooleyes", lib, [call("a")], extra={"golden_mode": "some"})])
    result = CliRunner().invoke(app, ["score", str(tmp_path), "--bootstrap", "0"])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert "sample s1: golden_mode 'some' is not one the tooleyes scorer reads" in result.output


def test_error_modes() -> None:
    gold = [GoldenAnswer(name="get_weather", parameters={"city": "Paris"})]
    assert score_record(rec("apibank", gold, [], raw="  \n")).error_mode == "empty"
    assert score_record(rec("apibank", gold, [], raw="the tool failed, try later")).error_mode == "omitted"
    distractor = [call("get_weather_fast_cheap", city="Paris")]
    picked = {"distractor": "get_weather_fast_cheap"}
    assert score_record(rec("apibank", gold, distractor, component="reward", meta=picked)).error_mode == "name_bias"
    assert score_record(rec("apibank", gold, distractor, component="observation")).error_mode == "wrong"
    assert score_record(rec("apibank", gold, [call(city="Lyon")])).error_mode == "param_mismatch"
    assert score_record(rec("apibank", gold, [call(city="Paris"), call(city="Paris")])).error_mode == "other"
    assert score_record(rec("apibank", gold, [call(city="Paris")])).error_mode is None


def test_name_bias_only_when_the_distractor_was_picked() -> None:
    """Appendix L: name bias = under a Reward perturbation the model picked the distractor. Any other
    wrong name under Reward is ``wrong``, as it is elsewhere."""
    gold = [GoldenAnswer(name="get_weather", parameters={"city": "Paris"})]
    picked = {"distractor": "get_weather_fast_cheap"}
    distractor = [call("get_weather_fast_cheap", city="Paris")]
    other = [call("get_forecast", city="Paris")]
    assert score_record(rec("apibank", gold, other, component="reward", meta=picked)).error_mode == "wrong"
    assert score_record(rec("apibank", gold, distractor, component="reward")).error_mode == "wrong"  # none listed
    listed = {"distractor": ["x", "get_weather_fast_cheap"]}
    assert score_record(rec("apibank", gold, distractor, component="reward", meta=listed)).error_mode == "name_bias"
    both = [*other, *distractor]
    assert score_record(rec("apibank", gold, both, component="reward", meta=picked)).error_mode == "name_bias"
    # not under Action: a same-name decoy shares the golden name, a wrong name there is just wrong
    assert score_record(rec("apibank", gold, distractor, component="action", meta=picked)).error_mode == "wrong"
    v = score_record(rec("bfcl_ast", [bfcl_gold(city=["Paris"])], distractor, component="reward", meta=picked))
    assert v.error_mode == "name_bias"


def test_infra_errors_are_excluded_not_scored() -> None:
    gold = [GoldenAnswer(name="get_weather", parameters={"city": "Paris"})]
    v = score_record(rec("apibank", gold, [], error_kind="infra"))
    assert v.correct is None and v.infra_error == "boom" and v.error_mode is None
    formatted = score_record(rec("apibank", gold, [], error_kind="model_format"))
    assert formatted.correct is False and formatted.error_mode == "omitted"
    assert [v.correct for v in score_records([rec("apibank", gold, [call(city="Paris")])] * 2)] == [True, True]
