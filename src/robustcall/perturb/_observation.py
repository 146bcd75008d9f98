"""Observation perturbations: Typo, QueryPara, ToolPara, ParamPara (Table 1; Appendix F prompts).

Every rewrite passes the golden-value guard: numbers, dates, proper nouns and every golden
argument value present in the clean text must survive verbatim, else the rewrite is asked again,
then replaced by the offline span-safe rewrite (counted in the manifest).
"""

from __future__ import annotations

import re
from typing import Any

from robustcall.core import Sample, ToolSpec
from robustcall.perturb._offline import OfflineRewriter
from robustcall.perturb._paraphrase import frame_query
from robustcall.perturb._protect import golden_strings, protect
from robustcall.perturb._rewriter import guarded
from robustcall.perturb._target import with_last_user
from robustcall.perturb._types import PerturbContext, register, variant_of

_OFFLINE = OfflineRewriter()


def _rewrite_query(sample: Sample, ctx: PerturbContext, typo: bool) -> Sample | None:
    i = sample.last_user_index()
    query = sample.conversation[i].content
    prot = protect(query, golden_strings(sample))
    if typo:
        new = guarded(
            ctx,
            query,
            prot,
            lambda a: ctx.rewriter.typos(query, prot, ctx.rng, a),
            lambda: _OFFLINE.typos(query, prot, ctx.rng, 0),
        )
    else:
        new = guarded(
            ctx,
            query,
            prot,
            lambda a: ctx.rewriter.paraphrase_query(query, prot, ctx.rng, a),
            lambda: _OFFLINE.paraphrase_query(query, prot, ctx.rng, 0),
        )
    if new == query and not typo:  # a rewrite the guard refused (it cut into a quote): frame the words instead
        framed = frame_query(query, ctx.rng)
        new = framed if not prot.lost(framed) else query
    if new == query:
        words = list(re.finditer(r"\w+", query))
        if words and all(prot.covers(m.start(), m.end()) for m in words):
            return ctx.skip("every word of the query is protected (golden values, numbers, names)")
        return ctx.skip("no rewrite changed the query")
    return variant_of(sample, ctx.code, {"conversation": with_last_user(sample, new)}, {"turn": i})


@register("realistic_typos")
def realistic_typos(sample: Sample, ctx: PerturbContext) -> Sample | None:
    """2-4 realistic keyboard typos in the last user turn."""
    return _rewrite_query(sample, ctx, typo=True)


@register("query_paraphrase")
def query_paraphrase(sample: Sample, ctx: PerturbContext) -> Sample | None:
    """The last user turn reworded with the same meaning."""
    return _rewrite_query(sample, ctx, typo=False)


def _tool_description(ctx: PerturbContext, tool: ToolSpec, keep: list[str]) -> str:
    desc = tool.description
    prot = protect(desc, keep)
    return guarded(
        ctx,
        desc,
        prot,
        lambda a: ctx.rewriter.paraphrase_tool_description(tool.name, desc, prot, ctx.rng, a),
        lambda: _OFFLINE.paraphrase_tool_description(tool.name, desc, prot, ctx.rng, 0),
    )


def _param_description(ctx: PerturbContext, name: str, ptype: str, desc: str, keep: list[str]) -> str:
    prot = protect(desc, keep)
    return guarded(
        ctx,
        desc,
        prot,
        lambda a: ctx.rewriter.paraphrase_parameter_description(name, ptype, desc, prot, ctx.rng, a),
        lambda: _OFFLINE.paraphrase_parameter_description(name, ptype, desc, prot, ctx.rng, 0),
    )


@register("paraphrase_tool_description")
def paraphrase_tool_description(sample: Sample, ctx: PerturbContext) -> Sample | None:
    """Every tool description reworded (names and parameters unchanged)."""
    keep = golden_strings(sample)
    tools: list[ToolSpec] = []
    changed: list[str] = []
    for tool in sample.tools:
        desc = tool.description
        if not desc.strip():
            tools.append(tool)
            continue
        new = _tool_description(ctx, tool, keep)
        if new != desc:
            changed.append(tool.name)
        tools.append(tool.model_copy(update={"description": new}))
    if not changed:
        described = any(t.description.strip() for t in sample.tools)
        return ctx.skip("no rewrite changed a tool description" if described else "no tool has a description")
    return variant_of(sample, ctx.code, {"tools": tools}, {"changed_tools": changed})


@register("paraphrase_parameter_description")
def paraphrase_parameter_description(sample: Sample, ctx: PerturbContext) -> Sample | None:
    """Every top-level parameter description reworded (names, types and values unchanged)."""
    keep = golden_strings(sample)
    tools: list[ToolSpec] = []
    changed: list[str] = []
    for tool in sample.tools:
        props = tool.properties()
        new_props: dict[str, Any] = {}
        for pname, schema in props.items():
            desc = schema.get("description") if isinstance(schema, dict) else None
            if not isinstance(desc, str) or not desc.strip():
                new_props[pname] = schema
                continue
            new = _param_description(ctx, pname, str(schema.get("type", "")), desc, keep)
            if new != desc:
                changed.append(f"{tool.name}.{pname}")
            new_props[pname] = {**schema, "description": new}
        params = {**tool.parameters, "properties": new_props} if props else tool.parameters
        tools.append(tool.model_copy(update={"parameters": params}))
    if not changed:
        described = any(
            isinstance(p, dict) and str(p.get("description") or "").strip()
            for t in sample.tools
            for p in t.properties().values()
        )
        return ctx.skip("no rewrite changed a parameter description" if described else "no parameter has a description")
    return variant_of(sample, ctx.code, {"tools": tools}, {"changed_parameters": changed})
