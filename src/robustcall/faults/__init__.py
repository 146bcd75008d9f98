"""Runtime faults on tool results: fault profiles, the injector and its Env wrapper (the taxonomy,
fault classes and types, lives in ``robustcall.core`` with the perturbation types; re-exported here).

The two-pass transition harness and the fault-injection benchmark share one injector: a
transition perturbation is the profile δ = 1 at call 0 with one fixed Appendix G message.
"""

from robustcall.core import (
    AXES,
    AXIS_FAULT_TYPES,
    FAULT_CLASSES,
    FAULT_TYPES,
    KNOWN_FAULT_TYPES,
    TRANSITION_MESSAGES,
    Axis,
    FaultClass,
    FaultType,
    fault_type,
    is_read,
)
from robustcall.core import FAULT_CLASS_DISPLAY as CLASS_DISPLAY
from robustcall.core import FAULT_TAXONOMY_TYPES as TAXONOMY_TYPES
from robustcall.faults._axes import AxisEnv, parse_axes, with_axes
from robustcall.faults._env import EXPERT_STOP, FaultedStep, FaultyEnv, episode_key
from robustcall.faults._injector import (
    FaultInjector,
    InjectedFault,
    fixed_profile,
    synthesise,
    transition_injector,
)
from robustcall.faults._profile import BUILTIN_PROFILES, CustomFault, FaultProfile, ToolOverride, load_profile
from robustcall.faults._session import Blocked, Execute, FaultSession
from robustcall.faults._sft import RecoveryExample, recovery_examples

__all__ = [
    "AXES",
    "AXIS_FAULT_TYPES",
    "BUILTIN_PROFILES",
    "CLASS_DISPLAY",
    "EXPERT_STOP",
    "FAULT_CLASSES",
    "FAULT_TYPES",
    "KNOWN_FAULT_TYPES",
    "TAXONOMY_TYPES",
    "TRANSITION_MESSAGES",
    "Axis",
    "AxisEnv",
    "Blocked",
    "CustomFault",
    "Execute",
    "FaultClass",
    "FaultInjector",
    "FaultProfile",
    "FaultSession",
    "FaultType",
    "FaultedStep",
    "FaultyEnv",
    "InjectedFault",
    "RecoveryExample",
    "ToolOverride",
    "episode_key",
    "fault_type",
    "fixed_profile",
    "is_read",
    "load_profile",
    "parse_axes",
    "recovery_examples",
    "synthesise",
    "transition_injector",
    "with_axes",
]
