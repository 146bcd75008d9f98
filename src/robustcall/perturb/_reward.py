"""Reward perturbations: misleading cost / response-time metadata (MisDesc, TimeDesc and variants).

A sibling of the GT tool with the same parameters is added. Descriptions carry cost (CD) or
response-time (TD) annotations that make the GT the right choice; MisDesc / TimeDesc and their
``_NT`` variants append a request for the cheapest / quickest option to the last user turn, while
the ``_AB`` variants leave the user query unchanged (Appendix C's MisDesc-Abbr / TimeDesc-Abbr
examples and Appendix O Case 2 show the clean query). Distractor names:

- ``CD`` / ``TD``: suffix ``_Budget`` / ``_Fast`` (the name suggests the opposite of the metadata);
- ``CD_NT`` / ``TD_NT``: neutral suffix ``_1`` (Appendix C's released examples; Table 1 writes ``_I``);
- ``CD_AB`` / ``TD_AB``: the right tool gets an abbreviated name and becomes the golden answer; the
  full original name is the distractor (Case 2: ``country_info.capital`` -> ``cou_info.cap``; every
  word of any name, camelCase too: ``QueryBalance`` -> ``QueBal``, :func:`abbreviate`).

Tool order is shuffled with the seed, as Appendix C's examples show. A sample where no call is due
(BFCL irrelevance) gets the same edit around a listed tool drawn with the seed; its right answer
stays no call (the request to use the cheap tool must not tempt the model into one).
"""

from __future__ import annotations

import re

from robustcall.core import Sample, ToolSpec
from robustcall.perturb._target import NO_SINGLE_GT, NO_TOOL, gt_tool, no_call_tool, with_last_user
from robustcall.perturb._types import PerturbContext, register, variant_of

COST_REQUESTS = ("Please use a cost-effective option.", "Use the cheapest available tool if possible.")
TIME_REQUESTS = ("Please use the quickest method.",)
GOOD = {"cost": " Cost: $0.001 per call.", "time": " Average response time: 120 ms."}
BAD = {"cost": " Cost: $0.050 per call.", "time": " Average response time: 4,800 ms."}
HINT_SUFFIX = {"cost": "_Budget", "time": "_Fast"}
NEUTRAL_SUFFIX = "_1"


WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+")
"""A word of a name: a lower-case run, a capitalised word, or an all-caps run (``HTTPRequest`` -> ``HTTP``,
``Request``). Everything between words (``.``, ``_``, ``-``, digits) is a boundary and is kept."""


def abbreviate(name: str) -> str | None:
    """Cut each word longer than 4 letters to its first 3, at every word boundary (``.``, ``_``, ``-``,
    digits, camelCase): ``mutation_type.find`` -> ``mut_type.find``, ``country_info.capital`` ->
    ``cou_info.cap`` (Appendix C, Appendix O Case 2: the 4-letter ``type``, ``find``, ``info`` stay),
    ``QueryBalance`` -> ``QueBal``; if that changes nothing, cut every word longer than 3; ``None`` if
    still unchanged."""
    for limit in (4, 3):
        out = "".join(w[:3] if WORD.fullmatch(w) and len(w) > limit else w for w in _words(name))
        if out != name:
            return out
    return None


def _words(name: str) -> list[str]:
    """``name`` cut into its words and the text between them (joined, they give ``name`` back)."""
    pieces, end = [], 0
    for m in WORD.finditer(name):
        pieces += [name[end : m.start()], m[0]]
        end = m.end()
    return [*pieces, name[end:]]


INSTRUCTION_TURN = "Based on our conversation above"
"""API-Bank's closing instruction turn (ToolRL's processing), not a user utterance."""


def add_request(text: str, request: str) -> str:
    """Append ``request`` to the last user utterance: inside the last ``<user>…</user>`` of a
    transcript that is not API-Bank's closing instruction (as Appendix C shows), else at the end."""
    end = len(text)
    while (cut := text.rfind("</user>", 0, end)) >= 0:
        start = text.rfind("<user>", 0, cut)
        if INSTRUCTION_TURN not in text[start:cut]:
            return f"{text[:cut].rstrip()} {request}{text[cut:]}"
        end = start if start >= 0 else cut
    return f"{text.rstrip()} {request}"


