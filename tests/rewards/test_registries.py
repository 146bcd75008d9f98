"""Reward scorers and GRPO reward functions are registered by name, one place each."""

from __future__ import annotations

import pytest

from robustcall.rewards import SCORER_HELP, SCORERS, BfclScorer, SchemaScorer, ScorerKind, load_scorer, register_scorer
from robustcall.train import REWARD_NAMES, REWARDS, register_reward, reward_functions


def test_the_built_in_scorer_kinds() -> None:
    assert list(SCORERS) == ["hf", "judge", "pooling", "schema", "bfcl"]
    assert SCORER_HELP == (
        "hf:<path-or-id>[#<file.gguf>] | judge:local | judge:<model>@<base_url> | "
        "pooling:<model>@<base_url>[#sigmoid] | schema | bfcl"
    )
    assert isinstance(load_scorer("schema"), SchemaScorer) and isinstance(load_scorer("bfcl"), BfclScorer)
    for bad in ("schema:x", "bfcl:", "hf", "hf:", "judge", "nope:x", "pooling", "pooling:"):
        with pytest.raises(ValueError, match=r"bad scorer spec .*: expected hf:<path-or-id>"):
            load_scorer(bad)


def test_a_registered_scorer_kind_is_built_and_listed() -> None:
    seen = []

    def build(spec):  # type: ignore[no-untyped-def]
        seen.append((spec.kind, spec.rest, spec.seed, spec.concurrency))
        return SchemaScorer()

    register_scorer(ScorerKind("const", "const:<x>", build))
    try:
        assert isinstance(load_scorer("const:1", seed=3, concurrency=2), SchemaScorer)
        assert seen == [("const", "1", 3, 2)]
        with pytest.raises(ValueError, match=r"\| bfcl \| const:<x>$"):
            load_scorer("nope")
    finally:
        del SCORERS["const"]


def test_reward_functions_by_name() -> None:
    assert REWARD_NAMES == ("toolrl_format", "toolrl_correctness", "schema", "toolrm")
    fns = reward_functions(["schema", "toolrl_format"])
    assert [f.__name__ for f in fns] == ["schema", "toolrl_format"]
    with pytest.raises(ValueError, match="the toolrm reward needs a scorer spec"):
        reward_functions(["toolrm"])
    with pytest.raises(
        ValueError, match="unknown reward 'nope'; valid: toolrl_format, toolrl_correctness, schema, toolrm"
    ):
        reward_functions(["nope"])


def test_a_registered_reward_function_is_found() -> None:
    def constant(completions, **_):  # type: ignore[no-untyped-def]
        return [1.0 for _ in completions]

    register_reward("constant", lambda scorer: constant)
    try:
        (fn,) = reward_functions(["constant"])
        assert fn(completions=["a", "b"]) == [1.0, 1.0]
    finally:
        del REWARDS["constant"]
