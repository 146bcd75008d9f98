"""RoTBench First_Turn: the five noise splits (clean, slight, medium, heavy, union).

Read from ``<data_dir>/rotbench/First_Turn/<split>.json``: items ``{id, conversations, scenario}``
with a ReAct system prompt (tool list in JSON), the user query, and an assistant turn that lists
every acceptable first step as ``Thought: …\\nAction: X\\nAction Input: {json}``.

Representation:

- id ``rotbench__<split>_<index in the split file>``: RoTBench's own ``id`` is the query text
  ("Turn 1: …"), shared by all five splits and repeated inside slight / medium / heavy (each has two
  noisy variants of every query), so it cannot name a sample. It is kept in
  ``source.extra["rotbench_id"]``; the scenario (TG, DU, RS, PL, IR, AM, FT) in ``extra["scenario"]``.
- category: the split. Noise lives in the tool list (names and parameters) and the gold calls
  use the noisy names, so every split is its own sample set.
- conversation: the user query without the prompt template's trailing ``Begin!`` line; the system
  prompt (ReAct scaffold + tool list) is rendered by ``formats`` from ``tools``.
- tools: the system prompt's JSON list verbatim (including ``ask_to_user`` and ``finish``).
- golden_answers: every acceptable alternative, ``golden_mode = "any"`` (one matching call is
  correct). A sample whose alternatives cannot all be read is skipped (``unparseable action``,
  ``unparseable action input``), as is one naming a tool it does not list (``gold tool not in tools``).
"""

from __future__ import annotations

from pathlib import Path

from robustcall.core import EvalConfig, GoldenAnswer, Message, Sample, SourceInfo
from robustcall.sources._common import Skips, hash_files, load_json, require_data_dir, require_files
from robustcall.sources._react import parse_react_step, tools_from_system_prompt
from robustcall.sources._types import LoadResult, SourceFormatError

BENCHMARK = "rotbench"
ROTBENCH_SPLITS: tuple[str, ...] = ("clean", "slight", "medium", "heavy", "union")
QUERY_SUFFIX = "\nBegin!\n"
LAYOUT = "rotbench/First_Turn/{clean,slight,medium,heavy,union}.json"


def load_rotbench(data_dir: Path | None) -> LoadResult:
    root = require_data_dir("rotbench", data_dir, LAYOUT)
    files = require_files("rotbench", root, [f"rotbench/First_Turn/{s}.json" for s in ROTBENCH_SPLITS])
    skips = Skips("rotbench")
    samples: list[Sample] = []
    for split, path in zip(ROTBENCH_SPLITS, files, strict=True):
        items = load_json(path)
        if not isinstance(items, list):
            raise SourceFormatError(f"{path}: expected a JSON list of {{id, conversations, scenario}}")
        for index, item in enumerate(items):
            sample_id = f"{BENCHMARK}__{split}_{index}"
            try:
                turns = {t["from"]: t["value"] for t in item["conversations"]}
                system, query, gold = str(turns["system"]), str(turns["user"]), turns["assistant"]
            except (KeyError, TypeError) as exc:
                raise SourceFormatError(f"{path} item {index}: not a RoTBench item ({exc!r})") from None
            tools = tools_from_system_prompt(system)
            if tools is None:
                skips.add("no tool list in system prompt", sample_id)
                continue
            alternatives = gold if isinstance(gold, list) else [gold]
            golden: list[GoldenAnswer] = []
            reason = None
            for alt in alternatives:
                step = parse_react_step(str(alt))
                if step is None:
                    reason = "unparseable action"
                    break
                name, args = step
                if args is None:
                    reason = "unparseable action input"
                    break
                golden.append(GoldenAnswer(name=name, parameters=args))
            if reason is None and not golden:
                reason = "no gold call"
            if reason is None and any(g.name not in {t.name for t in tools} for g in golden):
                reason = "gold tool not in tools"
            if reason is not None:
                skips.add(reason, sample_id)
                continue
            if query.endswith(QUERY_SUFFIX):
                query = query[: -len(QUERY_SUFFIX)]
            samples.append(
                Sample(
                    id=sample_id,
                    benchmark=BENCHMARK,
                    category=split,
                    source=SourceInfo(
                        original_id=str(index),
                        benchmark=BENCHMARK,
                        file=f"First_Turn/{split}.json",
                        extra={
                            "golden_mode": "any",
                            "rotbench_id": item.get("id"),
                            "scenario": item.get("scenario"),
                        },
                    ),
                    conversation=[Message(role="user", content=query)],
                    tools=tools,
                    golden_answers=golden,
                    eval_config=EvalConfig(method="rotbench", output_format="react"),
                )
            )
    return LoadResult(source="rotbench", samples=samples, skipped=skips.as_dict(), versions=hash_files(files, root))
