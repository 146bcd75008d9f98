"""Listing 2 judge: verdict parsing, seeded candidate order, unparseable verdicts counted."""

from __future__ import annotations

from robustcall.models import ModelRequest, ModelResponse
from robustcall.rewards import JUDGE_PROMPT, JudgeScorer, RewardPair, evaluate, judge_prompt, parse_verdict


def test_parse_verdict_reads_the_tag_and_lone_marks() -> None:
    assert parse_verdict("[EXPLANATION]\n[[A]] misses x, [[B]] is right.\n\n[VERDICT]\n[[B]]") == "B"
    assert parse_verdict("[VERDICT]\n[[A]]") == "A"
    assert parse_verdict("[verdict] [[ A ]]") == "A"
    assert parse_verdict("Assistant [[B]] is better.") == "B"
    assert parse_verdict("[[A]] is fine but [[B]] is better") is None  # both, no tag
    assert parse_verdict("[VERDICT]\nneither") is None
    assert parse_verdict("") is None


def test_prompt_is_listing_2_with_placeholders_filled_once() -> None:
    assert JUDGE_PROMPT.startswith("Please act as an impartial judge")
    text = judge_prompt([{"name": "f"}], [{"role": "user", "content": "say {query}"}], "RA", "RB")
    assert "[[A]] RA\n[[B]] RB\n\n# ANSWER:" in text
    assert "say {query}" in text  # filled text is never re-substituted
    assert "{tool-library}" not in text and '[{"name": "f"}]' in text


class PrefersFirstShown:
    """A judge with position bias: always answers [[A]] (or garbage every third call)."""

    name = "biased"
    mode = "prompt"

    def __init__(self, garbage_every: int = 0) -> None:
        self.calls = 0
        self.prompts: list[str] = []
        self.garbage_every = garbage_every

    async def complete(self, req: ModelRequest) -> ModelResponse:
        self.calls += 1
        self.prompts.append(req.messages[-1].content)
        if self.garbage_every and self.calls % self.garbage_every == 0:
            return ModelResponse(text="I think both are fine.", tool_calls=None)
        return ModelResponse(text="[EXPLANATION]\nA looks good.\n\n[VERDICT]\n[[A]]", tool_calls=None)

    async def aclose(self) -> None:
        return None


def _pairs(n: int) -> list[RewardPair]:
    return [
        RewardPair(
            tools=[{"name": "f", "description": "", "parameters": {"type": "dict", "properties": {}}}],
            conversation=[{"role": "user", "content": f"q{i}"}],
            chosen_output=f"CHOSEN{i}",
            rejected_output=f"REJECTED{i}",
            error_type="Incorrect Parameter Value",
            model_name="m",
            test_category="simple",
            test_id=f"id{i}",
        )
        for i in range(n)
    ]


def test_order_is_seeded_and_balanced_so_position_bias_scores_about_half() -> None:
    pairs = _pairs(200)
    a = evaluate(JudgeScorer(PrefersFirstShown(), seed=7), pairs)
    b = evaluate(JudgeScorer(PrefersFirstShown(), seed=7), pairs)
    c = evaluate(JudgeScorer(PrefersFirstShown(), seed=8), pairs)
    assert a.hits == b.hits  # same seed, same order
    assert a.hits != c.hits
    assert 0.4 < a.accuracy < 0.6  # a judge that always says A is right only when chosen was shown first
    judge = JudgeScorer(PrefersFirstShown(), seed=7)
    evaluate(judge, pairs[:20])
    shown_first = ["[[A]] CHOSEN" in p for p in judge.model.prompts]  # type: ignore[attr-defined]
    assert [h for h in a.hits[:20]] == shown_first


def test_unparseable_verdicts_are_counted_and_miss() -> None:
    res = evaluate(JudgeScorer(PrefersFirstShown(garbage_every=3), seed=0, concurrency=1), _pairs(30))
    assert res.unparseable == 10
    assert res.total == 30 and res.correct <= 20


def test_round_robin_pointwise_scores() -> None:
    judge = JudgeScorer(PrefersFirstShown(), seed=0)
    from robustcall.core import Message, ToolSpec

    scores = judge.score([Message(role="user", content="q")], [ToolSpec(name="f")], ["x", "y", "z"])
    assert len(scores) == 3 and abs(sum(scores) - 1.5) < 1e-9  # 3 games, one win each, shared over n-1 = 2
    assert judge.score([Message(role="user", content="q")], [ToolSpec(name="f")], ["x"]) == [0.5]
