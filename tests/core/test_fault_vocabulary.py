"""The fault classes and types live in ``core`` beside the perturbation types; ``faults`` re-exports them."""

from __future__ import annotations

import robustcall.faults as faults
from robustcall import core


def test_faults_re_exports_the_core_vocabulary() -> None:
    assert faults.FAULT_TYPES is core.FAULT_TYPES and faults.FaultType is core.FaultType
    assert faults.CLASS_DISPLAY is core.FAULT_CLASS_DISPLAY and faults.TAXONOMY_TYPES is core.FAULT_TAXONOMY_TYPES
    assert faults.TRANSITION_MESSAGES is core.TRANSITION_MESSAGES and faults.AXIS_FAULT_TYPES is core.AXIS_FAULT_TYPES


def test_every_transition_type_is_a_fixed_message_fault_type() -> None:
    assert tuple(core.TRANSITION_MESSAGES) == core.TRANSITION_TYPES
    for code in core.TRANSITION_TYPES:
        ftype = core.fault_type(code)
        assert (ftype.message, ftype.effect, ftype.transient) == (core.TRANSITION_MESSAGES[code], "replace", True)
    assert core.FAULT_CLASSES == ("execution", "semantic", "nonstationary")
    assert len(core.FAULT_TAXONOMY_TYPES) == 15
