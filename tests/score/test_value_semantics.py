"""What a Python-syntax argument value means: unreadable values fail the call, literal arithmetic is
folded, bare ``true`` / ``false`` / ``null`` are read by the parameter's schema (docs/scoring.md).

Upstream's readings quoted here were measured with upstream BFCL's own decoder
(``bfcl_eval.model_handler.utils.default_decode_ast_prompting``, bfcl-eval 2026.3.23, through
``../shared/tools/bfcl_oracle``)."""

from __future__ import annotations

from typing import Any

import pytest

from robustcall.core import (
    EvalConfig,
    GoldenAnswer,
    Message,
    Prediction,
    PredictionRecord,
    Sample,
    SourceInfo,
    ToolSpec,
    read_jsonl,
    write_jsonl,
)
from robustcall.formats import parse_tool_calls
from robustcall.score import score_prediction, score_texts

TOOL = ToolSpec(
    name="calc.run",
    parameters={
        "type": "dict",
        "properties": {
            "x": {"type": "float"},
            "n": {"type": "integer"},
            "s": {"type": "string"},
            "items": {"type": "array", "items": {"type": "string"}},
            "flag": {"type": "boolean"},
            "flags": {"type": "array", "items": {"type": "boolean"}},
            "note": {"type": "string"},
            "limit": {"type": "integer"},
        },
        "required": ["x"],
    },
)


def sample(method: str = "bfcl_ast", **acceptable: list[Any]) -> Sample:
    acc: dict[str, list[Any]] = {"x": [0.08], "note": ["", "hi"], "limit": ["", 5]}
    acc.update(acceptable)
    gold = GoldenAnswer(name="calc.run", acceptable=acc, parameters={k: v[0] for k, v in acc.items() if v[0] != ""})
    return Sample(
        id="calc_1",
        benchmark="bfcl",
        category="simple",
        source=SourceInfo(original_id="calc_1", benchmark="bfcl"),
        conversation=[Message(role="user", content="q")],
        tools=[TOOL],
        golden_answers=[gold],
        eval_config=EvalConfig(method=method, output_format="bfcl"),  # type: ignore[arg-type]
    )


def verdict(text: str, smp: Sample | None = None) -> tuple[bool, str | None, str | None]:
    smp = smp or sample()
    got = score_texts([(smp, text)])[0]
    # the per-record path gives the same verdict
    pred = Prediction(raw_output=text, tool_calls=parse_tool_calls(text, "bfcl", smp.tools).calls)
    v = score_prediction(smp, pred)
    assert (v.correct, v.error_mode, v.detail) == (got.correct, got.error_mode, got.detail)
    return got.correct, got.error_mode, got.detail


# ---- item 2: a value the parser cannot read fails the call, with the reason --------------------

UNREADABLE = [
    ("note=f'{x}'", "f-string"),  # upstream: decoder error (JoinedStr)
    ("note=lambda: 'hi'", "Lambda"),  # upstream: decoder error
    ("limit=not True", "operator Not"),  # upstream: -1 (any unary op is a minus): a type error
    ("note=x[0]", "Subscript"),  # upstream: the string 'x[0]'
    ("limit=0j", "complex literal"),  # upstream: 0j, a type error
    ("note=b'hi'", "bytes literal"),  # upstream: b'hi', a type error
    ("limit=1 << 3", "operator LShift"),  # upstream: 8 (eval); not literal arithmetic here
    ("note='%s' % 'hi'", "operator Mod on str and str"),  # string formatting is not folded
    ("limit=True + 4", "operator Add on bool and int"),  # upstream: 5
]


@pytest.mark.parametrize(("arg", "why"), UNREADABLE)
def test_an_unreadable_optional_argument_fails_the_call(arg: str, why: str) -> None:
    """The argument is optional: dropping it (what happened before) let the call pass."""
    correct, mode, detail = verdict(f"[calc.run(x=0.08, {arg})]")
    param = arg.split("=")[0]
    assert correct is False and mode == "param_mismatch"
    assert detail is not None and detail.startswith(f"unreadable_value: calc.run.{param}: {why}")
    assert verdict("[calc.run(x=0.08)]") == (True, None, None)


