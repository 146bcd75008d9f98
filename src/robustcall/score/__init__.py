"""Deterministic verdicts (no LLM judge): per-source scorers and Appendix L error modes."""

from robustcall.score._bfcl_ast import check_bfcl, standardize
from robustcall.score._error_modes import error_mode
from robustcall.score._rules import Judgement
from robustcall.score._scorer import SCORERS, Scorer, score_prediction, score_record, score_records

__all__ = [
    "SCORERS",
    "Judgement",
    "Scorer",
    "check_bfcl",
    "error_mode",
    "score_prediction",
    "score_record",
    "score_records",
    "standardize",
]
