"""``scored_verdict`` and ``read_call`` build the very records validation builds (equal, dumped
alike, the same fields set), and validate whatever is not of the declared types."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from robustcall.core import ToolCall, Verdict, read_call, scored_verdict


@pytest.mark.parametrize(
    "values",
    [
        ("a_1", "bfcl", "clean", "clean", True, 1.0, None, None),
        ("a_2", "bfcl", "Dup-WrongP", "action", False, 0.0, "wrong", "value_error:x"),
    ],
)
def test_scored_verdict_is_the_validated_verdict(values: tuple[object, ...]) -> None:
    names = ("id", "benchmark", "type", "component", "correct", "score", "error_mode", "detail")
    fast = scored_verdict(*values)  # type: ignore[arg-type]
    slow = Verdict(**dict(zip(names, values, strict=True)))
    assert fast == slow
    assert list(fast.__dict__) == list(slow.__dict__)
    assert fast.model_fields_set == slow.model_fields_set
    assert fast.model_dump_json(exclude_none=True) == slow.model_dump_json(exclude_none=True)
    fast.attack_success = True  # assignment after building works as on a validated one
    assert fast.model_fields_set == slow.model_fields_set | {"attack_success"}


def test_scored_verdict_validates_other_types() -> None:
    v = scored_verdict("a", "bfcl", "clean", "clean", True, 1, None, None)
    assert (
        type(v.score) is float
        and v.model_dump_json()
        == Verdict(id="a", benchmark="bfcl", type="clean", component="clean", correct=True, score=1.0).model_dump_json()
    )
    with pytest.raises(ValidationError):
        scored_verdict("a", "bfcl", "clean", "nowhere", True, 1.0, None, None)
    with pytest.raises(ValidationError):
        scored_verdict("a", "bfcl", "clean", "clean", True, 1.0, "bad_mode", None)


def test_read_call_is_the_validated_call() -> None:
    args = {"a": 1, "b": [1, "x"]}
    fast, slow = read_call("f.g", args), ToolCall(name="f.g", arguments=args)
    assert fast == slow and fast.model_fields_set == slow.model_fields_set
    assert fast.model_dump_json(by_alias=True) == slow.model_dump_json(by_alias=True)
    assert fast.arguments is not args  # a copy, as validation makes
    with pytest.raises(ValidationError):
        read_call("f", {1: "x"})  # type: ignore[dict-item]
