"""What the agent is shown of an MCP server's tools: RobustBench-TC's static perturbations applied to
the upstream's ``tools/list``, and where each shown tool's calls go.

The upstream tools become ``ToolSpec``s of a pseudo-``Sample`` whose golden answer calls the *target*
tool (the tool a task needs; the proxy, knowing no task, takes every tool in turn), and each type runs
through ``perturb``'s registry unchanged: the same distractors, paraphrases and cost / time metadata as
``robustcall build`` writes. Every shown tool then *routes* to an upstream tool, or to nothing: a
distractor (Dup-*, RedunTool siblings, the Reward types' wrong tool) is never called upstream.

A call names a shown tool; where several share the name (Dup-*), the arguments choose: the real tool
when they fit its schema (every required parameter given, none unknown), else the distractor.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from robustcall.core import EvalConfig, GoldenAnswer, Message, Sample, SourceInfo, ToolCall, ToolSpec, seeded_rng
from robustcall.perturb import REGISTRY, GuardStats, OfflineRewriter, PerturbContext, Rewriter

DISTRACTOR_ERROR = "Error: {name} is not available on this server; no such operation was performed."
"""What a call to a distractor gets back (the paper scores such a call as a wrong call; over MCP the
episode goes on, the upstream is not called, and the call is logged as a distractor call)."""


@dataclass(frozen=True)
class Shown:
    """One tool as listed to the agent, and the upstream tool it runs (``None``: a distractor)."""

    spec: ToolSpec
    upstream: str | None


@dataclass
class ToolView:
    """The perturbed tool list and its routes; ``applied`` records each type's edit for the log."""

    tools: list[Shown]
    instruction: str = ""
    applied: list[dict[str, Any]] = field(default_factory=list)

    def specs(self) -> list[ToolSpec]:
        return [s.spec for s in self.tools]

    def route(self, call: ToolCall) -> Shown | None:
        """The shown tool a call reaches (``None``: no tool of that name is listed)."""
        named = [s for s in self.tools if s.spec.name == call.name]
        if len(named) <= 1:
            return named[0] if named else None
        fitting = [s for s in named if fits(s.spec, call.arguments)]
        real = [s for s in fitting if s.upstream is not None]
        return (real or fitting or [s for s in named if s.upstream is not None] or named)[0]

    def shown_name(self, upstream: str) -> str:
        """The name the agent is shown for an upstream tool (CD_AB / TD_AB abbreviate it)."""
        return next((s.spec.name for s in self.tools if s.upstream == upstream), upstream)

    def distractors(self) -> list[str]:
        return [s.spec.name for s in self.tools if s.upstream is None]


def fits(spec: ToolSpec, arguments: dict[str, Any]) -> bool:
    """Every required parameter given and no unknown one."""
    props = spec.properties()
    return set(spec.required()) <= set(arguments) and set(arguments) <= set(props)


def clean_view(tools: Sequence[ToolSpec], instruction: str = "") -> ToolView:
    return ToolView([Shown(t, t.name) for t in tools], instruction)


def _pseudo_sample(view: ToolView, target: str) -> Sample:
    return Sample(
        id=f"mcp/{target}",
        benchmark="mcp",
        category="mcp",
        source=SourceInfo(original_id=target, benchmark="mcp"),
        conversation=[Message(role="user", content=view.instruction or f"Use {target}.")],
        tools=view.specs(),
        golden_answers=[GoldenAnswer(name=target)],
        eval_config=EvalConfig(method="exact"),
    )


