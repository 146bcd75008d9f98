"""API-Bank level-1 / level-2, in the ToolRL-processed form that RobustBench-TC uses.

Read from ``<data_dir>/toolrl/benchmarks/API-Bank/level-{1,2}-api_processed.json`` (one item per
gold API call: a system prompt listing the tools, one user message holding the dialogue history,
the answer) and checked against the raw API-Bank dialogues in
``<data_dir>/apibank/lv1-lv2-samples/{level-1-given-desc,level-2-toolsearcher}/``.

Representation (matches the paper's Appendix C samples, e.g. ``apibank__level1_101``):

- id ``apibank__level{1,2}_<index in the ToolRL file>``; category ``level-1`` / ``level-2``.
- conversation: the single ToolRL user message verbatim ("**Dialogue Records History** <user>…
  Based on our conversation above, please only make one tool call to solve my need.</user>").
  The ToolRL system prompt is not kept: it is the ``tool_call`` output-format scaffold plus a
  rendering of ``tools``, which the ``formats`` package renders from the (possibly perturbed) tools.
- tools: the numbered ``Name / Description / Parameters`` blocks of the system prompt, in order;
  ``Parameters`` (a Python-literal dict) becomes ``{"type": "object", "properties": ...}`` with
  API-Bank's type names kept as given (``str``, ``int``, ``list(str)``...). Then, as in the released
  dataset, the ``**Think`` meta tool that the release's prompt parser took from the prompt's
  "1. **Think:** …" step (description from that line, no parameters). Table 3's 3.1 average tools
  per API-Bank sample is only reached with it; it is named in ``source.extra["meta_tools"]`` so that
  a user who wants the bare tool list can drop it.
- golden_answers: the ToolRL answer (a list on level 1, a single dict on level 2). Skipped items:
  ``no gold call``, ``unparseable gold call``, ``gold tool not in tools``, and
  ``gold call disagrees with API-Bank dialogue`` (5 level-1 BookHotel items whose ToolRL answer has
  mangled arguments, e.g. ``"adult_count": "2', child_count="``: no API turn of the source dialogue
  has those arguments).
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path
from typing import Any

from robustcall.core import EvalConfig, GoldenAnswer, Message, Sample, SourceInfo, ToolSpec, open_jsonl
from robustcall.sources._common import (
    Skips,
    combined_sha256,
    hash_files,
    load_json,
    rel_key,
    require_data_dir,
    require_files,
)
from robustcall.sources._types import LoadResult, MissingDataError, SourceFormatError

BENCHMARK = "apibank"
APIBANK_THINK_TOOL = "**Think"
"""Name of the meta tool the released RobustBench-TC API-Bank samples carry (see module doc)."""

TOOLRL_DIR = "toolrl/benchmarks/API-Bank"
RAW_DIRS = {1: "apibank/lv1-lv2-samples/level-1-given-desc", 2: "apibank/lv1-lv2-samples/level-2-toolsearcher"}
LAYOUT = f"{TOOLRL_DIR}/level-{{1,2}}-api_processed.json and apibank/lv1-lv2-samples/"

_TOOL_BLOCK = re.compile(r"^\d+\. Name: (?P<name>.*)\nDescription: (?P<desc>.*)\nParameters: (?P<params>.*)$", re.M)
_THINK_STEP = re.compile(r"^1\. \*\*Think:\*\* (?P<desc>.*)$", re.M)


def load_apibank(data_dir: Path | None) -> LoadResult:
    root = require_data_dir("apibank", data_dir, LAYOUT)
    files = require_files("apibank", root, [f"{TOOLRL_DIR}/level-{lv}-api_processed.json" for lv in (1, 2)])
    skips = Skips("apibank")
    samples: list[Sample] = []
    raw_read: dict[str, str] = {}
    dialogues: dict[Path, list[dict[str, Any]]] = {}
    for level, path in zip((1, 2), files, strict=True):
        items = load_json(path)
        if not isinstance(items, list):
            raise SourceFormatError(f"{path}: expected a JSON list of {{system, user, answer, other}}")
        for index, item in enumerate(items):
            where = f"{path} item {index}"
            sample_id = f"{BENCHMARK}__level{level}_{index}"
            try:
                raw_path = root / RAW_DIRS[level] / str(item["other"]["file"])
                tools, meta = _tools(str(item["system"]))
                user = str(item["user"])
            except (KeyError, TypeError, ValueError, SyntaxError) as exc:
                raise SourceFormatError(f"{where}: not a ToolRL API-Bank item ({exc!r})") from None
            golden = _golden(item.get("answer"))
            if golden is None:
                skips.add("unparseable gold call", sample_id)
                continue
            if not golden:
                skips.add("no gold call", sample_id)
                continue
            names = {t.name for t in tools}
            if any(g.name not in names for g in golden):
                skips.add("gold tool not in tools", sample_id)
                continue
            if raw_path not in dialogues:
                if not raw_path.is_file():
                    raise MissingDataError(f"{where}: its API-Bank dialogue {raw_path} is missing")
                dialogues[raw_path] = _read_dialogue(raw_path)
                raw_read.update(hash_files([raw_path], root))
            if not _in_dialogue(golden, dialogues[raw_path]):
                skips.add("gold call disagrees with API-Bank dialogue", sample_id)
                continue
            samples.append(
                Sample(
                    id=sample_id,
                    benchmark=BENCHMARK,
                    category=f"level-{level}",
                    source=SourceInfo(
                        original_id=str(index),
                        benchmark=BENCHMARK,
                        file=path.name,
                        extra={
                            "golden_mode": "all",
                            "level": level,
                            "dialogue": rel_key(raw_path, root),
                            "toolrl_other_id": item["other"].get("id"),
                            "meta_tools": meta,
                        },
                    ),
                    conversation=[Message(role="user", content=user)],
                    tools=tools,
                    golden_answers=golden,
                    eval_config=EvalConfig(method="apibank", output_format="tool_call"),
                )
            )
    versions = hash_files(files, root)
    for raw_dir in RAW_DIRS.values():
        entries = {k: v for k, v in raw_read.items() if k.startswith(raw_dir + "/")}
        if entries:
            versions[f"{raw_dir}/ ({len(entries)} dialogues)"] = combined_sha256(entries)
    return LoadResult(source="apibank", samples=samples, skipped=skips.as_dict(), versions=versions)


def _tools(system: str) -> tuple[list[ToolSpec], list[str]]:
    """Tools listed in a ToolRL system prompt, then the ``**Think`` meta tool when the prompt has it."""
    start = system.index("**Available Tools**")
    end = system.find("**Steps for Each Turn**", start)
    section = system[start : end if end >= 0 else len(system)]
    tools: list[ToolSpec] = []
    for m in _TOOL_BLOCK.finditer(section):
        props = ast.literal_eval(m.group("params"))
        if not isinstance(props, dict):
            raise ValueError(f"parameters of {m.group('name')} are not a dict")
        tools.append(
            ToolSpec(
                name=m.group("name").strip(),
                description=m.group("desc").strip(),
                parameters={"type": "object", "properties": props},
            )
        )
    if len(tools) != section.count("Name: "):
        raise ValueError("a tool block in the system prompt does not read as Name / Description / Parameters")
    meta: list[str] = []
    think = _THINK_STEP.search(system, end if end >= 0 else 0)
    if think is not None:
        tools.append(ToolSpec(name=APIBANK_THINK_TOOL, description=think.group("desc").strip()))
        meta.append(APIBANK_THINK_TOOL)
    return tools, meta


def _golden(answer: Any) -> list[GoldenAnswer] | None:
    """ToolRL's answer (list, dict, or their text) as golden calls; ``None`` when it cannot be read."""
    if isinstance(answer, str):
        try:
            answer = json.loads(answer)
        except json.JSONDecodeError:
            try:
                answer = ast.literal_eval(answer)
            except (ValueError, SyntaxError):
                return None
    if isinstance(answer, dict):
        answer = [answer]
    if not isinstance(answer, list):
        return None
    out: list[GoldenAnswer] = []
    for call in answer:
        if not isinstance(call, dict) or not isinstance(call.get("name"), str):
            return None
        params = call.get("parameters", {})
        if not isinstance(params, dict):
            return None
        out.append(GoldenAnswer(name=call["name"], parameters=params))
    return out


def _in_dialogue(golden: list[GoldenAnswer], turns: list[dict[str, Any]]) -> bool:
    """Whether every golden call is one the API-Bank dialogue made (same API, same arguments)."""
    made = [(t.get("api_name"), t.get("param_dict")) for t in turns if t.get("role") == "API"]
    return all((g.name, g.parameters) in made for g in golden)


def _read_dialogue(path: Path) -> list[dict[str, Any]]:
    turns: list[dict[str, Any]] = []
    with open_jsonl(path) as fh:
        for lineno, line in enumerate(fh, start=1):
            if line.strip():
                try:
                    turns.append(json.loads(line))
                except json.JSONDecodeError as exc:
                    raise SourceFormatError(f"{path}:{lineno}: invalid JSON ({exc.msg})") from None
    return turns
