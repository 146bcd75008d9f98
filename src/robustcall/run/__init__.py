"""The loops: the one run loop (bounded concurrency, checkpoint, resume, infra re-ask, stop-after) that
single-turn, fault-injection and PIPE runs all go through; the single pass, the two-pass transition
harness and the multi-turn agent loop that do one unit of work."""

from robustcall.core import read_trajectories, record_key
from robustcall.run._answer import answer, observation_turn, output_format, transition_turns
from robustcall.run._budget import GoldBudget, gold_tokens
from robustcall.run._engine import load_done, run_items
from robustcall.run._env_stats import add_trajectories, env_stats
from robustcall.run._episode import COT_PROMPT, PROMPT_VARIANTS, run_episode
from robustcall.run._episodes import run_episodes
from robustcall.run._fault_replay import replay_run
from robustcall.run._faults import EpisodeFn, FaultRunStats, episode_id, run_faults
from robustcall.run._loop import (
    EXIT_INFRA,
    STOP_AFTER,
    Checkpoint,
    Outcome,
    RunStats,
    one_line,
    run_loop,
    stopped_failure,
)
from robustcall.run._pipe import pipe_episode_id, run_pipe
from robustcall.run._plan import (
    ALL_TYPES,
    ORDERS,
    Order,
    WorkItem,
    as_transition,
    bench_digest,
    bench_release,
    by_prefix,
    by_sample,
    clean_id_of,
    order_items,
    parse_types,
    plan_work,
    prompt_key,
    trial_seed,
    with_trials,
)
from robustcall.run._request_digest import request_digest
from robustcall.run._rundir import RESUME_IDENTITY, resume_meta, settings_meta, write_meta
from robustcall.run._shard import MergeError, file_digest, merge_runs, parse_shard, shard_items

__all__ = [
    "ALL_TYPES",
    "COT_PROMPT",
    "EXIT_INFRA",
    "ORDERS",
    "PROMPT_VARIANTS",
    "RESUME_IDENTITY",
    "STOP_AFTER",
    "Checkpoint",
    "EpisodeFn",
    "FaultRunStats",
    "GoldBudget",
    "MergeError",
    "Order",
    "Outcome",
    "RunStats",
    "WorkItem",
    "add_trajectories",
    "answer",
    "as_transition",
    "bench_digest",
    "bench_release",
    "by_prefix",
    "by_sample",
    "clean_id_of",
    "env_stats",
    "episode_id",
    "file_digest",
    "gold_tokens",
    "load_done",
    "merge_runs",
    "observation_turn",
    "one_line",
    "order_items",
    "output_format",
    "parse_shard",
    "parse_types",
    "pipe_episode_id",
    "plan_work",
    "prompt_key",
    "read_trajectories",
    "record_key",
    "replay_run",
    "request_digest",
    "resume_meta",
    "run_episode",
    "run_episodes",
    "run_faults",
    "run_items",
    "run_loop",
    "run_pipe",
    "settings_meta",
    "shard_items",
    "stopped_failure",
    "transition_turns",
    "trial_seed",
    "with_trials",
    "write_meta",
]
