"""``scripted:chance:<p>[,<type>=<p>...]``: a stochastic scripted model that answers a record right
(the oracle's calls) with a per-type probability and wrong otherwise (a call to a tool it was not
given), drawn from the request seed, the sample and its type. Its accuracy on a type is known in
expectation, and two runs with other seeds (``--seed``, ``--trials``) differ only by chance: what
``benchmarks/compare_calibration.py`` and the trial statistics' tests need."""

from __future__ import annotations

from robustcall.core import InputError, ToolCall, seeded_rng, type_info
from robustcall.models._api import Mode, ModelRequest
from robustcall.models._scripted import ScriptedModel, golden_calls

WRONG_TOOL = "no_such_tool"
"""The tool a wrong answer calls: never given, so the answer is wrong on every source and type."""


def parse_chance(spec: str) -> tuple[float, dict[str, float]]:
    """``0.7`` or ``0.7,CD=0.5,clean=0.9``: the default probability and the per-type ones (a type by
    its code or display name)."""
    default: float | None = None
    per_type: dict[str, float] = {}
    for part in (p.strip() for p in spec.split(",") if p.strip()):
        name, _, value = part.rpartition("=")
        try:
            p = float(value)
        except ValueError:
            raise InputError(f"scripted:chance: {part!r} is not a probability (e.g. chance:0.7,CD=0.5)") from None
        if not 0.0 <= p <= 1.0:
            raise InputError(f"scripted:chance: {p:g} is not a probability in [0, 1]")
        if not name:
            default = p
            continue
        try:
            per_type[type_info(name).code] = p
        except KeyError:
            raise InputError(f"scripted:chance: unknown perturbation type {name!r}") from None
    if default is None:
        raise InputError("scripted:chance needs a default probability first, e.g. scripted:chance:0.7")
    return default, per_type


class ChanceModel(ScriptedModel):
    """The oracle with probability p(type), else a call to :data:`WRONG_TOOL`; one draw per record
    and request seed, so both passes of a transition record agree."""

    def __init__(self, spec: str, *, mode: Mode = "fc") -> None:
        self.default, self.per_type = parse_chance(spec)
        self.policy = self._answer
        self.name = f"scripted:chance:{spec}"
        self.mode = mode

    def probability(self, code: str) -> float:
        return self.per_type.get(code, self.default)

    def _answer(self, req: ModelRequest) -> list[ToolCall] | str:
        code = req.sample.perturbation.type
        rng = seeded_rng(0 if req.seed is None else req.seed, "chance", req.sample.id, code)
        if rng.random() < self.probability(code):
            return golden_calls(req)
        return [ToolCall(name=WRONG_TOOL, arguments={})]
