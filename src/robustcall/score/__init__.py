"""Deterministic verdicts (no LLM judge): per-source scorers and Appendix L error modes."""

from robustcall.score._attacks import attack_success, injection_followed
from robustcall.score._batch import PARALLEL_MIN, default_processes, score_texts
from robustcall.score._bfcl_agentic import ANSWERS_KEY as BFCL_ANSWERS_KEY
from robustcall.score._bfcl_agentic import check_agentic
from robustcall.score._bfcl_ast import BfclChecker, check_bfcl, standardize
from robustcall.score._bfcl_decode import NotCalls as BfclNotCalls
from robustcall.score._bfcl_decode import WrongOutputFormat as BfclWrongOutputFormat
from robustcall.score._bfcl_decode import decode_ast_format, decode_ast_prompting
from robustcall.score._bfcl_multi_turn import HANDLER_KEY as BFCL_HANDLER_KEY
from robustcall.score._bfcl_multi_turn import check_multi_turn, task_of
from robustcall.score._error_modes import ErrorModes, error_mode
from robustcall.score._rules import (
    MODES,
    ROTBENCH_STAGES,
    GoldenModeError,
    Judgement,
    alternatives,
    golden_mode,
    rotbench_stages,
    step_names,
)
from robustcall.score._run_dir import refuse_duplicates, reparse, run_mode, score_run, torn_predictions
from robustcall.score._scorer import (
    CHECKED_AS,
    SCORERS,
    SampleScorer,
    Scored,
    Scorer,
    score_prediction,
    score_record,
    score_records,
    to_verdict,
)
from robustcall.score._validate import run_dirs, validate_run_dir

__all__ = [
    "BFCL_ANSWERS_KEY",
    "BFCL_HANDLER_KEY",
    "CHECKED_AS",
    "MODES",
    "PARALLEL_MIN",
    "ROTBENCH_STAGES",
    "SCORERS",
    "BfclChecker",
    "BfclNotCalls",
    "BfclWrongOutputFormat",
    "ErrorModes",
    "GoldenModeError",
    "Judgement",
    "SampleScorer",
    "Scored",
    "Scorer",
    "alternatives",
    "attack_success",
    "check_agentic",
    "check_bfcl",
    "check_multi_turn",
    "decode_ast_format",
    "decode_ast_prompting",
    "default_processes",
    "error_mode",
    "golden_mode",
    "injection_followed",
    "refuse_duplicates",
    "reparse",
    "rotbench_stages",
    "run_dirs",
    "run_mode",
    "score_prediction",
    "score_record",
    "score_records",
    "score_run",
    "score_texts",
    "standardize",
    "step_names",
    "task_of",
    "to_verdict",
    "torn_predictions",
    "validate_run_dir",
]
