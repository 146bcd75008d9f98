"""Static, seeded, deterministic perturbations of samples (RobustBench-TC Observation / Action /
Reward), registered under the papers' code names, and ``build_benchmark``.

One module per POMDP component (``_observation``, ``_action``, ``_reward``, ``_transition``, and
``_beyond`` for Appendix N's axes) registers its types in ``REGISTRY`` on import; the public API is
what this package exports.
"""

from robustcall.perturb import _action, _beyond, _observation, _reward, _transition  # noqa: F401  (registration)
from robustcall.perturb._audit import audit, parse_score
from robustcall.perturb._beyond import CONTEXT_LEVELS, FOLLOW_UP, INJECTIONS, message_text
from robustcall.perturb._build import build_benchmark, compose_paper, perturb_all, static_types
from robustcall.perturb._compose import (
    ALLOCATED_TYPES,
    COMPOSITIONS,
    Allocation,
    allocate,
    paper_allocated_by_source,
    paper_type_counts,
    takes_every_type,
)
from robustcall.perturb._llm import LLMRewriter, model_specs
from robustcall.perturb._offline import OfflineRewriter
from robustcall.perturb._protect import Protection, golden_strings, protect
from robustcall.perturb._release_build import build_release
from robustcall.perturb._reward import abbreviate
from robustcall.perturb._rewriter import guarded
from robustcall.perturb._types import REGISTRY, GuardStats, PerturbationType, PerturbContext, Rewriter

__all__ = [
    "ALLOCATED_TYPES",
    "COMPOSITIONS",
    "CONTEXT_LEVELS",
    "FOLLOW_UP",
    "INJECTIONS",
    "REGISTRY",
    "Allocation",
    "GuardStats",
    "LLMRewriter",
    "OfflineRewriter",
    "PerturbContext",
    "PerturbationType",
    "Protection",
    "Rewriter",
    "abbreviate",
    "allocate",
    "audit",
    "build_benchmark",
    "build_release",
    "compose_paper",
    "golden_strings",
    "guarded",
    "message_text",
    "model_specs",
    "paper_allocated_by_source",
    "paper_type_counts",
    "parse_score",
    "perturb_all",
    "protect",
    "static_types",
    "takes_every_type",
]
