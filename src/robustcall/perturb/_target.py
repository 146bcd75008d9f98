"""Finding the tool a sample's golden answer calls (Action / Reward types need exactly one)."""

from __future__ import annotations

from robustcall.core import Sample, ToolSpec


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


def last_user_text(sample: Sample) -> tuple[int, str]:
    i = sample.last_user_index()
    return i, sample.conversation[i].content


def with_last_user(sample: Sample, text: str) -> list[object]:
    i = sample.last_user_index()
    conv = list(sample.conversation)
    conv[i] = conv[i].model_copy(update={"content": text})
    return list(conv)