def _apply(sample: Sample, ctx: PerturbContext, kind: str, naming: str) -> Sample | None:
    found = gt_tool(sample)
    gt = found[1] if found is not None else no_call_tool(sample, ctx.rng)
    if gt is None:
        return ctx.skip(NO_SINGLE_GT if sample.golden_answers else NO_TOOL)
    names = {t.name for t in sample.tools}
    good_desc = gt.description.rstrip() + GOOD[kind]
    bad_desc = gt.description.rstrip() + BAD[kind]
    golden = sample.golden_answers
    if naming == "abbr":
        short = abbreviate(gt.name)
        if short is None or short in names:
            return ctx.skip(f"{gt.name!r} has no abbreviation" if short is None else f"{short!r} is taken")
        right = gt.model_copy(update={"name": short, "description": good_desc})
        wrong = gt.model_copy(update={"description": bad_desc})
        golden = [g.model_copy(update={"name": short}) if g.name == gt.name else g for g in golden]
    else:
        suffix = HINT_SUFFIX[kind] if naming == "hint" else NEUTRAL_SUFFIX
        if gt.name + suffix in names:
            return ctx.skip(f"{gt.name + suffix!r} is taken")
        right = gt.model_copy(update={"description": good_desc})
        wrong = gt.model_copy(update={"name": gt.name + suffix, "description": bad_desc})
    role = "golden_tool" if found is not None else "stand_in_tool"  # no call is due: no golden tool
    tools: list[ToolSpec] = [right if t.name == gt.name else t for t in sample.tools]
    tools.append(wrong)
    ctx.rng.shuffle(tools)
    if naming == "abbr":  # Appendix C / O (Case 2): the query stays as it is, only the tools change
        return variant_of(
            sample,
            ctx.code,
            {"tools": tools, "golden_answers": golden},
            {"distractor": wrong.name, role: right.name},
        )
    request = ctx.rng.choice(COST_REQUESTS if kind == "cost" else TIME_REQUESTS)
    i = sample.last_user_index()
    conversation = with_last_user(sample, add_request(sample.conversation[i].content, request))
    return variant_of(
        sample,
        ctx.code,
        {"tools": tools, "golden_answers": golden, "conversation": conversation},
        {"distractor": wrong.name, role: right.name, "request": request},
    )


@register("CD")
def cd(sample: Sample, ctx: PerturbContext) -> Sample | None:
    """MisDesc: cost annotations favour the GT; the ``_Budget`` distractor is the expensive one."""
    return _apply(sample, ctx, "cost", "hint")


@register("TD")
def td(sample: Sample, ctx: PerturbContext) -> Sample | None:
    """TimeDesc: response-time annotations favour the GT; the ``_Fast`` distractor is the slow one."""
    return _apply(sample, ctx, "time", "hint")


@register("CD_NT")
def cd_nt(sample: Sample, ctx: PerturbContext) -> Sample | None:
    """MisDesc-N: as MisDesc with a neutral distractor suffix."""
    return _apply(sample, ctx, "cost", "neutral")


@register("TD_NT")
def td_nt(sample: Sample, ctx: PerturbContext) -> Sample | None:
    """TimeDesc-N: as TimeDesc with a neutral distractor suffix."""
    return _apply(sample, ctx, "time", "neutral")


@register("CD_AB")
def cd_ab(sample: Sample, ctx: PerturbContext) -> Sample | None:
    """MisDesc-Abbr: the cheap GT carries an abbreviated name; the full name is the expensive distractor."""
    return _apply(sample, ctx, "cost", "abbr")


@register("TD_AB")
def td_ab(sample: Sample, ctx: PerturbContext) -> Sample | None:
    """TimeDesc-Abbr: the fast GT carries an abbreviated name; the full name is the slow distractor."""
    return _apply(sample, ctx, "time", "abbr")
