"""Reward models and rewards for tool calls: FC-RewardBench, RM / judge scorers, Best-of-n,
filtering, and the RL rewards (R_schema, R_ToolRL, R_ToolRM, format)."""

from robustcall.rewards._ablation import (
    HIGH_ETA,
    LARGE_B,
    SECTIONS,
    SMALL_B,
    AblationRow,
    TrainScore,
    Variant,
    dataset_of,
    generator_size,
    plan_ablation,
    run_ablation,
)
from robustcall.rewards._bench_stats import BenchStats, bench_stats
from robustcall.rewards._bestofn import (
    IRRELEVANCE_ERROR,
    BonRecord,
    canonical_sequence,
    error_of,
    full_sequence_match,
    gold_sequences,
    judge_sample,
    majority_vote,
    methods_of,
    rm_pick,
    schema_pick,
)
from robustcall.rewards._bon_model import STEP_METHODS, BestOfNModel
from robustcall.rewards._bon_run import draw_all
from robustcall.rewards._errors import classify_error
from robustcall.rewards._eval import PairwiseResult, evaluate
from robustcall.rewards._filter import keep_top, score_corpus, sft_row
from robustcall.rewards._hf import HFClassifierScorer
from robustcall.rewards._judge import JudgeScorer, PairVerdict, parse_verdict
from robustcall.rewards._mutate import MUTATORS, mutate
from robustcall.rewards._output import calls_text, output_calls
from robustcall.rewards._prompts import JUDGE_PROMPT, TOOLRM_SYSTEM, judge_prompt, toolrm_messages
from robustcall.rewards._reward import (
    SCORER_HELP,
    SCORERS,
    ScorerKind,
    ScorerSpec,
    load_scorer,
    register_scorer,
    scorer_help,
    to_toolrm_range,
    toolrm_reward,
)
from robustcall.rewards._rewardbench import BuildStats, assemble, draw_pool, read_pairs
from robustcall.rewards._schema import schema_reward, schema_violations
from robustcall.rewards._scorers import BfclScorer, OutputScorer, SchemaScorer
from robustcall.rewards._toolrl import (
    GoldenFormatError,
    call_block_lines,
    golden_calls,
    read_calls,
    toolrl_correctness_reward,
    toolrl_format_reward,
    toolrl_reward,
)
from robustcall.rewards._train import (
    RMTrainConfig,
    bf16_default,
    bradley_terry_loss,
    load_base,
    pair_rows,
    train_reward_model,
    trl_config,
)
from robustcall.rewards._traindata import obfuscate, shuffle_tool_keys
from robustcall.rewards._types import ERROR_TYPES, TABLE1_COUNTS, ErrorType, RewardPair, table1_targets

__all__ = [  # noqa: RUF022 (the RL rewards first, then the reward-model tooling)
    "schema_reward",
    "schema_violations",
    "toolrl_correctness_reward",
    "toolrl_format_reward",
    "toolrl_reward",
    "GoldenFormatError",
    "call_block_lines",
    "golden_calls",
    "read_calls",
    # reward models, FC-RewardBench, Best-of-n, filtering (rm branch)
    "ERROR_TYPES",
    "IRRELEVANCE_ERROR",
    "JUDGE_PROMPT",
    "MUTATORS",
    "SCORER_HELP",
    "STEP_METHODS",
    "TABLE1_COUNTS",
    "TOOLRM_SYSTEM",
    "BestOfNModel",
    "BfclScorer",
    "HFClassifierScorer",
    "BonRecord",
    "BuildStats",
    "ErrorType",
    "JudgeScorer",
    "OutputScorer",
    "PairVerdict",
    "PairwiseResult",
    "RMTrainConfig",
    "RewardPair",
    "SchemaScorer",
    "assemble",
    "bradley_terry_loss",
    "calls_text",
    "canonical_sequence",
    "classify_error",
    "error_of",
    "full_sequence_match",
    "gold_sequences",
    "draw_all",
    "draw_pool",
    "evaluate",
    "judge_prompt",
    "judge_sample",
    "keep_top",
    "load_base",
    "load_scorer",
    "majority_vote",
    "methods_of",
    "mutate",
    "obfuscate",
    "output_calls",
    "pair_rows",
    "parse_verdict",
    "read_pairs",
    "rm_pick",
    "schema_pick",
    "score_corpus",
    "sft_row",
    "shuffle_tool_keys",
    "table1_targets",
    "to_toolrm_range",
    "toolrm_messages",
    "toolrm_reward",
    "train_reward_model",
    "trl_config",
    "bf16_default",
    # the Appendix tables: FC-RewardBench statistics and the A.9 ablations
    "HIGH_ETA",
    "LARGE_B",
    "SECTIONS",
    "SMALL_B",
    "AblationRow",
    "BenchStats",
    "TrainScore",
    "Variant",
    "bench_stats",
    "dataset_of",
    "generator_size",
    "plan_ablation",
    "run_ablation",
    # scorer kinds by name
    "SCORERS",
    "ScorerKind",
    "ScorerSpec",
    "register_scorer",
    "scorer_help",
]
