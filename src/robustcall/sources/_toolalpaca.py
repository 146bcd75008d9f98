"""ToolAlpaca ``eval_simulated``: 10 simulated APIs, 100 instructions with golden answers.

Read from ``<data_dir>/toolalpaca/eval_simulated.json`` (a list of API records with
``Function_Description``, ``Instructions`` and ``Golden_Answers``, one list of steps per instruction).

Representation:

- id ``toolalpaca__<API Name>__inst<k>``, ``k`` the 0-based instruction index; the API name is kept
  verbatim (``toolalpaca__Abstract Public Holidays__inst3``). category: the API's ``Category``
  (one per API in this file).
- conversation: the instruction as one user turn. tools: every function of the API, from
  ``Function_Description`` (``<description>\\nParameters: {json}\\nOutput: …``): the description
  line, and parameters as a JSON schema built from ToolAlpaca's ``"[Required. ]<type>. [One of:
  [a, b]. ]<description>"`` strings (``Array[x]`` -> array, ``Object`` -> object; ``Required.`` ->
  ``required``; ``One of`` -> ``enum``).
- golden_answers: the steps in order (``golden_mode = "sequence"``), one ``GoldenAnswer`` each, with
  ``Action_Input`` as parameters. ToolAlpaca writes ``""`` for an argument the instruction leaves
  open; such arguments are left out of ``parameters`` and kept as ``[""]`` (may be omitted) in
  ``acceptable``, which then lists every argument (``[value]``), in core's BFCL-style form.
- skipped: ``gold action not in tools`` (steps calling ``getDetails``, ToolAlpaca's stand-in for
  asking the user, or ``[Optional]updateUserProfile``) and ``unparseable action input`` (inputs
  that refer to earlier results, e.g. ``{"animeId": ${animeId from searchAnime}}``); the first
  failing step decides the reason.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from robustcall.core import EvalConfig, GoldenAnswer, Message, Sample, SourceInfo, ToolSpec
from robustcall.sources._common import Skips, hash_files, load_json, require_data_dir, require_files
from robustcall.sources._react import parse_action_input
from robustcall.sources._types import LoadResult, SourceFormatError

BENCHMARK = "toolalpaca"
FILE = "toolalpaca/eval_simulated.json"

_FUNCTION = re.compile(r"^(?P<desc>.*?)\nParameters: (?P<params>.*?)\nOutput: ", re.S)
_PARAM = re.compile(
    r"^(?P<required>Required\.\s+)?(?P<type>Array\[.*?\]|Object\{.*?\}|\w+)\.?\s*"
    r"(?:One of: \[(?P<enum>.*?)\]\.\s*)?(?P<desc>.*)$",
    re.S,
)
_SIMPLE_TYPES = {"string": "string", "integer": "integer", "number": "number", "boolean": "boolean"}


def load_toolalpaca(data_dir: Path | None) -> LoadResult:
    root = require_data_dir("toolalpaca", data_dir, FILE)
    (path,) = require_files("toolalpaca", root, [FILE])
    apis = load_json(path)
    if not isinstance(apis, list):
        raise SourceFormatError(f"{path}: expected a JSON list of API records")
    skips = Skips("toolalpaca")
    samples: list[Sample] = []
    for api in apis:
        try:
            name = str(api["Name"])
            tools = _tools(api["Function_Description"])
            pairs = list(zip(api["Instructions"], api["Golden_Answers"], strict=True))
        except (KeyError, TypeError, ValueError) as exc:
            raise SourceFormatError(f"{path}: API record {api.get('Name')!r} not understood ({exc!r})") from None
        names = {t.name for t in tools}
        for k, (instruction, steps) in enumerate(pairs):
            sample_id = f"{BENCHMARK}__{name}__inst{k}"
            golden, reason = _golden(steps, names)
            if reason is not None:
                skips.add(reason, sample_id)
                continue
            samples.append(
                Sample(
                    id=sample_id,
                    benchmark=BENCHMARK,
                    category=str(api.get("Category") or name),
                    source=SourceInfo(
                        original_id=f"{name}#{k}",
                        benchmark=BENCHMARK,
                        file="eval_simulated.json",
                        extra={"golden_mode": "sequence", "api": name, "instruction_index": k},
                    ),
                    conversation=[Message(role="user", content=str(instruction))],
                    tools=[t.model_copy(deep=True) for t in tools],
                    golden_answers=golden,
                    eval_config=EvalConfig(method="toolalpaca", output_format="react"),
                )
            )
    return LoadResult(source="toolalpaca", samples=samples, skipped=skips.as_dict(), versions=hash_files([path], root))


def _tools(descriptions: dict[str, str]) -> list[ToolSpec]:
    tools: list[ToolSpec] = []
    for fn, text in descriptions.items():
        if fn == "components":  # shared output-type definitions, not a function
            continue
        m = _FUNCTION.match(text)
        if m is None:
            raise ValueError(f"function {fn!r}: description does not read as '<text>\\nParameters: …\\nOutput: …'")
        params = parse_action_input(m.group("params"))
        if params is None:
            raise ValueError(f"function {fn!r}: Parameters is not a JSON object")
        properties: dict[str, Any] = {}
        required: list[str] = []
        for pname, spec in params.items():
            prop, is_required = _property(str(spec))
            properties[pname] = prop
            if is_required:
                required.append(pname)
        schema: dict[str, Any] = {"type": "object", "properties": properties}
        if required:
            schema["required"] = required
        tools.append(ToolSpec(name=fn, description=m.group("desc").strip(), parameters=schema))
    return tools


def _property(spec: str) -> tuple[dict[str, Any], bool]:
    """``"Required. string. One of: [a, b]. The x."`` -> (JSON-schema property, required)."""
    m = _PARAM.match(spec.strip())
    if m is None:  # pragma: no cover - the pattern accepts any text starting with a word
        return {"type": "string", "description": spec.strip()}, False
    raw_type = m.group("type")
    prop: dict[str, Any]
    if raw_type.startswith("Array["):
        inner = raw_type[len("Array[") : -1]
        prop = {"type": "array", "items": {"type": _SIMPLE_TYPES.get(inner, "object")}}
    elif raw_type.startswith("Object") or raw_type.lower() == "object":
        prop = {"type": "object"}
    else:
        prop = {"type": _SIMPLE_TYPES.get(raw_type.lower(), raw_type)}
    if m.group("enum") is not None:
        prop["enum"] = [v.strip() for v in m.group("enum").split(",")]
    desc = m.group("desc").strip()
    if desc:
        prop["description"] = desc
    return prop, m.group("required") is not None


def _golden(steps: Any, tool_names: set[str]) -> tuple[list[GoldenAnswer], str | None]:
    if not isinstance(steps, list) or not steps:
        return [], "no gold call"
    golden: list[GoldenAnswer] = []
    for step in steps:
        action = str(step.get("Action", "")) if isinstance(step, dict) else ""
        if action not in tool_names:
            return [], "gold action not in tools"
        args = parse_action_input(str(step.get("Action_Input", "")))
        if args is None:
            return [], "unparseable action input"
        open_args = [k for k, v in args.items() if v == ""]
        golden.append(
            GoldenAnswer(
                name=action,
                parameters={k: v for k, v in args.items() if v != ""},
                acceptable={k: [v] for k, v in args.items()} if open_args else None,
            )
        )
    return golden, None
