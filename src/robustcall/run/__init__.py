"""The loops: single pass, the two-pass transition harness, the multi-turn agent loop, bounded concurrency,
checkpoint/resume."""

from robustcall.run._answer import answer, observation_turn, output_format
from robustcall.run._budget import GoldBudget, gold_tokens
from robustcall.run._engine import PREDICTIONS, RunStats, load_done, run_items
from robustcall.run._episode import COT_PROMPT, PROMPT_VARIANTS, run_episode
from robustcall.run._plan import (
    ALL_TYPES,
    Order,
    WorkItem,
    as_transition,
    by_sample,
    clean_id_of,
    parse_types,
    plan_work,
    record_key,
)
from robustcall.run._rundir import RUN_META, SCORES, SUMMARY, reparse, score_run, write_meta

__all__ = [
    "ALL_TYPES",
    "COT_PROMPT",
    "GoldBudget",
    "PREDICTIONS",
    "PROMPT_VARIANTS",
    "RUN_META",
    "SCORES",
    "SUMMARY",
    "RunStats",
    "Order",
    "WorkItem",
    "answer",
    "as_transition",
    "by_sample",
    "clean_id_of",
    "gold_tokens",
    "load_done",
    "observation_turn",
    "output_format",
    "parse_types",
    "plan_work",
    "record_key",
    "reparse",
    "run_episode",
    "run_items",
    "score_run",
    "write_meta",
]
