"""Per-source rules for API-Bank, RoTBench, ToolAlpaca, ToolEyes and exact matching (Appendix I).

Golden answers are read with ``source.extra["golden_mode"]`` (the loaders' ``GoldenMode``): ``"all"``
(default; every golden call is expected), ``"any"`` (the golden calls are alternatives; the
prediction's first call must match one), ``"sequence"`` (ToolAlpaca's ordered steps) or
``"any_name"`` (ToolEyes: a call to any listed tool name is right, parameters unknown). Each scorer
says which modes it reads (:data:`MODES`); any other mode is a :class:`GoldenModeError`, never a
silent fallback to another rule. ToolEyes may also name, per golden step, several acceptable tools
(any tool of the step's library): ``source.extra["acceptable_names"]`` as a list (one list of names
per golden step) or a ``GoldenAnswer.acceptable`` entry ``{"__names__": [...]}``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from robustcall.core import GoldenAnswer, Sample, ToolCall
from robustcall.score._values import same


@dataclass(frozen=True)
class Judgement:
    """A scorer's raw outcome before it becomes a ``Verdict``."""

    correct: bool
    score: float
    detail: str | None = None


MODES: dict[str, frozenset[str]] = {
    "bfcl_ast": frozenset({"all"}),
    "apibank": frozenset({"all", "any"}),
    "rotbench": frozenset({"all", "any"}),
    "toolalpaca": frozenset({"all", "any", "sequence"}),
    "tooleyes": frozenset({"all", "any", "any_name"}),
    "exact": frozenset({"all", "sequence"}),
}
"""The ``golden_mode`` values each scoring method reads. ``sequence`` under ``toolalpaca`` is read
as ``all`` (Appendix I: the most lenient rule, extra calls and any order allowed); ``any_name``
under ``tooleyes`` as ``any`` (the first call must name one of the listed tools)."""


class GoldenModeError(ValueError):
    """A sample whose ``golden_mode`` its scoring method does not read."""


_ALL_ONLY = frozenset({"all"})


def golden_mode(sample: Sample) -> str:
    """The sample's ``golden_mode`` (default ``all``); :class:`GoldenModeError` when its scoring
    method does not read that mode."""
    mode = sample.source.extra.get("golden_mode", "all")
    method = sample.eval_config.method
    known = MODES.get(method, _ALL_ONLY)  # a constant: the verdict of every record asks
    if mode not in known:
        raise GoldenModeError(
            f"sample {sample.id}: golden_mode {mode!r} is not one the {method} scorer reads "
            f"({', '.join(sorted(known))})"
        )
    return str(mode)


def alternatives(sample: Sample) -> bool:
    """Whether the golden answers are alternatives (one suffices): ``any`` and ``any_name``."""
    return golden_mode(sample) in ("any", "any_name")


def _params_equal(pred: dict[str, Any], gold: dict[str, Any]) -> bool:
    return pred.keys() == gold.keys() and all(same(pred[k], v) for k, v in gold.items())


def _params_subset(pred: dict[str, Any], gold: dict[str, Any]) -> bool:
    return all(k in pred and same(pred[k], v) for k, v in gold.items())


def _match_all(calls: list[ToolCall], golden: list[GoldenAnswer], subset: bool, allow_extra: bool) -> Judgement:
    if not golden:
        return Judgement(not calls, 1.0 if not calls else 0.0, None if not calls else "call made where none was due")
    if not allow_extra and len(calls) != len(golden):
        return Judgement(False, 0.0, f"{len(calls)} calls, {len(golden)} expected")
    rule = _params_subset if subset else _params_equal
    free = list(range(len(calls)))
    for g in golden:
        hit = next((i for i in free if calls[i].name == g.name and rule(calls[i].arguments, g.parameters)), None)
        if hit is None:
            named = any(calls[i].name == g.name for i in free)
            why = "arguments differ" if named else "not called"
            return Judgement(False, 0.0, f"{g.name}: {why}")
        free.remove(hit)
    return Judgement(True, 1.0)


def _match_any(calls: list[ToolCall], golden: list[GoldenAnswer], subset: bool) -> Judgement:
    if not calls:
        return Judgement(False, 0.0, "no call")
    first = calls[0]
    rule = _params_subset if subset else _params_equal
    for g in golden:
        if first.name == g.name and rule(first.arguments, g.parameters):
            return Judgement(True, 1.0)
    if any(first.name == g.name for g in golden):
        return Judgement(False, 0.0, f"{first.name}: arguments match no alternative")
    return Judgement(False, 0.0, f"{first.name}: not an acceptable action")


