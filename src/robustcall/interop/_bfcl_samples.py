"""BFCL entries beyond the single-turn samples ``sources`` loads, as samples an import scores: the
multi-turn tasks (``bfcl_multi_turn``, from ``envs``' reading of the wheel) and the memory and
web-search entries (``bfcl_agentic``), under the ids BFCL's result files use."""

from __future__ import annotations

import functools
import json
import zipfile
from collections.abc import Iterable
from typing import Any

from robustcall.core import EvalConfig, Message, Sample, SourceInfo
from robustcall.envs import function_docs, load_tasks
from robustcall.score import BFCL_ANSWERS_KEY as ANSWERS_KEY
from robustcall.score import BFCL_HANDLER_KEY as HANDLER_KEY
from robustcall.sources import BFCL_BENCHMARK as BENCHMARK
from robustcall.sources import BFCL_VERSION, fetch_bfcl


def multi_turn_samples(categories: Iterable[str], handler: str) -> dict[str, Sample]:
    """Today's multi-turn tasks as samples scored by BFCL's multi-turn checker (``bfcl_multi_turn``)."""
    docs = function_docs()
    out: dict[str, Sample] = {}
    for category in categories:
        for task in load_tasks(category):
            excluded = set(task.excluded)
            out[task.id] = Sample(
                id=f"{BENCHMARK}__BFCL_v3_{category}__{task.id}",
                benchmark=BENCHMARK,
                category=category,
                source=SourceInfo(
                    original_id=task.id,
                    benchmark=BENCHMARK,
                    file=f"BFCL_v3_{category}.json",
                    extra={"bfcl_eval": BFCL_VERSION, "wheel_category": category, HANDLER_KEY: handler},
                ),
                conversation=[Message(role="user", content=task.turns[0])],
                tools=[t for c in task.classes for t in docs[c] if t.name not in excluded],
                golden_answers=[],
                eval_config=EvalConfig(method="bfcl_multi_turn", output_format="bfcl"),
            )
    return out


def agentic_samples(category: str, handler: str) -> dict[str, Sample]:
    """BFCL's memory / web-search entries of one category, by the result files' ids (``memory_kv_0-customer-0``
    is the data's ``memory_0-customer-0``), scored by BFCL's agentic checker (``bfcl_agentic``)."""
    base = "memory" if category.startswith("memory") else "web_search"
    questions, answers = _wheel_entries(base)
    out: dict[str, Sample] = {}
    for q in questions:
        bfcl_id = str(q["id"]).replace(base, category, 1)
        turn = q["question"][0] if q.get("question") else []
        out[bfcl_id] = Sample(
            id=f"{BENCHMARK}__BFCL_v3_{category}__{bfcl_id}",
            benchmark=BENCHMARK,
            category=category,
            source=SourceInfo(
                original_id=bfcl_id,
                benchmark=BENCHMARK,
                file=f"BFCL_v3_{category}.json",
                extra={
                    "bfcl_eval": BFCL_VERSION,
                    "wheel_category": base,
                    HANDLER_KEY: handler,
                    ANSWERS_KEY: list(answers[str(q["id"])]),
                },
            ),
            conversation=[Message(role=m["role"], content=m["content"]) for m in turn],
            tools=[],
            golden_answers=[],
            eval_config=EvalConfig(method="bfcl_agentic", output_format="bfcl"),
        )
    return out


@functools.cache  # the three memory categories read one file, the two web-search ones another
def _wheel_entries(base: str) -> tuple[list[dict[str, Any]], dict[str, list[Any]]]:
    with zipfile.ZipFile(fetch_bfcl(quiet=True)) as zf:

        def lines(member: str) -> list[dict[str, Any]]:
            return [json.loads(x) for x in zf.read(member).decode("utf-8").splitlines() if x.strip()]

        questions = lines(f"bfcl_eval/data/BFCL_v4_{base}.json")
        answers = {
            str(a["id"]): list(a["ground_truth"]) for a in lines(f"bfcl_eval/data/possible_answer/BFCL_v4_{base}.json")
        }
    return questions, answers
