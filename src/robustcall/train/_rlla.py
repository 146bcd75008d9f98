"""ToolRL's rlla data: rows in veRL's parquet layout, read into ``Sample``s and rendered back.

A row is ``{data_source, prompt: [{content, role}] (system, user), ability, reward_model:
{ground_truth, style}, extra_info: {index, input, instruction, output, split}}``; the raw JSON
(``rlla_sft.json``, ``rlla_rl.json``) is a list of ``{instruction, input, output}`` that becomes
such rows (``data_source="rlla"``, ``ability="math"`` and ``style="rule"``, as ToolRL's own parquet).

The ``Sample`` of a row holds what perturbations edit: the tools (the numbered
``N. Name / Description / Parameters`` blocks of the system prompt, parameters a JSON object of
properties), the last user utterance (the text inside the last ``<user> … </user>`` of the
dialogue history, so that edits never touch earlier turns, tool calls or ``<obs>`` feedback) and
the golden calls (the ground truth's ``<tool_call>`` block, read by the ToolRL reward's own rule).
Everything else of the row is kept verbatim: rendering a clean sample back gives the row's text
byte for byte, which ``read_items`` checks for every row.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from robustcall.core import EvalConfig, GoldenAnswer, InputError, Message, Sample, SourceInfo, ToolSpec
from robustcall.rewards import GoldenFormatError, call_block_lines, golden_calls

BENCHMARK = "toolrl"
TOOLS_HEADER = "In your response, you can use the following tools:\n"
TOOLS_END = "\n\n**Steps for Each Turn**"
COLUMNS = ("data_source", "prompt", "ability", "reward_model", "extra_info")
"""veRL's RL parquet columns, as ToolRL writes them."""

_TOOL_BLOCK = re.compile(
    r"^(?P<i>\d+)\. Name: (?P<name>.*)\nDescription: (?P<desc>.*)\nParameters: (?P<params>.*)$", re.M
)


class RllaFormatError(InputError):
    """A file is not ToolRL rlla data (says which file, row and field)."""


@dataclass(frozen=True)
class RllaItem:
    """One row and its ``Sample``, with the verbatim text around what perturbations edit."""

    row: dict[str, Any]
    sample: Sample
    head: str
    """The system prompt up to and including the tools header."""
    tail: str
    """The system prompt after the tool blocks."""
    before: str
    """The user message up to the last utterance."""
    after: str
    """The user message after the last utterance."""


def raw_rows(items: list[dict[str, Any]], split: str) -> list[dict[str, Any]]:
    """Raw ``{instruction, input, output}`` items as rlla rows."""
    rows = []
    for i, item in enumerate(items):
        try:
            ins, inp, outp = str(item["instruction"]), str(item["input"]), str(item["output"])
        except (KeyError, TypeError):
            raise RllaFormatError(f"raw item {i}: expected {{instruction, input, output}}") from None
        rows.append(
            {
                "data_source": "rlla",
                "prompt": [{"content": ins, "role": "system"}, {"content": inp, "role": "user"}],
                "ability": "math",
                "reward_model": {"ground_truth": outp, "style": "rule"},
                "extra_info": {"index": i, "input": inp, "instruction": ins, "output": outp, "split": split},
            }
        )
    return rows


def read_rows(path: Path, split: str | None = None) -> list[dict[str, Any]]:
    """Rows of a rlla parquet file or a raw JSON list (``split``: the raw file's split name,
    default its stem)."""
    if path.suffix == ".parquet":
        import pyarrow.parquet as pq  # type: ignore[import-untyped,unused-ignore]

        rows: list[dict[str, Any]] = pq.read_table(path).to_pylist()
        missing = [c for c in COLUMNS if rows and c not in rows[0]]
        if missing:
            raise RllaFormatError(f"{path}: missing columns {missing}; expected {list(COLUMNS)}")
        return rows
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise RllaFormatError(f"{path}:{exc.lineno}: invalid JSON ({exc.msg})") from None
    if not isinstance(data, list):
        raise RllaFormatError(f"{path}: expected a JSON list of {{instruction, input, output}}")
    try:
        return raw_rows(data, split or path.stem)
    except RllaFormatError as exc:
        raise RllaFormatError(f"{path}: {exc}") from None


def tool_blocks(tools: list[ToolSpec]) -> str:
    """ToolRL's numbered tool blocks (parameters as ``json.dumps`` of the properties)."""
    return "\n".join(
        f"{i}. Name: {t.name}\nDescription: {t.description}\nParameters: {json.dumps(t.properties())}"
        for i, t in enumerate(tools, start=1)
    )


def _split_tools(instruction: str) -> tuple[str, list[ToolSpec], str]:
    a = instruction.find(TOOLS_HEADER)
    b = instruction.find(TOOLS_END, a)
    if a < 0 or b < 0:
        raise ValueError("no tool section (header or '**Steps for Each Turn**' missing)")
    start = a + len(TOOLS_HEADER)
    section = instruction[start:b]
    tools = []
    for m in _TOOL_BLOCK.finditer(section):
        props = json.loads(m.group("params"))
        if not isinstance(props, dict):
            raise ValueError(f"parameters of {m.group('name')!r} are not a JSON object")
        tools.append(
            ToolSpec(
                name=m.group("name"), description=m.group("desc"), parameters={"type": "object", "properties": props}
            )
        )
    if tool_blocks(tools) != section:
        raise ValueError("tool blocks do not read back verbatim as N. Name / Description / Parameters")
    return instruction[:start], tools, instruction[b:]


