"""Runtime faults on tool results: the transition errors and the injector that places them."""

from robustcall.faults._injector import FaultInjector, InjectedFault, transition_injector
from robustcall.faults._transition import TRANSITION_MESSAGES

__all__ = ["TRANSITION_MESSAGES", "FaultInjector", "InjectedFault", "transition_injector"]