def _routes(before: ToolView, after: Sample, meta: dict[str, Any]) -> list[Shown]:
    """Route each tool of the perturbed pseudo-sample. Dup-* name their decoys by position, RedunTool
    by ``added_tools``, the Reward types by ``distractor`` (a new name, or, for ``_AB``, the full
    original name, while the golden tool is listed under its abbreviation)."""
    by_name: dict[str, Shown] = {}
    for s in before.tools:
        by_name.setdefault(s.spec.name, s)
    positions = meta.get("position")
    decoy_at = set([positions] if isinstance(positions, int) else positions or [])
    added = set(meta.get("added_tools", []))
    wrong = meta.get("distractor") if positions is None and isinstance(meta.get("distractor"), str) else None
    unused = list(before.tools)
    out: list[Shown] = []
    for i, spec in enumerate(after.tools):
        if i in decoy_at or spec.name in added or spec.name == wrong:
            out.append(Shown(spec, None))
            continue
        # an earlier type's distractor is listed again unchanged: the same spec finds it; an edited
        # spec (a paraphrase, cost metadata) finds the real tool of its name
        same = next((s for s in unused if s.spec == spec), None)
        if same is None:
            same = next((s for s in unused if s.spec.name == spec.name and s.upstream is not None), None)
        if same is not None:
            unused.remove(same)
            out.append(Shown(spec, same.upstream))
        elif wrong is not None and wrong in by_name and spec.name == meta.get("golden_tool"):
            out.append(Shown(spec, by_name[wrong].upstream))
        else:
            raise ValueError(f"cannot route perturbed tool {spec.name!r}")
    return out


def perturb_view(
    view: ToolView,
    code: str,
    target: str,
    *,
    seed: int = 0,
    rewriter: Rewriter | None = None,
) -> ToolView:
    """``view`` with perturbation ``code`` applied around the shown tool ``target``; unchanged (and
    the reason recorded) where the type does not apply."""
    if code not in REGISTRY or not REGISTRY[code].static:
        raise KeyError(code)
    ctx = PerturbContext(seeded_rng(seed, "mcp", target, code), rewriter or OfflineRewriter(), GuardStats(), code)
    after = REGISTRY[code].apply(_pseudo_sample(view, target), ctx)
    if after is None:
        return ToolView(view.tools, view.instruction, [*view.applied, {"type": code, "target": target,
                                                                       "skipped": ctx.skipped_because}])  # fmt: skip
    meta = dict(after.perturbation.metadata)
    instruction = after.conversation[after.last_user_index()].content if view.instruction else ""
    return ToolView(_routes(view, after, meta), instruction, [*view.applied, {"type": code, "target": target, **meta}])


def perturbed(
    tools: Sequence[ToolSpec],
    codes: Sequence[str],
    *,
    targets: Sequence[str] | None = None,
    instruction: str = "",
    seed: int = 0,
    rewriter: Rewriter | None = None,
) -> ToolView:
    """The upstream ``tools`` with every type in ``codes`` applied in turn, each around every tool of
    ``targets`` (default: every upstream tool, in listed order)."""
    view = clean_view(tools, instruction)
    aims = list(targets) if targets is not None else [t.name for t in tools]
    for code in codes:
        for target in aims:
            view = perturb_view(view, code, view.shown_name(target), seed=seed, rewriter=rewriter)
    return view


TOOL_TYPES: tuple[str, ...] = (
    "paraphrase_tool_description",
    "paraphrase_parameter_description",
    "same_name_A",
    "same_name_B",
    "same_name_C",
    "same_name_D",
    "same_name_E",
    "redundant",
    "CD",
    "TD",
    "CD_NT",
    "TD_NT",
    "CD_AB",
    "TD_AB",
)
"""The static types that edit the tool list (what ``--perturb tools`` names)."""

QUERY_TYPES: tuple[str, ...] = ("realistic_typos", "query_paraphrase", "ghost_tool")
"""Types that edit a task's instruction (``mcp run`` only: the proxy alone sees no instruction)."""

INJECTION_TYPE = "prompt_injection"
"""Appendix N's injection: over MCP, an instruction hidden in the first real tool result (the proxy)."""

MCP_TYPES: tuple[str, ...] = (*TOOL_TYPES, *QUERY_TYPES, INJECTION_TYPE)


def parse_perturb(spec: str) -> list[str]:
    """A comma list of type codes (or ``tools`` for every ``TOOL_TYPES``); ``KeyError`` names the valid ones."""
    out: list[str] = []
    for part in (p.strip() for p in spec.split(",") if p.strip()):
        if part == "tools":
            out.extend(TOOL_TYPES)
        elif part in MCP_TYPES:
            out.append(part)
        else:
            raise KeyError(f"unknown perturbation type {part!r} over MCP; valid: tools, {', '.join(MCP_TYPES)}")
    return out
