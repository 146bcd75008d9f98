"""BFCL's multi-turn checker on a finished result entry, rule for rule (``eval_runner``'s
``_evaluate_single_multi_turn_entry`` and ``multi_turn_checker``, bfcl-eval 2026.3.23).

In order, the first failure gives the entry's ``error_type``:

- the result is not a list of turns: ``multi_turn:inference_error``;
- it holds another number of turns than the ground truth: ``multi_turn:force_terminated``;
- each step is decoded (:mod:`._bfcl_decode`); a step that does not decode, or decodes to nothing,
  is dropped;
- turn by turn, the model's calls run on one set of API instances and the ground truth's on
  another (replayed once per wheel and kept in the cache: :mod:`._bfcl_truth`), both loaded from the
  task's initial config (with the long-context extra data for
  ``long_context``) and kept across turns; a turn whose ground truth is empty (``miss_func`` /
  ``miss_param``'s turn where the model should ask) is not checked, though its calls still run;
  otherwise: no decoded step in the turn: ``multi_turn:empty_turn_model_response``; some public
  attribute of some instance differs from the ground truth's: ``multi_turn:instance_state_mismatch``;
  some result of the turn's ground-truth calls is missing from the model's results of all turns so
  far (counted with multiplicity, in any order): ``multi_turn:execution_response_mismatch``.

While the model's turns make the ground truth's calls (as written, or as a function-calling handler
spells them, checked to run alike), nothing of its own is run: the same calls on the same state give
the truth's results and state (the APIs are deterministic, which the replay's cache relies on too),
so those turns pass both checks. At its first other turn, its instances are built by running the
turns so far, and from there on it is run as above; the verdicts are the same
(``tests/score/test_bfcl_multi_turn.py``, against BFCL's checker).
"""

from __future__ import annotations

import json
from typing import Any

from robustcall.core import Sample
from robustcall.envs import BfclInstances, MultiTurnTask
from robustcall.score._bfcl_decode import NotCalls, decode_fc, decode_prompting
from robustcall.score._bfcl_truth import tasks_by_id, truth_calls_alike, truth_replay, truth_state


def task_of(entry_id: str) -> MultiTurnTask:
    """The wheel's task of a multi-turn id (``multi_turn_miss_func_3``)."""
    task = tasks_by_id(entry_id.rsplit("_", 1)[0]).get(entry_id)
    if task is None:
        raise KeyError(f"no BFCL multi-turn task {entry_id!r}")
    return task


def decoded_turns(result: list[Any], fc: bool) -> list[list[list[str]]]:
    """Per turn, the steps that decode to at least one call (as call strings)."""
    decode = decode_fc if fc else decode_prompting
    turns: list[list[list[str]]] = []
    for turn in result:
        steps: list[list[str]] = []
        for item in turn if isinstance(turn, (list, str, dict)) else []:
            try:
                calls = decode(item)
            except NotCalls:
                continue
            if calls and calls != [""]:
                steps.append(calls)
        turns.append(steps)
    return turns


def check_multi_turn(task: MultiTurnTask, result: Any, fc: bool) -> str | None:
    """``None`` when BFCL's multi-turn checker passes ``result`` (an entry's ``result``), else its ``error_type``."""
    if type(result) is not list:
        return "multi_turn:inference_error"
    if len(result) != len(task.ground_truth):
        return "multi_turn:force_terminated"
    turns = decoded_turns(result, fc)
    model: BfclInstances | None = None  # BFCL loads the model's instances at its first executed step
    all_results: list[str] = []
    replay = truth_replay(task)
    following = True  # every turn so far made the ground truth's calls: nothing of the model's run yet
    ran = False  # some step so far (BFCL's instances for the model exist)
    for k, (steps, gold, truth) in enumerate(zip(turns, task.ground_truth, replay.turns, strict=True)):
        if following and truth_calls_alike(truth, gold, [call for calls in steps for call in calls]):
            # the truth's calls on the truth's state: its results, its state (the checks below pass)
            all_results.extend(truth[0])
            ran = ran or bool(steps)
            continue
        if following:  # the model's instances are the truth's after the turns so far: built by running them
            following = False
            if ran:
                model = replay.fresh_instances(task)
                for earlier in task.ground_truth[:k]:
                    model.execute(earlier)
        for calls in steps:
            if model is None:
                model = replay.fresh_instances(task)
            all_results.extend(model.execute(calls))
        if not gold:
            continue
        if not steps or model is None:
            return "multi_turn:empty_turn_model_response"
        for cls, attributes in truth_state(truth).items():
            if not _same_state(model.instances[cls], attributes):
                return "multi_turn:instance_state_mismatch"
        left = list(all_results)
        for item in truth[0]:
            try:
                left.remove(item)
            except ValueError:
                return "multi_turn:execution_response_mismatch"
    return None


def _same_state(model: Any, truth: dict[str, Any]) -> bool:
    """``_compare_instances``: every public attribute of the ground truth's instance (``truth``) equals the model's."""
    return all(getattr(model, name) == value for name, value in truth.items())


HANDLER_KEY = "bfcl_handler"
"""``source.extra`` key of an imported multi-turn sample: ``fc`` or ``prompt``, the handler whose
``decode_execute`` reads the answer (a function-calling handler's steps are lists of calls)."""


def judge_multi_turn(sample: Sample, raw: str) -> str | None:
    """The verdict on an imported multi-turn record: ``raw`` is the entry's ``result`` as JSON."""
    try:
        result = json.loads(raw)
    except json.JSONDecodeError:
        result = raw  # not a list of turns: BFCL's inference error
    fc = sample.source.extra.get(HANDLER_KEY) == "fc"
    return check_multi_turn(task_of(sample.source.original_id), result, fc)
