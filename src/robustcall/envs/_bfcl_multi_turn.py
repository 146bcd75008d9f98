"""BFCL multi-turn base tasks as an ``Env``: BFCL's own API classes, fresh per episode, state-checked.

Task ``multi_turn_base_<k>``. On ``reset`` each involved class (GorillaFileSystem, MathAPI,
MessageAPI, TwitterAPI, TicketAPI, TradingBot, TravelAPI, VehicleControlAPI) is instantiated afresh
and loaded with a deep copy of the task's initial config (MathAPI is stateless, as in BFCL); nothing
is cached in module globals, so episodes never share state. The agent is offered the function docs
of the involved classes, minus the task's excluded functions. Calls run by explicit dispatch
(``_bfcl_dispatch``).

Turns: the instruction is the first user turn. When the agent answers in text without a call, the
turn is over and the next user turn arrives as a user message (:class:`~robustcall.envs.UserTurns`);
a text answer to the last turn ends the episode (``done``).

Score (BFCL's ``multi_turn_checker`` semantics): the ground truth is executed turn by turn on a second
set of fresh instances. A turn whose ground truth has calls passes when (1) the agent made at least
one call in that turn, (2) every involved instance's public attributes (``vars``, names not starting
with ``_``) equal the ground-truth instance's after that turn (state check), and (3) every
ground-truth result of the turn is among the agent's results so far, counted with multiplicity
(response check). Score 1.0 when every turn passes, else 0.0; turns never reached fail. A turn is
judged when it ends (its state then), the last one when the score is read.

Expert: replays the current turn's ground-truth calls in order (the next one until the environment
has executed it, so a refused call is proposed again), then answers in text.
"""

from __future__ import annotations

import copy
from collections import Counter
from typing import Any

from robustcall.core import ToolCall, ToolSpec
from robustcall.envs._bfcl_dispatch import dispatch
from robustcall.envs._bfcl_wheel import STATELESS, MultiTurnTask, api_class, function_docs, load_tasks
from robustcall.envs._protocol import EnvReset, EnvStep
from robustcall.formats import parse_tool_calls


def fresh_instances(task: MultiTurnTask) -> dict[str, Any]:
    """One new instance per involved class, loaded with a deep copy of its initial config."""
    out: dict[str, Any] = {}
    for name in task.classes:
        inst = api_class(name)()
        if name not in STATELESS:
            inst._load_scenario(copy.deepcopy(task.initial_config.get(name, {})), long_context=False)
        out[name] = inst
    return out


def public_state(instances: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Per class, a deep copy of the public attributes BFCL's state check compares."""
    return {c: {k: copy.deepcopy(v) for k, v in vars(i).items() if not k.startswith("_")} for c, i in instances.items()}


def parse_ground_truth(call: str, tools: list[ToolSpec]) -> ToolCall:
    """One ground-truth call string (``sort('a.pdf')``) as a ``ToolCall``, read by ``formats`` (never evaluated;
    positional arguments are mapped in the doc's parameter order)."""
    parsed = parse_tool_calls(f"[{call}]", "bfcl", tools)
    if len(parsed.calls) != 1 or parsed.dropped:
        raise ValueError(f"ground-truth call {call!r} not understood: {parsed.dropped}")
    return parsed.calls[0]


class BfclMultiTurnEnv:
    """The Env protocol (with user turns) over BFCL's ``multi_turn_base`` tasks."""

    name = "bfcl_multi_turn"

    def __init__(self) -> None:
        self._tasks = {t.id: t for t in load_tasks()}
        self._task: MultiTurnTask | None = None
        self._tools: list[ToolSpec] = []
        self._docs: dict[str, ToolSpec] = {}
        self._owners: dict[str, Any] = {}
        self._gt_calls: list[list[ToolCall]] = []
        self._gt_states: list[dict[str, dict[str, Any]]] = []
        self._gt_results: list[list[str]] = []
        self._turn = 0
        self._cursor = 0
        self._calls_in_turn = 0
        self._results: list[str] = []
        self._verdicts: list[bool] = []
        self._over = False

    def task_ids(self) -> list[str]:
        return list(self._tasks)

    def tools(self) -> list[ToolSpec]:
        return list(self._tools)

    @property
    def task(self) -> MultiTurnTask:
        if self._task is None:
            raise RuntimeError("call reset() first")
        return self._task

    def reset(self, task_id: str, seed: int = 0) -> EnvReset:
        if task_id not in self._tasks:
            raise KeyError(f"unknown BFCL multi-turn task {task_id!r}")
        task = self._task = self._tasks[task_id]
        docs = function_docs()
        excluded = set(task.excluded)
        self._tools = [s for c in task.classes for s in docs[c] if s.name not in excluded]
        self._docs = {s.name: s for s in self._tools}
        instances = fresh_instances(task)
        self._owners = {s.name: instances[c] for c in task.classes for s in docs[c]}
        all_tools = [s for c in task.classes for s in docs[c]]
        self._gt_calls = [[parse_ground_truth(c, all_tools) for c in turn] for turn in task.ground_truth]
        self._replay_ground_truth(all_tools)
        self._instances = instances
        self._turn = self._cursor = self._calls_in_turn = 0
        self._results, self._verdicts, self._over = [], [], False
        return EnvReset(task.turns[0], "", self.tools())

    def _replay_ground_truth(self, all_tools: list[ToolSpec]) -> None:
        gt = fresh_instances(self.task)
        owners = {s.name: gt[c] for c in self.task.classes for s in function_docs()[c]}
        docs = {s.name: s for s in all_tools}
        self._gt_states, self._gt_results = [], []
        for calls in self._gt_calls:
            self._gt_results.append([dispatch(c, docs, owners)[0] for c in calls])
            self._gt_states.append(public_state(gt))

    def step(self, call: ToolCall) -> EnvStep:
        if self._over:
            return EnvStep("The conversation is over.", done=True, error=True)
        text, error = dispatch(call, self._docs, self._owners)
        self._calls_in_turn += 1
        self._results.append(text)
        expected = self._gt_calls[self._turn]
        if self._cursor < len(expected) and call == expected[self._cursor]:
            self._cursor += 1
        return EnvStep(text, error=error)

    def _judge(self, turn: int, reached: bool) -> bool:
        if not self._gt_calls[turn]:
            return True
        if not reached or self._calls_in_turn == 0:
            return False
        if public_state(self._instances) != self._gt_states[turn]:
            return False
        left = Counter(self._results)
        for r in self._gt_results[turn]:
            if left[r] <= 0:
                return False
            left[r] -= 1
        return True

    def answer(self, text: str) -> EnvStep | None:
        """End the current turn; the next user turn, or ``done`` after the last one."""
        if self._over:
            return EnvStep("", done=True)
        self._verdicts.append(self._judge(self._turn, reached=True))
        self._turn += 1
        self._cursor = self._calls_in_turn = 0
        if self._turn >= len(self.task.turns):
            self._over = True
            return EnvStep("", done=True)
        return EnvStep(self.task.turns[self._turn])

    def turn_verdicts(self) -> list[bool]:
        """Per turn: passed (turns judged so far, then the current one as it stands, then unreached ones)."""
        out = list(self._verdicts)
        if not self._over:
            out.append(self._judge(self._turn, reached=True))
            out += [self._judge(k, reached=False) for k in range(self._turn + 1, len(self.task.turns))]
        return out

    def score(self) -> float:
        return 1.0 if all(self.turn_verdicts()) else 0.0

    def expert_action(self) -> ToolCall | None:
        if self._over:
            return None
        expected = self._gt_calls[self._turn]
        return expected[self._cursor] if self._cursor < len(expected) else None
