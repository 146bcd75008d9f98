"""``robustcall card``: one versioned protocol that runs a model through RobustBench-TC, PIPE and
fault injection and hands the runs to ``report`` (``card.json`` and one HTML page). It composes
``run``, ``faults``, ``interface``, ``metrics`` and ``report`` and adds no statistics of its own."""

from robustcall.card._assemble import assemble
from robustcall.card._execute import CardModel, build_tc, run_card
from robustcall.card._layout import CARD_HTML, CARD_JSON, fault_run, pipe_run, run_dirs, tc_bench, tc_run
from robustcall.card._protocol import BUDGETS, FAULT_DELTA, PIPE_PLAN, PROTOCOL_VERSION, PROTOCOLS, Budget, Protocol
from robustcall.card._write import CardFiles, read_card, write_card

__all__ = [
    "BUDGETS",
    "CARD_HTML",
    "CARD_JSON",
    "FAULT_DELTA",
    "PIPE_PLAN",
    "PROTOCOLS",
    "PROTOCOL_VERSION",
    "Budget",
    "CardFiles",
    "CardModel",
    "Protocol",
    "assemble",
    "build_tc",
    "fault_run",
    "pipe_run",
    "read_card",
    "run_card",
    "run_dirs",
    "tc_bench",
    "tc_run",
    "write_card",
]