def test_unreadable_positional_and_unpacked_arguments_fail_too() -> None:
    assert verdict("[calc.run(f'{y}')]")[2] == "unreadable_value: calc.run.x: f-string: f'{y}'"
    assert verdict("[calc.run(x=0.08, **extra)]")[2] == "unreadable_value: calc.run.**: ** unpacking: extra"


def test_unreadable_values_fail_every_scorer_and_survive_a_json_round_trip(tmp_path: Any) -> None:
    lenient = sample("toolalpaca")  # name + subset of gold values: an extra argument is fine...
    assert verdict("[calc.run(x=0.08, note='hi')]", lenient)[0] is True
    assert verdict("[calc.run(x=0.08, note=f'{a}')]", lenient)[0] is False  # ...an unreadable one is not
    text = "[calc.run(x=0.08, note=f'{a}')]"
    rec = PredictionRecord(
        **dict(sample()),
        prediction=Prediction(raw_output=text, tool_calls=parse_tool_calls(text, "bfcl", [TOOL]).calls),
    )
    write_jsonl(tmp_path / "p.jsonl", [rec])
    (back,) = read_jsonl(tmp_path / "p.jsonl", PredictionRecord)
    v = score_prediction(back, back.prediction)
    assert (v.correct, v.detail) == (False, "unreadable_value: calc.run.note: f-string: f'{a}'")


# ---- item 3: literal arithmetic folded, within limits --------------------------------------------

FOLDED = [
    ("x=2**3", {"x": [8.0]}),  # upstream: 8
    ("x=-(-0.08)", {}),  # upstream: decoder error ('UnaryOp' has no .value); we read 0.08
    ("x=+0.08", {}),  # upstream: -0.08 (its unary reader negates every operand); we read 0.08
    ("x=0.1 * 0.8", {"x": [0.1 * 0.8]}),
    ("x=0.08, s='12' + '34'", {"s": ["1234"]}),  # upstream: '1234'
    ("x=0.08, items=['a'] + ['b']", {"items": [["a", "b"]]}),  # upstream: ['a', 'b']
    ("x=0.08, s=2 * 'ab'", {"s": ["abab"]}),  # upstream: 'abab'
    ("x=0.08, n=7 // 2", {"n": [3]}),
    ("x=0.08, n=-(3)", {"n": [-3]}),
    ("x=2 ** 0.5", {"x": [2**0.5]}),
]


@pytest.mark.parametrize(("args", "acceptable"), FOLDED)
def test_literal_arithmetic_is_folded_and_accepted(args: str, acceptable: dict[str, list[Any]]) -> None:
    assert verdict(f"[calc.run({args})]", sample(**acceptable)) == (True, None, None)


def test_plus_sign_reads_right_where_upstream_negates() -> None:
    call = parse_tool_calls("[calc.run(x=+0.08)]", "bfcl", [TOOL]).calls[0]
    assert call.arguments == {"x": 0.08}  # upstream decodes -0.08 and rejects a right answer


@pytest.mark.parametrize(
    ("arg", "why"),
    [
        ("n=10**400", "power too large"),  # refused before computing
        ("n=9**9**9**9", "power too large"),
        ("s='a' * 100000", "repetition too long"),
        ("items=['a'] * 100000", "repetition too long"),
        ("n=1 / 0", "division by zero"),
        ("x=(-8) ** 0.5", "complex power"),
        ("x=1e300 * 1e300", "number out of range"),
    ],
)
def test_folding_has_explicit_limits(arg: str, why: str) -> None:
    detail = verdict(f"[calc.run(x=0.08, {arg})]" if not arg.startswith("x=") else f"[calc.run({arg})]")[2]
    assert detail is not None and why in detail and detail.startswith("unreadable_value:")


