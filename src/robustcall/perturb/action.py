"""Action perturbations: same-name distractors (Dup-*) and redundant sibling tools (RedunTool).

Placement follows Appendix C: the Dup-NoDesc / Dup-Desc / Dup-DescWP / Dup-SwapDP distractor sits
right after the GT tool; the Dup-WrongP distractor at a seeded position elsewhere; RedunTool
siblings are appended. "Wrong params" are another tool's parameters with no name in common with
the GT's, else a generic ``query``/``limit`` pair.
"""

from __future__ import annotations

from typing import Any

from robustcall.core import Sample, ToolSpec
from robustcall.perturb._target import gt_tool
from robustcall.perturb._types import PerturbContext, register, variant_of

_GENERIC_WRONG: dict[str, Any] = {
    "query": {"type": "string", "description": "Free-text search query."},
    "limit": {"type": "integer", "description": "Maximum number of results to return."},
}


def _schema_type(gt: ToolSpec) -> str:
    return str(gt.parameters.get("type", "object"))


def _no_params(gt: ToolSpec) -> dict[str, Any]:
    return {"type": _schema_type(gt), "properties": {}, "required": []}


def _other_tool(sample: Sample, gt: ToolSpec) -> ToolSpec | None:
    return next((t for t in sample.tools if t.name != gt.name), None)


def _wrong_params(sample: Sample, gt: ToolSpec) -> dict[str, Any]:
    gt_names = set(gt.properties())
    for tool in sample.tools:
        props = tool.properties()
        if tool.name != gt.name and props and not gt_names & set(props):
            return {"type": _schema_type(gt), "properties": props, "required": tool.required()}
    return {"type": _schema_type(gt), "properties": dict(_GENERIC_WRONG), "required": ["query"]}


def _insert(sample: Sample, ctx: PerturbContext, distractor: ToolSpec, *, after_gt: bool) -> Sample | None:
    found = gt_tool(sample)
    if found is None:
        return None
    idx, _ = found
    tools = list(sample.tools)
    if after_gt:
        pos = idx + 1
    else:
        choices = [p for p in range(len(tools) + 1) if p != idx + 1] or [idx + 1]
        pos = ctx.rng.choice(choices)
    tools.insert(pos, distractor)
    return variant_of(sample, ctx.code, {"tools": tools}, {"distractor": distractor.name, "position": pos})


def _same_name(sample: Sample, ctx: PerturbContext, *, desc: str, params: str) -> Sample | None:
    found = gt_tool(sample)
    if found is None:
        return None
    _, gt = found
    other = _other_tool(sample, gt)
    description = {
        "none": "",
        "correct": gt.description,
        "other": other.description if other else "Performs a general-purpose lookup.",
    }[desc]
    parameters = _no_params(gt) if params == "none" else _wrong_params(sample, gt)
    distractor = ToolSpec(name=gt.name, description=description, parameters=parameters)
    return _insert(sample, ctx, distractor, after_gt=ctx.code != "same_name_C")


@register("same_name_A")
def same_name_a(sample: Sample, ctx: PerturbContext) -> Sample | None:
    """Dup-NoDesc: a distractor with the GT name, no description, no parameters."""
    return _same_name(sample, ctx, desc="none", params="none")


@register("same_name_B")
def same_name_b(sample: Sample, ctx: PerturbContext) -> Sample | None:
    """Dup-Desc: the GT name and correct description, no parameters."""
    return _same_name(sample, ctx, desc="correct", params="none")


@register("same_name_C")
def same_name_c(sample: Sample, ctx: PerturbContext) -> Sample | None:
    """Dup-WrongP: the GT name, no description, wrong parameters."""
    return _same_name(sample, ctx, desc="none", params="wrong")


@register("same_name_D")
def same_name_d(sample: Sample, ctx: PerturbContext) -> Sample | None:
    """Dup-DescWP: the GT name, correct description, wrong parameters."""
    return _same_name(sample, ctx, desc="correct", params="wrong")


@register("same_name_E")
def same_name_e(sample: Sample, ctx: PerturbContext) -> Sample | None:
    """Dup-SwapDP: the GT name, another tool's description, wrong parameters."""
    return _same_name(sample, ctx, desc="other", params="wrong")


@register("redundant")
def redundant(sample: Sample, ctx: PerturbContext) -> Sample | None:
    """RedunTool: functionally similar but incorrect siblings of the GT tool (and of one other tool)."""
    found = gt_tool(sample)
    if found is None:
        return None
    _, gt = found
    taken = {t.name for t in sample.tools}
    added: list[ToolSpec] = []
    for tool in [t for t in (_other_tool(sample, gt), gt) if t is not None]:
        for attempt in range(ctx.max_tries):
            fresh = [s for s in ctx.rewriter.sibling_tools(tool, 2, ctx.rng, attempt) if s.name not in taken]
            if fresh:
                break
        for s in fresh[:2]:
            taken.add(s.name)
            added.append(s)
    if not added:
        return None
    return variant_of(sample, ctx.code, {"tools": [*sample.tools, *added]}, {"added_tools": [t.name for t in added]})
