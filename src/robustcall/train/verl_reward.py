"""The GRPO reward of ``robustcall train grpo``, as a veRL custom reward function.

veRL loads it through its own mechanism (``reward.custom_reward_function.path`` = this file,
``name`` = ``compute_score``; ``robustcall train verl`` writes both) and calls
``compute_score(data_source, solution_str, ground_truth, extra_info)`` once per rollout. The value is
the sum of the reward functions ``train grpo`` would use for the same recipe (``REWARDS``, the one
registry): R_format + R_ToolRL correctness by default, R_schema or R_ToolRM as the ToolRM paper's
variants. ``compute_score_batch`` is the same reward for veRL's ``batch`` reward manager (the
completions of one prompt reach a ToolRM scorer together).

Which functions are summed comes from ``reward.custom_reward_function.reward_kwargs``:
``rewards`` (a list of names, default ``[toolrl_format, toolrl_correctness]``) and
``toolrm_scorer`` (a ``robustcall.rewards.load_scorer`` spec, e.g.
``pooling:toolrm@http://127.0.0.1:8001`` for a reward model served by vLLM).

The prompt is rebuilt from the row's ``extra_info`` (``instruction`` = the system turn with the tool
list, ``input`` = the user turn), which ``train dr-data`` and ToolRL's rlla rows both carry: the tools
for R_schema and Listing 1 for R_ToolRM come from there, exactly as ``train grpo`` reads its rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any

from robustcall.train._grpo_data import grpo_row
from robustcall.train._rewards import DEFAULT_REWARDS, RewardFn, reward_functions


def _names(rewards: Any) -> tuple[str, ...]:
    if rewards is None:
        return DEFAULT_REWARDS
    if isinstance(rewards, str):
        return tuple(r.strip() for r in rewards.split(",") if r.strip())
    return tuple(str(r) for r in rewards)


@cache
def _functions(names: tuple[str, ...], toolrm_scorer: str | None) -> list[tuple[str, RewardFn]]:
    # built once per process: a ToolRM scorer (an HTTP client or a loaded model) is reused
    return list(zip(names, reward_functions(list(names), toolrm_scorer), strict=True))


def _row(ground_truth: str, extra_info: dict[str, Any] | None) -> dict[str, Any]:
    info = dict(extra_info or {})
    prompt = [
        {"role": "system", "content": str(info.get("instruction", ""))},
        {"role": "user", "content": str(info.get("input", ""))},
    ]
    return grpo_row({"prompt": prompt, "reward_model": {"ground_truth": ground_truth}, "extra_info": info}, "veRL row")


def score_rows(
    solutions: Sequence[str],
    ground_truths: Sequence[str],
    extra_infos: Sequence[dict[str, Any] | None],
    *,
    rewards: Any = None,
    toolrm_scorer: str | None = None,
) -> list[dict[str, float]]:
    """Each completion's reward terms and their sum (``score``), as ``train grpo`` computes them."""
    rows = [_row(str(gt), info) for gt, info in zip(ground_truths, extra_infos, strict=True)]
    columns = {
        "prompts": [r["prompt"] for r in rows],
        "completions": list(solutions),
        "ground_truth": [r["ground_truth"] for r in rows],
        "tools": [r["tools"] for r in rows],
    }
    out: list[dict[str, float]] = [{} for _ in rows]
    for name, fn in _functions(_names(rewards), toolrm_scorer):
        for terms, value in zip(out, fn(**columns), strict=True):
            terms[name] = float(value)
    for terms in out:
        terms["score"] = sum(terms.values())
    return out


def compute_score(
    data_source: str,
    solution_str: str,
    ground_truth: str,
    extra_info: dict[str, Any] | None = None,
    *,
    rewards: Any = None,
    toolrm_scorer: str | None = None,
    **_: Any,
) -> dict[str, float]:
    """veRL's per-rollout reward: ``{"score": total, <term>: value, ...}`` (veRL logs every key)."""
    return score_rows([solution_str], [ground_truth], [extra_info], rewards=rewards, toolrm_scorer=toolrm_scorer)[0]


def compute_score_batch(
    data_sources: Sequence[str],
    solution_strs: Sequence[str],
    ground_truths: Sequence[str],
    extra_infos: Sequence[dict[str, Any] | None],
    *,
    rewards: Any = None,
    toolrm_scorer: str | None = None,
    **_: Any,
) -> list[dict[str, float]]:
    """The same reward for veRL's ``batch`` reward manager (one call per batch)."""
    return score_rows(solution_strs, ground_truths, extra_infos, rewards=rewards, toolrm_scorer=toolrm_scorer)
