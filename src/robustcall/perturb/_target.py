"""Finding the tool a perturbation is built around: the tool the golden answer calls, or, where no
call is due (BFCL irrelevance) or any tool of a library is right (ToolEyes), a stand-in."""

from __future__ import annotations

import random

from robustcall.core import Sample, ToolSpec

NO_SINGLE_GT = "no single ground-truth tool (any tool of the library is right, §4)"
NO_TOOL = "the sample lists no tool"


def gt_tool(sample: Sample) -> tuple[int, ToolSpec] | None:
    """Index and spec of the first golden call's tool; ``None`` when there is no single GT tool
    (no golden call, ToolEyes' any-tool-of-a-library golden answers, or the tool is not listed)."""
    if not sample.golden_answers or sample.source.extra.get("golden_mode") == "any_name":
        return None
    name = sample.golden_answers[0].name
    for i, tool in enumerate(sample.tools):
        if tool.name == name:
            return i, tool
    return None


def no_call_tool(sample: Sample, rng: random.Random) -> ToolSpec | None:
    """For a sample whose right answer is no call (BFCL irrelevance: ``golden_answers == []``), a
    listed tool drawn with ``rng``: the Dup / Reward / RedunTool edits are built around it and the
    right answer stays no call (Table 3 gives these types to every sample but ToolEyes'). ``None``
    for any other sample, or when no tool is listed."""
    if sample.golden_answers or not sample.tools:
        return None
    return rng.choice(sample.tools)


def anchor_tool(sample: Sample, rng: random.Random) -> ToolSpec | None:
    """The tool RedunTool adds siblings to: the GT tool; for ToolEyes (any tool of the query's
    library is right) a listed tool of that library drawn with ``rng``; for a no-call sample
    :func:`no_call_tool`. ``None`` when the sample lists no tool."""
    found = gt_tool(sample)
    if found is not None:
        return found[1]
    if sample.source.extra.get("golden_mode") == "any_name":
        names = {g.name for g in sample.golden_answers}
        listed = [t for t in sample.tools if t.name in names]
        return rng.choice(listed) if listed else None
    return no_call_tool(sample, rng)


def last_user_text(sample: Sample) -> tuple[int, str]:
    i = sample.last_user_index()
    return i, sample.conversation[i].content


def with_last_user(sample: Sample, text: str) -> list[object]:
    i = sample.last_user_index()
    conv = list(sample.conversation)
    conv[i] = conv[i].model_copy(update={"content": text})
    return list(conv)