def _split_user(text: str) -> tuple[str, str, str]:
    end = text.rfind("</user>")
    start = text.rfind("<user>", 0, end) if end >= 0 else -1
    if start < 0:
        return "", text, ""
    inner = text[start + len("<user>") : end]
    lead = inner[: len(inner) - len(inner.lstrip())]
    trail = inner[len(inner.rstrip()) :]
    return text[: start + len("<user>")] + lead, inner.strip(), trail + text[end:]


def parse_row(row: dict[str, Any], where: str) -> RllaItem:
    """The ``RllaItem`` of one row; ``ValueError`` (with ``where``) when it cannot be read back."""
    try:
        info = row["extra_info"]
        system, user = row["prompt"][0]["content"], row["prompt"][1]["content"]
        ground_truth = row["reward_model"]["ground_truth"]
        split, index = str(info["split"]), int(info["index"])
    except (KeyError, IndexError, TypeError) as exc:
        raise ValueError(f"{where}: not a rlla row ({exc!r})") from None
    try:
        head, tools, tail = _split_tools(system)
        golden = [GoldenAnswer(name=c["name"], parameters=c["parameters"]) for c in golden_calls(ground_truth)]
    except GoldenFormatError as exc:
        raise ValueError(f"{where}: golden {exc}") from None
    except (ValueError, json.JSONDecodeError) as exc:
        raise ValueError(f"{where}: system prompt: {exc}") from None
    before, utterance, after = _split_user(user)
    sample = Sample(
        id=f"{BENCHMARK}__{split}_{index}",
        benchmark=BENCHMARK,
        category=split,
        source=SourceInfo(original_id=str(index), benchmark=BENCHMARK, extra={"golden_mode": "all"}),
        conversation=[Message(role="user", content=utterance)],
        tools=tools,
        golden_answers=golden,
        eval_config=EvalConfig(method="exact", output_format="tool_call"),
    )
    return RllaItem(row=row, sample=sample, head=head, tail=tail, before=before, after=after)


def golden_text(ground_truth: str, old: list[GoldenAnswer], new: list[GoldenAnswer]) -> str:
    """``ground_truth`` with the lines of calls that changed rewritten (the rest verbatim)."""
    if old == new:
        return ground_truth
    lines = call_block_lines(ground_truth)
    if lines is None or len(lines) != len(new):
        raise ValueError("golden call block does not line up with the golden answers")
    for i, (o, n) in enumerate(zip(old, new, strict=True)):
        if o != n:
            lines[i] = json.dumps({"name": n.name, "parameters": n.parameters})
    a = ground_truth.index("<tool_call>") + len("<tool_call>")
    b = ground_truth.index("</tool_call>", a)
    block = ground_truth[a:b]
    lead = block[: len(block) - len(block.lstrip())]
    trail = block[len(block.rstrip()) :]
    return ground_truth[:a] + lead + "\n".join(lines) + trail + ground_truth[b:]


def render_row(item: RllaItem, sample: Sample) -> dict[str, Any]:
    """The row of ``sample`` (``item.sample`` or a perturbation of it), columns as the input's;
    ``extra_info.perturbation`` names the type (``clean``)."""
    system = item.head + tool_blocks(sample.tools) + item.tail
    user = item.before + sample.conversation[sample.last_user_index()].content + item.after
    ground_truth = golden_text(
        item.row["reward_model"]["ground_truth"], item.sample.golden_answers, sample.golden_answers
    )
    row = dict(item.row)
    row["prompt"] = [{"content": system, "role": "system"}, {"content": user, "role": "user"}]
    row["reward_model"] = {**item.row["reward_model"], "ground_truth": ground_truth}
    row["extra_info"] = {
        **item.row["extra_info"],
        "input": user,
        "instruction": system,
        "output": ground_truth,
        "perturbation": sample.perturbation.type,
    }
    return row


def read_items(rows: list[dict[str, Any]], where: str) -> tuple[list[RllaItem], dict[str, list[int]]]:
    """Items of the rows that read back verbatim; skipped row indices by reason."""
    items: list[RllaItem] = []
    skipped: dict[str, list[int]] = {}
    for i, row in enumerate(rows):
        try:
            item = parse_row(row, f"{where} row {i}")
        except ValueError as exc:
            reason = str(exc).split(": ", 1)[1].split(" (", 1)[0].split(":", 1)[0]
            skipped.setdefault(reason, []).append(i)
            continue
        clean = render_row(item, item.sample)
        if clean["prompt"] != row["prompt"] or clean["reward_model"] != row["reward_model"]:
            skipped.setdefault("does not render back verbatim", []).append(i)
            continue
        items.append(item)
    return items, skipped
