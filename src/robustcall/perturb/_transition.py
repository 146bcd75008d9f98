"""Transition types are runtime faults over clean samples (the run harness injects them); they are
registered so the registry covers all 22 types, and are never written into files."""

from __future__ import annotations

from robustcall.core import TRANSITION_TYPES, Sample
from robustcall.perturb._types import ApplyFn, PerturbContext, register, variant_of


def _relabel(code: str) -> ApplyFn:
    def apply(sample: Sample, ctx: PerturbContext) -> Sample | None:
        return variant_of(sample, code, {}, {})

    return apply


for _code in TRANSITION_TYPES:
    register(_code, static=False)(_relabel(_code))
