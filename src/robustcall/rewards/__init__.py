"""Reward models and rewards for tool calls: FC-RewardBench, RM / judge scorers, Best-of-n,
filtering, and the RL rewards (R_schema, R_ToolRL, R_ToolRM, format)."""

from robustcall.rewards._schema import schema_reward, schema_violations

__all__ = ["schema_reward", "schema_violations"]
