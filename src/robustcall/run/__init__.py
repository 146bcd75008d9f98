"""The loops: single pass, the two-pass transition harness, the multi-turn agent loop, bounded concurrency,
checkpoint/resume."""

from robustcall.core import record_key
from robustcall.run._answer import answer, observation_turn, output_format
from robustcall.run._budget import GoldBudget, gold_tokens
from robustcall.run._engine import STOP_AFTER, RunStats, load_done, run_items
from robustcall.run._episode import COT_PROMPT, PROMPT_VARIANTS, run_episode
from robustcall.run._plan import (
    ALL_TYPES,
    Order,
    WorkItem,
    as_transition,
    bench_digest,
    by_sample,
    clean_id_of,
    parse_types,
    plan_work,
)
from robustcall.run._rundir import RESUME_IDENTITY, resume_meta, write_meta
from robustcall.run._shard import MergeError, file_digest, merge_runs, parse_shard, shard_items

__all__ = [
    "ALL_TYPES",
    "COT_PROMPT",
    "PROMPT_VARIANTS",
    "RESUME_IDENTITY",
    "STOP_AFTER",
    "GoldBudget",
    "MergeError",
    "Order",
    "RunStats",
    "WorkItem",
    "answer",
    "as_transition",
    "bench_digest",
    "by_sample",
    "clean_id_of",
    "file_digest",
    "gold_tokens",
    "load_done",
    "merge_runs",
    "observation_turn",
    "output_format",
    "parse_shard",
    "parse_types",
    "plan_work",
    "record_key",
    "resume_meta",
    "run_episode",
    "run_items",
    "shard_items",
    "write_meta",
]