def score_apibank(sample: Sample, calls: list[ToolCall]) -> Judgement:
    """Name exact; same parameter names; values equal with API-Bank's type rules (strings
    case-insensitive after stripping, numbers normalised). Calls to meta tools (``**Think``) ignored."""
    meta = set(sample.source.extra.get("meta_tools") or [])
    calls = [c for c in calls if c.name not in meta]
    if golden_mode(sample) == "any":
        return _match_any(calls, sample.golden_answers, subset=False)
    return _match_all(calls, sample.golden_answers, subset=False, allow_extra=False)


def score_rotbench(sample: Sample, calls: list[ToolCall]) -> Judgement:
    """The (first) Action exact, Action Input field by field (same keys, normalised values)."""
    if golden_mode(sample) == "any":
        return _match_any(calls, sample.golden_answers, subset=False)
    return _match_all(calls[: len(sample.golden_answers)], sample.golden_answers, subset=False, allow_extra=False)


ROTBENCH_STAGES = ("Tool Selection", "Parameter Identification", "Content Filling")
"""RoTBench's three nested stages (Ye et al., 2024; ToolRM's Table 3)."""


def _paired(calls: list[ToolCall], golden: list[GoldenAnswer], same_keys: bool) -> bool:
    """Every gold call has its own predicted call of the same name (and parameter names)."""
    free = list(range(len(calls)))
    for g in golden:
        hit = next(
            (
                i
                for i in free
                if calls[i].name == g.name and (not same_keys or calls[i].arguments.keys() == g.parameters.keys())
            ),
            None,
        )
        if hit is None:
            return False
        free.remove(hit)
    return True


def rotbench_stages(sample: Sample, calls: list[ToolCall]) -> tuple[bool, bool, bool]:
    """RoTBench's stages for one answer: Tool Selection (the action's name is the gold's), Parameter
    Identification (and its parameter names are the gold's), Content Filling (and every value is, as
    :func:`score_rotbench`). Each stage needs the one before; with alternatives (``any``), the first
    call against any gold answer; a sample with no gold call passes all three only with no call."""
    golden = sample.golden_answers
    if not golden or not calls:
        none = not golden and not calls
        return none, none, none
    if golden_mode(sample) == "any":
        ts = any(calls[0].name == g.name for g in golden)
        pi = any(calls[0].name == g.name and calls[0].arguments.keys() == g.parameters.keys() for g in golden)
    else:
        used = calls[: len(golden)]
        ts = len(used) == len(golden) and _paired(used, golden, same_keys=False)
        pi = ts and _paired(used, golden, same_keys=True)
    cf = pi and score_rotbench(sample, calls).correct
    return ts, pi, cf


def score_toolalpaca(sample: Sample, calls: list[ToolCall]) -> Judgement:
    """The most lenient: name match plus the golden parameter values a subset of the predicted."""
    if golden_mode(sample) == "any":
        return _match_any(calls, sample.golden_answers, subset=True)
    return _match_all(calls, sample.golden_answers, subset=True, allow_extra=True)


def score_exact(sample: Sample, calls: list[ToolCall]) -> Judgement:
    """Calls equal to the golden calls, in order, names and arguments exactly."""
    want = [(g.name, g.parameters) for g in sample.golden_answers]
    got = [(c.name, c.arguments) for c in calls]
    return Judgement(want == got, 1.0 if want == got else 0.0)


def step_names(sample: Sample) -> list[set[str]]:
    """Per golden step, the tool names that satisfy it."""
    extra = sample.source.extra.get("acceptable_names")
    out: list[set[str]] = []
    for i, g in enumerate(sample.golden_answers):
        names = {g.name}
        if isinstance(extra, list) and i < len(extra) and isinstance(extra[i], list):
            names |= {str(n) for n in extra[i]}
        if g.acceptable and isinstance(g.acceptable.get("__names__"), list):
            names |= {str(n) for n in g.acceptable["__names__"]}
        out.append(names)
    return out


def score_tooleyes(sample: Sample, calls: list[ToolCall]) -> Judgement:
    """Action names exact; partial credit on sequences: the fraction of golden steps matched, in
    order, by the predicted calls (correct iff all are). ``golden_mode="any"`` or ``"any_name"`` (the
    loader's: any tool of the query's library): the first call's name must be one of the golden names."""
    steps = step_names(sample)
    if not steps:
        return Judgement(not calls, 1.0 if not calls else 0.0)
    if alternatives(sample):
        ok = bool(calls) and any(calls[0].name in s for s in steps)
        return Judgement(ok, 1.0 if ok else 0.0, None if ok else "first action is not an acceptable tool")
    j = 0
    matched = 0
    for step in steps:
        while j < len(calls) and calls[j].name not in step:
            j += 1
        if j == len(calls):
            break
        matched += 1
        j += 1
    score = matched / len(steps)
    return Judgement(matched == len(steps), score, None if matched == len(steps) else f"{matched}/{len(steps)} steps")
