"""Reward models and rewards for tool calls: FC-RewardBench, RM / judge scorers, Best-of-n,
filtering, and the RL rewards (R_schema, R_ToolRL, R_ToolRM, format)."""

from robustcall.rewards._schema import schema_reward, schema_violations
from robustcall.rewards._toolrl import toolrl_correctness_reward, toolrl_format_reward, toolrl_reward

__all__ = [
    "schema_reward",
    "schema_violations",
    "toolrl_correctness_reward",
    "toolrl_format_reward",
    "toolrl_reward",
]
