"""BFCL multi-turn result entries made from the ground truth: right ones and systematic mutations.

Standard library only (it runs in the oracle venv too): reads the bfcl-eval wheel's multi-turn data
and writes, per task, result entries as ``bfcl generate`` writes them, in the function-calling shape
(each step a list of ``{name: arguments as JSON}``) and the prompting shape (each step the text
``[f(a=1), g(b=2)]``), one per variant:

- ``gold``: each turn's ground-truth calls in one step, then a closing text step;
- ``split``: one step per call (still right);
- ``wrong_arg``: at turn k, a string argument of the first call that has one changed;
- ``missing_call``: at turn k, the last call dropped;
- ``extra_call``: at turn k, the first call made twice;
- ``swapped``: at turn k, the first two calls in reverse order;
- ``empty_turn``: turn k without any call (a text answer only);
- ``early``: turn k's calls made at the end of turn k-1 instead (the response check reads all turns so far);
- ``force_terminated``: the last turn missing;
- ``called_when_asked``: on a turn whose ground truth is empty (``miss_func`` / ``miss_param``), the
  next turn's first call made there.

k is the task's index modulo the turns whose ground truth has calls. Entry ids read
``<task id>`` (BFCL's checker needs them); the variant and shape travel beside them.

usage: python bfcl_mt_corpus.py WHEEL OUT.jsonl [PER_CATEGORY]
"""

from __future__ import annotations

import ast
import json
import sys
import zipfile
from typing import Any

CATEGORIES = ("multi_turn_base", "multi_turn_miss_func", "multi_turn_miss_param", "multi_turn_long_context")
VARIANTS = ("gold", "split", "wrong_arg", "missing_call", "extra_call", "swapped", "empty_turn", "early",
            "force_terminated", "called_when_asked")  # fmt: skip
DOCS = ("gorilla_file_system", "math_api", "message_api", "posting_api", "ticket_api", "trading_bot",
        "travel_booking", "vehicle_control")  # fmt: skip
_DATA = "bfcl_eval/data"

Call = tuple[str, dict[str, Any]]


def _jsonl(zf: zipfile.ZipFile, member: str) -> list[dict[str, Any]]:
    return [json.loads(x) for x in zf.read(member).decode("utf-8").splitlines() if x.strip()]


Data = tuple[dict[str, list[dict[str, Any]]], dict[str, dict[str, list[list[str]]]], dict[str, list[str]]]


def load(wheel: str) -> Data:
    """Per category the questions and the ground truth by id; per function its parameter names in doc order."""
    with zipfile.ZipFile(wheel) as zf:
        questions = {c: _jsonl(zf, f"{_DATA}/BFCL_v4_{c}.json") for c in CATEGORIES}
        answers = {
            c: {a["id"]: a["ground_truth"] for a in _jsonl(zf, f"{_DATA}/possible_answer/BFCL_v4_{c}.json")}
            for c in CATEGORIES
        }
        params: dict[str, list[str]] = {}
        for doc in DOCS:
            for f in _jsonl(zf, f"{_DATA}/multi_turn_func_doc/{doc}.json"):
                params[f["name"]] = list(f["parameters"].get("properties", {}))
    return questions, answers, params


def parse_call(text: str, params: dict[str, list[str]]) -> Call:
    """A ground-truth call string as (name, keyword arguments); positional ones named in doc order."""
    node = ast.parse(text, mode="eval").body
    assert isinstance(node, ast.Call) and isinstance(node.func, ast.Name), text
    name = node.func.id
    args = {params[name][i]: ast.literal_eval(a) for i, a in enumerate(node.args)}
    args |= {str(k.arg): ast.literal_eval(k.value) for k in node.keywords}
    return name, args


def fc_step(calls: list[Call]) -> list[dict[str, str]]:
    return [{name: json.dumps(args)} for name, args in calls]


def text_step(calls: list[Call]) -> str:
    return "[" + ", ".join(f"{n}({', '.join(f'{k}={v!r}' for k, v in a.items())})" for n, a in calls) + "]"


def _mutate(variant: str, turns: list[list[Call]], k: int) -> list[list[list[Call]]] | None:
    """Per turn, per step, the calls of a variant; ``None`` when it does not apply to this task."""
    steps: list[list[list[Call]]] = [[list(t)] if t else [] for t in turns]
    calls = turns[k]
    if variant == "gold":
        return steps
    if variant == "split":
        return [[[c] for c in t] for t in turns]
    if variant == "wrong_arg":
        for i, (name, args) in enumerate(calls):
            key = next((a for a, v in args.items() if isinstance(v, str)), None)
            if key is not None:
                changed = list(calls)
                changed[i] = (name, {**args, key: args[key] + "_x"})
                steps[k] = [changed]
                return steps
        return None
    if variant == "missing_call":
        steps[k] = [calls[:-1]] if len(calls) > 1 else []
        return steps
    if variant == "extra_call":
        steps[k] = [[calls[0], *calls]]
        return steps
    if variant == "swapped":
        if len(calls) < 2:
            return None
        steps[k] = [[calls[1], calls[0], *calls[2:]]]
        return steps
    if variant == "empty_turn":
        steps[k] = []
        return steps
    if variant == "early":
        if k == 0:
            return None
        steps[k - 1] = [*steps[k - 1], list(calls)]
        steps[k] = []
        return steps
    if variant == "force_terminated":
        return steps[:-1]
    if variant == "called_when_asked":
        empty = next((i for i, t in enumerate(turns) if not t and i + 1 < len(turns) and turns[i + 1]), None)
        if empty is None:
            return None
        steps[empty] = [[turns[empty + 1][0]]]
        return steps
    raise ValueError(variant)


def entries(wheel: str, per_category: int | None = None) -> list[dict[str, Any]]:
    """The corpus rows: ``{"id", "category", "variant", "shape", "result"}``."""
    questions, answers, params = load(wheel)
    rows: list[dict[str, Any]] = []
    for category in CATEGORIES:
        for n, q in enumerate(questions[category][:per_category]):
            gt = answers[category][q["id"]]
            turns = [[parse_call(c, params) for c in t] for t in gt]
            active = [i for i, t in enumerate(turns) if t]
            k = active[n % len(active)]
            for variant in VARIANTS:
                steps = _mutate(variant, turns, k)
                if steps is None:
                    continue
                for shape in ("fc", "text"):
                    step = fc_step if shape == "fc" else text_step
                    result = [[step(s) for s in t] + ["Done."] for t in steps]
                    rows.append({"id": q["id"], "category": category, "variant": variant, "shape": shape,
                                 "result": result})  # fmt: skip
    return rows


def main() -> None:
    wheel, out = sys.argv[1], sys.argv[2]
    per = int(sys.argv[3]) if len(sys.argv) > 3 else None
    with open(out, "w", encoding="utf-8") as fh:
        for row in entries(wheel, per):
            fh.write(json.dumps(row) + "\n")


if __name__ == "__main__":
    main()
