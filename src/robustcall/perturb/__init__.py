"""Static, seeded, deterministic perturbations of samples (RobustBench-TC Observation / Action /
Reward), registered under the papers' code names, and ``build_benchmark``."""

from robustcall.perturb import action, beyond, observation, reward, transition  # noqa: F401  (registration)
from robustcall.perturb._llm import LLMRewriter
from robustcall.perturb._offline import OfflineRewriter
from robustcall.perturb._protect import Protection, golden_strings, protect
from robustcall.perturb._rewriter import Rewriter, guarded
from robustcall.perturb._types import REGISTRY, GuardStats, PerturbationType, PerturbContext
from robustcall.perturb.build import build_benchmark, perturb_all, static_types
from robustcall.perturb.reward import abbreviate

__all__ = [
    "REGISTRY",
    "GuardStats",
    "LLMRewriter",
    "OfflineRewriter",
    "PerturbContext",
    "PerturbationType",
    "Protection",
    "Rewriter",
    "abbreviate",
    "build_benchmark",
    "golden_strings",
    "guarded",
    "perturb_all",
    "protect",
    "static_types",
]
