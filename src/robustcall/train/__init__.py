"""Training data and recipes on existing engines: ToolRL-DR data (§5), GRPO through TRL with the
ToolRL / schema / ToolRM rewards, recovery SFT on fault-injection tuples, and PIPE's trajectory SFT
(paper 002, Appendix K) on ``pipe run`` trajectories.

Heavy libraries (torch, transformers, TRL, datasets) are imported inside the functions that use
them, so importing this package stays cheap.
"""

from robustcall.train._dr import DrResult, dr_full, dr_mixed, uniform_within_one
from robustcall.train._dr_data import MANIFEST, build_dr_data
from robustcall.train._grpo import RECIPES, GrpoSettings, run_grpo
from robustcall.train._grpo_data import grpo_rows
from robustcall.train._io import load_rows, save_rows
from robustcall.train._pipe_sft import PipeSftSettings, run_pipe_sft
from robustcall.train._rewards import (
    DEFAULT_REWARDS,
    REWARD_NAMES,
    REWARDS,
    RewardFactory,
    RewardFn,
    register_reward,
    reward_functions,
)
from robustcall.train._rlla import RllaItem, parse_row, read_items, read_rows, render_row
from robustcall.train._sft import SftSettings, run_sft
from robustcall.train._verl import VerlLaunch, missing_for_launch
from robustcall.train._verl import command as verl_command
from robustcall.train._verl import compose as compose_verl
from robustcall.train._verl import overrides as verl_overrides
from robustcall.train._verl import shell_script as verl_script

__all__ = [
    "DEFAULT_REWARDS",
    "MANIFEST",
    "RECIPES",
    "REWARDS",
    "REWARD_NAMES",
    "DrResult",
    "GrpoSettings",
    "PipeSftSettings",
    "RewardFactory",
    "RewardFn",
    "RllaItem",
    "SftSettings",
    "VerlLaunch",
    "build_dr_data",
    "compose_verl",
    "dr_full",
    "dr_mixed",
    "grpo_rows",
    "load_rows",
    "missing_for_launch",
    "parse_row",
    "read_items",
    "read_rows",
    "register_reward",
    "render_row",
    "reward_functions",
    "run_grpo",
    "run_pipe_sft",
    "run_sft",
    "save_rows",
    "uniform_within_one",
    "verl_command",
    "verl_overrides",
    "verl_script",
]
