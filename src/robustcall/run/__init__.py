"""The loops: single pass, the two-pass transition harness, the multi-turn agent loop, bounded concurrency,
checkpoint/resume."""

from robustcall.run._answer import answer, observation_turn, output_format
from robustcall.run._engine import PREDICTIONS, STOP_AFTER, RunStats, load_done, run_items
from robustcall.run._episode import COT_PROMPT, PROMPT_VARIANTS, run_episode
from robustcall.run._plan import (
    ALL_TYPES,
    MANIFEST,
    WorkItem,
    as_transition,
    bench_version,
    clean_id_of,
    parse_types,
    plan_work,
    record_key,
)
from robustcall.run._rundir import IDENTITY, RUN_META, SCORES, SUMMARY, reparse, resume_meta, score_run, write_meta

__all__ = [
    "ALL_TYPES",
    "COT_PROMPT",
    "IDENTITY",
    "MANIFEST",
    "PREDICTIONS",
    "PROMPT_VARIANTS",
    "RUN_META",
    "SCORES",
    "STOP_AFTER",
    "SUMMARY",
    "RunStats",
    "WorkItem",
    "answer",
    "as_transition",
    "bench_version",
    "clean_id_of",
    "load_done",
    "observation_turn",
    "output_format",
    "parse_types",
    "plan_work",
    "record_key",
    "reparse",
    "resume_meta",
    "run_episode",
    "run_items",
    "score_run",
    "write_meta",
]
