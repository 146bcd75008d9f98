"""The ground truth's side of BFCL's multi-turn check, replayed once per wheel and kept in the cache.

BFCL's checker runs each entry's ground-truth calls on fresh API instances, turn by turn, and
compares the model's instances with them after every turn. That replay depends only on the task,
BFCL's code (the pinned wheel) and our executor, never on the model's answer, and it is
deterministic (the APIs' randomness is seeded by the scenario); on a whole result folder it is most
of the multi-turn scoring (0.3 s of ~0.45 s for the 800 entries). So, per category, every task's
replay is recorded the first time the category is scored (the instances as loaded, each turn's
results, and the public attributes of every instance after the turn, pickled at that moment) and
read back after that; the model's instances start as a copy of the loaded ones.

The cache's key is the wheel file (name and size), the Python version and the source of the modules
that execute the calls (``envs._bfcl_exec``, ``envs._bfcl_dispatch``, ``envs._bfcl_wheel`` and this
one): a change to any of them is a new key. Verdicts are the same with or without it
(``tests/score/test_bfcl_truth_cache.py``); ``ROBUSTCALL_BFCL_TRUTH_CACHE=0`` replays every time.
A task that is not the wheel's own (a hand-made one, through the Python API) is always replayed.
"""

from __future__ import annotations

import ast
import copy
import os
import pickle
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from robustcall.core import derived_cache_dir, kept_or_built
from robustcall.envs import BfclInstances, MultiTurnTask, api_class, literal_value, load_tasks
from robustcall.score._bfcl_decode import NotCalls, decode_fc
from robustcall.sources import fetch_bfcl

TruthTurn = tuple[list[str], bytes | dict[str, dict[str, Any]], list[str] | None]
"""One turn of the ground truth's replay: its calls' results; the public attributes of each API
instance after it (``{class: {attribute: value}}``) as they were at that moment: pickled, or (what
does not pickle) deep-copied; and its calls as a function-calling handler's answer decodes them
(``cd(folder='x',y=1)`` for ``cd(folder='x', y=1)``), checked to run alike (``None`` where one
does not, or cannot be spelled so)."""

CACHE_ENV = "ROBUSTCALL_BFCL_TRUTH_CACHE"
_EXECUTOR = ("envs/_bfcl_exec.py", "envs/_bfcl_dispatch.py", "envs/_bfcl_wheel.py", "score/_bfcl_truth.py")
_PACKAGE = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class TruthReplay:
    """A task's ground truth, replayed: the freshly loaded instances (pickled, before any call) and
    each turn's results and state."""

    loaded: bytes | None
    """The instances as BFCL loads them from the initial config, pickled (``None``: they do not
    pickle): the model's instances are a copy of them, as good as loading again and cheaper."""
    turns: list[TruthTurn]

    def fresh_instances(self, task: MultiTurnTask) -> BfclInstances:
        """A new set of the task's instances, as BFCL loads them for the model."""
        if self.loaded is None:
            return BfclInstances(task.classes, task.initial_config, task.long_context)
        return BfclInstances.adopting(pickle.loads(self.loaded))


def replay_truth(task: MultiTurnTask) -> TruthReplay:
    """Run the task's ground truth turn by turn on fresh instances, as BFCL's checker does."""
    truth = BfclInstances(task.classes, task.initial_config, task.long_context)
    try:
        loaded: bytes | None = pickle.dumps(truth.instances, protocol=pickle.HIGHEST_PROTOCOL)
    except (pickle.PicklingError, TypeError, AttributeError):
        loaded = None
    turns: list[TruthTurn] = []
    for gold in task.ground_truth:
        spelled = [fc_spelling(call) for call in gold]
        checked = None if None in spelled else [s for s in spelled if s is not None]
        if checked is not None and not all(map(truth.runs_alike, checked, gold)):
            checked = None
        results = truth.execute(gold)
        state = {cls: _public(inst) for cls, inst in truth.instances.items()}
        try:
            turns.append((results, pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL), checked))
        except (pickle.PicklingError, TypeError, AttributeError):
            turns.append((results, copy.deepcopy(state), checked))
    return TruthReplay(loaded, turns)


def fc_spelling(call: str) -> str | None:
    """A ground-truth call string as a function-calling handler's answer decodes (``decode_fc``):
    ``name(k=repr(v),...)``; ``None`` when it is not a call of a plain name with literal keyword
    arguments only."""
    try:
        node = ast.parse(call, mode="eval").body
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name) or node.args:
            return None
        if any(k.arg is None for k in node.keywords):
            return None
        spelled = decode_fc({node.func.id: {str(k.arg): literal_value(k.value) for k in node.keywords}})
    except (SyntaxError, ValueError, TypeError, NameError, RecursionError, MemoryError, NotCalls):
        return None
    return spelled[0] if len(spelled) == 1 else None


def truth_calls_alike(turn: TruthTurn, gold: list[str], calls: list[str]) -> bool:
    """Whether ``calls`` (a turn's decoded calls, in order) are the turn's ground truth: as written,
    or as a function-calling handler spells them (and so run alike)."""
    return calls == gold or (turn[2] is not None and calls == turn[2])


def truth_state(turn: TruthTurn) -> dict[str, dict[str, Any]]:
    """The instances' public attributes after the turn (a fresh copy when it was pickled)."""
    state = turn[1]
    return pickle.loads(state) if isinstance(state, bytes) else state


def _public(inst: Any) -> dict[str, Any]:
    """What BFCL's ``_compare_instances`` compares: the instance's own attributes not starting with ``_``."""
    return {name: value for name, value in vars(inst).items() if not name.startswith("_")}


def truth_replay(task: MultiTurnTask) -> TruthReplay:
    """The task's ground-truth replay: from the cache when the task is the wheel's own, else replayed."""
    category = task.id.rsplit("_", 1)[0]
    if os.environ.get(CACHE_ENV, "1") == "0" or not _wheel_task(category, task):
        return replay_truth(task)
    for name in task.classes:  # what the pickles name is imported from the wheel's code (once)
        api_class(name)
    return _category_truth(category)[task.id]


def _wheel_task(category: str, task: MultiTurnTask) -> bool:
    try:
        own = tasks_by_id(category).get(task.id)
    except KeyError:  # not a multi-turn category of the wheel
        return False
    return own is task or own == task


@cache
def tasks_by_id(category: str) -> dict[str, MultiTurnTask]:
    """The wheel's tasks of a multi-turn category by id."""
    return {t.id: t for t in load_tasks(category)}


@cache
def _category_truth(category: str) -> dict[str, TruthReplay]:
    # a read-only cache, or a deep-copied state: the replay is still right, only not kept
    return kept_or_built(_folder() / f"{category}.pickle", lambda: _replayed(category), dict)


def _replayed(category: str) -> dict[str, TruthReplay]:
    return {t.id: replay_truth(t) for t in load_tasks(category)}


@cache
def _folder() -> Path:
    wheel = fetch_bfcl(quiet=True)
    key = f"{wheel.name} {wheel.stat().st_size} {sys.version_info[:2]}"
    return derived_cache_dir("bfcl-truth", key, (_PACKAGE / name for name in _EXECUTOR))
