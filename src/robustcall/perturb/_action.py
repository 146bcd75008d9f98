"""Action perturbations: same-name distractors (Dup-*) and redundant sibling tools (RedunTool).

Placement follows Appendix C: the Dup-NoDesc / Dup-Desc / Dup-DescWP / Dup-SwapDP distractor sits
right after the GT tool; the Dup-WrongP distractor at a seeded position elsewhere; RedunTool
siblings are appended. A multi-call sample gets one distractor per golden call (the release's
multi-call records carry 2-4 that share the golden tools' names). "Wrong params" are another
tool's parameters with no name in common with the GT's, else a generic ``query``/``limit`` pair.
A sample where no call is due (BFCL irrelevance) gets the same edits around a listed tool drawn
with the seed, and its right answer stays no call; ToolEyes gets RedunTool only.
"""

from __future__ import annotations

from typing import Any

from robustcall.core import Sample, ToolSpec
from robustcall.perturb._target import NO_SINGLE_GT, NO_TOOL, anchor_tool, gt_tool, no_call_tool
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


def _golden_tools(sample: Sample, ctx: PerturbContext) -> list[ToolSpec]:
    """The tool of every golden call, in golden order (a tool called twice counts twice), the first
    call only where the golden answers are alternatives (RoTBench's ``any``); calls to unlisted
    tools are skipped. Where no call is due, the one :func:`no_call_tool`; empty for ToolEyes
    (no single GT tool, §4)."""
    if gt_tool(sample) is None:
        stand_in = no_call_tool(sample, ctx.rng)
        return [stand_in] if stand_in is not None else []
    golden = sample.golden_answers
    if sample.source.extra.get("golden_mode") == "any":
        golden = golden[:1]
    out: list[ToolSpec] = []
    for g in golden:
        tool = sample.tool(g.name)
        if tool is not None:
            out.append(tool)
    return out


def _insert(sample: Sample, ctx: PerturbContext, decoys: list[ToolSpec], *, after_gt: bool) -> Sample | None:
    """Insert one decoy per golden call (``decoys[k]`` shares the name of the k-th golden tool):
    right after its GT tool, or (Dup-WrongP) at a seeded position anywhere but there. One decoy is
    recorded as ``{"distractor": name, "position": i}``, several (multi-call samples, as the
    release's records carry 2-4) as lists of names and final positions."""
    tools = list(sample.tools)
    for decoy in decoys:
        gt = next(i for i, t in enumerate(tools) if t.name == decoy.name and not _is_decoy(t, decoys))
        if after_gt:
            pos = gt + 1
            while pos < len(tools) and _is_decoy(tools[pos], decoys):  # after the decoys placed there
                pos += 1
        else:
            choices = [p for p in range(len(tools) + 1) if p != gt + 1] or [gt + 1]
            pos = ctx.rng.choice(choices)
        tools.insert(pos, decoy)
    positions = [i for i, t in enumerate(tools) if _is_decoy(t, decoys)]
    if len(decoys) == 1:
        meta: dict[str, Any] = {"distractor": decoys[0].name, "position": positions[0]}
    else:
        meta = {"distractor": [tools[i].name for i in positions], "position": positions}
    return variant_of(sample, ctx.code, {"tools": tools}, meta)


def _is_decoy(tool: ToolSpec, decoys: list[ToolSpec]) -> bool:
    return any(tool is d for d in decoys)  # identity: a decoy may equal its GT field for field


def _same_name(sample: Sample, ctx: PerturbContext, *, desc: str, params: str) -> Sample | None:
    golds = _golden_tools(sample, ctx)
    if not golds:
        return ctx.skip(NO_SINGLE_GT if sample.golden_answers else NO_TOOL)
    decoys: list[ToolSpec] = []
    for gt in golds:
        other = _other_tool(sample, gt)
        description = {
            "none": "",
            "correct": gt.description,
            "other": other.description if other else "Performs a general-purpose lookup.",
        }[desc]
        parameters = _no_params(gt) if params == "none" else _wrong_params(sample, gt)
        decoys.append(ToolSpec(name=gt.name, description=description, parameters=parameters))
    return _insert(sample, ctx, decoys, after_gt=ctx.code != "same_name_C")


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
    """RedunTool: functionally similar but incorrect siblings of the GT tool (and of one other tool);
    every sample gets it (Tables 7-14: 199), ToolEyes' and no-call samples around :func:`anchor_tool`."""
    gt = anchor_tool(sample, ctx.rng)
    if gt is None:
        return ctx.skip(NO_TOOL)
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
        return ctx.skip("every sibling name the rewriter gave is taken")
    return variant_of(sample, ctx.code, {"tools": [*sample.tools, *added]}, {"added_tools": [t.name for t in added]})