# ---- item 6: bare true / false / null read by the parameter's schema ----------------------------


def test_bare_json_literals_follow_the_schema() -> None:
    args = (
        parse_tool_calls(
            "[calc.run(x=0.08, flag=true, flags=[true, false], s=true, note=null, limit=null)]", "bfcl", [TOOL]
        )
        .calls[0]
        .arguments
    )
    # boolean -> boolean; string -> the identifier string (upstream's reading); integer null -> None
    assert args == {"x": 0.08, "flag": True, "flags": [True, False], "s": "true", "note": "null", "limit": None}
    for b in (True, False):  # Python's own literals are what they are
        assert parse_tool_calls(f"[calc.run(x=1.0, s={b})]", "bfcl", [TOOL]).calls[0].arguments["s"] is b


def test_bare_true_scores_like_the_boolean_where_the_schema_says_boolean() -> None:
    smp = sample(flag=[True])
    assert verdict("[calc.run(x=0.08, flag=true)]", smp) == (True, None, None)  # upstream: 'true', type error
    assert verdict("[calc.run(x=0.08, flag=True)]", smp) == (True, None, None)
    assert verdict("[calc.run(x=0.08, flag=false)]", smp)[0] is False
    assert verdict("[calc.run(x=0.08, flag='true')]", smp)[2] == "type_error:simple"  # a quoted string stays one
    # a string parameter whose gold is "True" (59 such BFCL answers): bare true still matches, as upstream
    assert verdict("[calc.run(x=0.08, s=true)]", sample(s=["True"])) == (True, None, None)
    # an integer parameter whose gold allows None: bare null is None
    assert verdict("[calc.run(x=0.08, limit=null)]", sample(limit=["", None])) == (True, None, None)
    # the token reader and the JSON-ish readers take the same path
    assert verdict('[func_name="calc.run", params={"x": 0.08, "flag": true}]', smp) == (True, None, None)


NESTED = ToolSpec(
    name="laws.search",
    parameters={
        "type": "dict",
        "properties": {
            "details": {
                "type": "dict",
                "properties": {"includeReforms": {"type": "boolean"}, "label": {"type": "string"}},
            },
            "filters": {
                "type": "array",
                "items": {"type": "dict", "properties": {"active": {"type": "boolean"}, "until": {"type": "integer"}}},
            },
            "extra": {"type": "dict", "additionalProperties": {"type": "boolean"}},
            "loose": {"type": "dict"},
        },
        "required": ["details"],
    },
)


def test_bare_json_literals_follow_the_schema_inside_objects_and_arrays() -> None:
    """Issue 26 item 10: the schema follows the value into object properties and array items, as at
    the top level; where the schema says string or nothing, upstream's identifier string stays."""
    text = (
        "[laws.search(details={'includeReforms': true, 'label': true}, "
        "filters=[{'active': false, 'until': null}, {'active': true}], extra={'x': false}, loose={'y': true})]"
    )
    args = parse_tool_calls(text, "bfcl", [NESTED]).calls[0].arguments
    assert args == {
        "details": {"includeReforms": True, "label": "true"},
        "filters": [{"active": False, "until": None}, {"active": True}],
        "extra": {"x": False},
        "loose": {"y": "true"},
    }
    # and it scores like Python's own literal (before: the string 'true', a type error)
    gold = GoldenAnswer(
        name="laws.search",
        acceptable={"details": [{"includeReforms": [True], "label": ["", "a"]}]},
        parameters={"details": {"includeReforms": True}},
    )
    smp = sample().model_copy(update={"tools": [NESTED], "golden_answers": [gold]})
    assert verdict("[laws.search(details={'includeReforms': true})]", smp) == (True, None, None)
    assert verdict("[laws.search(details={'includeReforms': True})]", smp) == (True, None, None)
    assert verdict("[laws.search(details={'includeReforms': false})]", smp)[0] is False
