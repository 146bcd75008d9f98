"""Best-of-n at every step of BFCL multi-turn episodes (ToolRM Table 2's Multi-Turn Acc), judged by
BFCL's state and response checks through ``envs.BfclMultiTurnEnv``."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from typer.testing import CliRunner

from robustcall.cli.main import app
from robustcall.core import Message, ToolSpec
from robustcall.models import ModelRequest, ModelResponse
from robustcall.rewards import BestOfNModel
from robustcall.run import run_episode

envs = pytest.importorskip("robustcall.envs")


def _env() -> Any:
    try:
        return envs.BfclMultiTurnEnv()
    except Exception as exc:  # the bfcl-eval wheel could not be fetched
        pytest.skip(f"BFCL multi-turn data unavailable: {exc}")


class _OneInThreeWrong:
    """Plays the bound environment: every third answer (the first of each step's draws) stops early, a
    plain-text answer with no call, which leaves the turn's work undone."""

    name, mode = "scripted:one-in-three-wrong", "fc"

    def __init__(self, env: Any = None) -> None:
        self.env, self.k = env, 0

    def bind(self, env: Any, seed: int) -> _OneInThreeWrong:
        return _OneInThreeWrong(env)

    async def complete(self, req: ModelRequest) -> ModelResponse:
        self.k += 1
        action = self.env.expert_action()
        if action is None:
            return ModelResponse(text="Done.", tool_calls=[])
        if self.k % 3 == 1:
            return ModelResponse(text="Done.", tool_calls=[])
        return ModelResponse(text="", tool_calls=[action])

    async def aclose(self) -> None:
        return None


class _PrefersShortest:
    """A reward model with a bias: the shortest answer wins (here: the answer that stops early)."""

    name = "prefers-shortest"

    def score(self, conversation: list[Message], tools: list[ToolSpec], outputs: list[str]) -> list[float]:
        return [-float(len(o)) for o in outputs]


def _accuracy(model: BestOfNModel, tasks: list[str]) -> float:
    async def go() -> float:
        total = 0.0
        for task in tasks:
            env = _env()
            await run_episode(model, env, task, max_steps=40)
            total += env.score()
        return total / len(tasks)

    return asyncio.run(go())


def test_each_method_picks_the_answer_it_should() -> None:
    tasks = _env().task_ids()[:2]
    gen = _OneInThreeWrong()
    # greedy takes the first answer of each step: the one that stops early; a state check fails
    assert _accuracy(BestOfNModel(gen, "greedy", n=3), tasks) == 0.0
    # two of three draws are the expert's: the vote executes it, every turn's checks pass
    assert _accuracy(BestOfNModel(gen, "majority", n=3), tasks) == 1.0
    # a reward model that prefers the early stop makes the episode fail
    assert _accuracy(BestOfNModel(gen, "rm:short", n=3, scorer=_PrefersShortest()), tasks) == 0.0
    model = BestOfNModel(gen, "majority", n=3)
    _accuracy(model, tasks[:1])
    assert model.draws_made > 0 and model.draws_made % 3 == 0


def test_cli_prints_the_multi_turn_table(tmp_path: Any) -> None:
    _env()
    args = ["rm", "best-of-n", "--env", "bfcl_multi_turn", "-g", "scripted:expert", "-s", "schema", "--n", "2"]
    res = CliRunner().invoke(app, [*args, "--limit", "2", "-o", str(tmp_path)])
    assert res.exit_code == 0, res.output
    assert "Best-of-2 multi-turn accuracy (%) on bfcl_multi_turn" in res.output
    table = (tmp_path / "best_of_n_multi_turn.md").read_text()
    for method in ("greedy", "majority", "schema", "rm:schema"):
        row = next(line for line in table.splitlines() if line.startswith(f"| {method} "))
        assert row.split(" | ")[1] == "100.0", row  # the expert passes BFCL's checks whatever is picked
