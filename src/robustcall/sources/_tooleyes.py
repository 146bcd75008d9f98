"""ToolEyes: 382 queries over seven scenarios, each written for one tool library.

Read from ``<data_dir>/tooleyes/Test_Data/scenario_data_raw.json`` (``{query, path, scenario}``) and
the library each ``path`` names, ``<data_dir>/tooleyes/Tool_Library/<Category>/<Tool>/config_gpt4.json``.

ToolEyes ships no gold calls. ``path`` names the library a query was written for, so its golden
answer is a call to a tool of that library, scored by action name (Appendix I). Representation:

- tools: the library's functions verbatim, as ToolEyes' own prompts show them (they include
  ``ask_to_user`` and ``finish``).
- golden_answers: one ``GoldenAnswer(name=<tool>, parameters={})`` per tool of the library except
  the meta tools ``ask_to_user`` and ``finish``, in library order; ``source.extra["golden_mode"] =
  "any_name"`` says that a call to any of these names is correct and that parameters are not
  compared. ``extra["tool_library"]`` holds the library path. With no single ground-truth tool,
  ToolEyes gets no Action / Reward variants (paper §4, Table 3).
- id ``tooleyes__<index in scenario_data_raw.json>``: ToolEyes' processed files use the query text
  ("Turn 1: …") as id, which repeats (380 distinct in 382). category: the scenario
  (TG, DU, RS, PL, IR, AM, FT).
- skipped: ``no tool in library`` (a library with only the meta tools); none in the shipped data.
"""

from __future__ import annotations

from pathlib import Path

from robustcall.core import EvalConfig, GoldenAnswer, Message, Sample, SourceInfo, ToolSpec
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

BENCHMARK = "tooleyes"
QUERIES = "tooleyes/Test_Data/scenario_data_raw.json"
META_TOOLS = frozenset({"ask_to_user", "finish"})
"""Tools every ToolEyes library carries that no query was written for."""


def load_tooleyes(data_dir: Path | None) -> LoadResult:
    root = require_data_dir("tooleyes", data_dir, f"{QUERIES} and tooleyes/Tool_Library/")
    (path,) = require_files("tooleyes", root, [QUERIES])
    items = load_json(path)
    if not isinstance(items, list):
        raise SourceFormatError(f"{path}: expected a JSON list of {{query, path, scenario}}")
    skips = Skips("tooleyes")
    libraries: dict[str, tuple[list[ToolSpec], Path]] = {}
    samples: list[Sample] = []
    for index, item in enumerate(items):
        sample_id = f"{BENCHMARK}__{index}"
        try:
            query, lib_path, scenario = str(item["query"]), str(item["path"]), str(item["scenario"])
        except (KeyError, TypeError) as exc:
            raise SourceFormatError(f"{path} item {index}: not a ToolEyes query ({exc!r})") from None
        library = lib_path.removeprefix("ToolEyes/").removeprefix("Tool_Library/")
        if library not in libraries:
            libraries[library] = _library(root, library, f"{path} item {index}")
        tools, _ = libraries[library]
        golden = [GoldenAnswer(name=t.name) for t in tools if t.name not in META_TOOLS]
        if not golden:
            skips.add("no tool in library", sample_id)
            continue
        samples.append(
            Sample(
                id=sample_id,
                benchmark=BENCHMARK,
                category=scenario,
                source=SourceInfo(
                    original_id=str(index),
                    benchmark=BENCHMARK,
                    file="scenario_data_raw.json",
                    extra={"golden_mode": "any_name", "tool_library": library, "scenario": scenario},
                ),
                conversation=[Message(role="user", content=query)],
                tools=[t.model_copy(deep=True) for t in tools],
                golden_answers=golden,
                eval_config=EvalConfig(method="tooleyes", output_format="react"),
            )
        )
    versions = hash_files([path], root)
    configs = hash_files([p for _, p in libraries.values()], root)
    versions[f"tooleyes/Tool_Library/ ({len(configs)} configs)"] = combined_sha256(configs)
    return LoadResult(source="tooleyes", samples=samples, skipped=skips.as_dict(), versions=versions)


def _library(root: Path, library: str, where: str) -> tuple[list[ToolSpec], Path]:
    config = root / "tooleyes" / "Tool_Library" / library / "config_gpt4.json"
    if not config.is_file():
        raise MissingDataError(f"{where}: its tool library {rel_key(config, root)} is missing")
    functions = load_json(config)
    if not isinstance(functions, list):
        raise SourceFormatError(f"{config}: expected a JSON list of function schemas")
    return [ToolSpec.model_validate(f) for f in functions], config
