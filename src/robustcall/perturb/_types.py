"""The registry's record types: a perturbation type, the context it runs in, the ``Rewriter`` protocol
(the text generation behind Typo, QueryPara, ToolPara, ParamPara and RedunTool), guard statistics."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from robustcall.core import Component, PerturbationInfo, Sample, ToolSpec, type_info
from robustcall.perturb._protect import Protection


class Rewriter(Protocol):
    """Produces the LLM-generated text of the five generated types.

    ``attempt`` counts tries of the same request (0 first); a rewriter must give a different answer
    for a different attempt when it can (the LLM rewriter keys its cache on it, the offline one
    draws again from ``rng``).
    """

    name: str

    def settings(self) -> dict[str, Any]:
        """What identifies this rewriter's outputs (written into the manifest)."""
        ...

    def typos(self, query: str, protection: Protection, rng: random.Random, attempt: int) -> str: ...

    def paraphrase_query(self, query: str, protection: Protection, rng: random.Random, attempt: int) -> str: ...

    def paraphrase_tool_description(
        self, tool_name: str, description: str, protection: Protection, rng: random.Random, attempt: int
    ) -> str: ...

    def paraphrase_parameter_description(
        self,
        param_name: str,
        param_type: str,
        description: str,
        protection: Protection,
        rng: random.Random,
        attempt: int,
    ) -> str: ...

    def sibling_tools(self, tool: ToolSpec, n: int, rng: random.Random, attempt: int) -> list[ToolSpec]: ...


@dataclass
class GuardStats:
    """How often the golden-value guard had to step in, per perturbation type.

    ``checked``: rewrites requested; ``passed``: accepted on the first try; ``regenerated``: accepted
    after one or more retries; ``fallback``: every try failed, the offline span-safe rewrite was used;
    ``unchanged``: not even the fallback changed the text (that text is left as it was);
    ``violations``: protected strings lost by rejected tries (counted per string).
    """

    counts: dict[str, dict[str, int]] = field(default_factory=dict)

    def add(self, code: str, key: str, n: int = 1) -> None:
        row = self.counts.setdefault(
            code, {"checked": 0, "passed": 0, "regenerated": 0, "fallback": 0, "unchanged": 0, "violations": 0}
        )
        row[key] = row.get(key, 0) + n

    def merge(self, other: GuardStats) -> None:
        for code, row in other.counts.items():
            for key, n in row.items():
                self.add(code, key, n)

    def as_dict(self) -> dict[str, dict[str, int]]:
        return {code: dict(self.counts[code]) for code in sorted(self.counts)}


def approx_tokens(text: str) -> int:
    """Tokens by the usual four-characters rule, when no tokenizer is given (recorded in the metadata)."""
    return (len(text) + 3) // 4


@dataclass
class PerturbContext:
    """What an ``apply`` function may use: its own random stream, the rewriter, the guard counters."""

    rng: random.Random
    rewriter: Rewriter
    guard: GuardStats
    code: str
    max_tries: int = 3
    pool: Sequence[Sample] = ()
    """The build's clean samples (the beyond-the-paper types borrow earlier exchanges from them)."""
    count_tokens: Callable[[str], int] = field(default=lambda text: approx_tokens(text))
    """Token counter for context pressure: a tokenizer's, else four characters a token."""
    counter_name: str = "chars/4"
    skipped_because: str | None = None
    """Why ``apply`` returned ``None`` (set by :meth:`skip`; the manifest names each such sample)."""

    def skip(self, reason: str) -> Sample | None:
        """Record why the type does not apply to this sample; ``None``, for ``apply`` to return."""
        self.skipped_because = reason
        return None


ApplyFn = Callable[[Sample, PerturbContext], "Sample | None"]


@dataclass(frozen=True)
class PerturbationType:
    """One registered perturbation type."""

    code: str
    """The release's code name, e.g. ``same_name_C``."""
    display: str
    """The paper's display name, e.g. ``Dup-WrongP``."""
    component: Component
    apply: ApplyFn
    """The edit; ``None`` when the type does not apply to the sample (e.g. ToolEyes, Action)."""
    static: bool = True
    """Built into a file by ``robustcall build`` (``False`` for the runtime transition types)."""


REGISTRY: dict[str, PerturbationType] = {}


def register(code: str, *, static: bool = True) -> Callable[[ApplyFn], ApplyFn]:
    """Register ``apply`` under a taxonomy code; display name and component come from core."""
    info = type_info(code)

    def deco(fn: ApplyFn) -> ApplyFn:
        if code in REGISTRY:
            raise ValueError(f"perturbation type {code!r} registered twice")
        REGISTRY[code] = PerturbationType(info.code, info.display, info.component, fn, static)
        return fn

    return deco


def variant_of(sample: Sample, code: str, update: dict[str, Any], metadata: dict[str, Any]) -> Sample:
    """The perturbed copy: id ``<clean id>__<code>``, ``perturbation`` filled, fields in ``update``."""
    info = type_info(code)
    return sample.model_copy(
        update={
            **update,
            "id": f"{sample.id}__{code}",
            "perturbation": PerturbationInfo(
                type=code, mdp_category=info.component, variant=info.display, metadata=metadata
            ),
        },
        deep=True,
    )
