"""GRPO reward functions chosen by name, in TRL's reward-function signature.

TRL calls ``fn(prompts=..., completions=..., completion_ids=..., **columns)`` and logs each
function under its ``__name__``. Our GRPO datasets carry the columns ``ground_truth`` (ToolRL's
reference output) and ``tools`` (a JSON list of tool specs), see ``_grpo_data``.

- ``toolrl_format``: ToolRL's R_format ∈ {0, 1};
- ``toolrl_correctness``: ToolRL's R_correctness ∈ [-3, 3] (needs ground truth);
- ``schema``: R_schema ∈ {-1, 1} (ToolRM §5.3.2) on the calls read by ToolRL's rule (unreadable: -1);
- ``toolrm``: R_ToolRM ∈ [-3, 3] from a reward model (``robustcall.rewards.load_scorer(spec)``).
  The reward model sees exactly the input it was trained on, Listing 1: its own system turn
  (instructions and the tool catalog), the conversation, the completion's calls. The policy's
  system turn (Listing 3: the policy's instructions and its tool list) is not part of that input and
  is dropped; the tools reach the RM through Listing 1's catalog (the ``tools`` column).

ToolRL's recipe is ``toolrl_format`` + ``toolrl_correctness``; the ToolRM paper's variants replace
the correctness term by ``schema`` or ``toolrm``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from robustcall.core import Message, ToolCall, ToolSpec
from robustcall.rewards import (
    OutputScorer,
    load_scorer,
    read_calls,
    schema_reward,
    toolrl_correctness_reward,
    toolrl_format_reward,
    toolrm_reward,
)

RewardFn = Callable[..., list[float]]
RewardFactory = Callable[[str | None], RewardFn]
"""Builds a reward function; its argument is the ``toolrm`` scorer spec (``--toolrm-scorer``), if any."""

REWARDS: dict[str, RewardFactory] = {}
"""GRPO reward functions by name, in registration order (``register_reward`` adds one)."""


def register_reward(name: str, factory: RewardFactory) -> RewardFactory:
    """Register (or replace) the reward function ``name``."""
    REWARDS[name] = factory
    return factory


DEFAULT_REWARDS = ("toolrl_format", "toolrl_correctness")


def completion_text(completion: Any) -> str:
    """The text of a TRL completion (a string, or a conversational list ending in the assistant turn)."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, list) and completion:
        last = completion[-1]
        return str(last.get("content", "")) if isinstance(last, dict) else str(last)
    return ""


def _tools(raw: Any) -> list[ToolSpec]:
    data = json.loads(raw) if isinstance(raw, str) else raw
    return [ToolSpec.model_validate(t) for t in data or []]


def toolrl_format(completions: list[Any], ground_truth: list[str], **_: Any) -> list[float]:
    return [toolrl_format_reward(completion_text(c), gt) for c, gt in zip(completions, ground_truth, strict=True)]


def toolrl_correctness(completions: list[Any], ground_truth: list[str], **_: Any) -> list[float]:
    return [toolrl_correctness_reward(completion_text(c), gt) for c, gt in zip(completions, ground_truth, strict=True)]


def schema(completions: list[Any], tools: list[Any], **_: Any) -> list[float]:
    out = []
    for c, raw in zip(completions, tools, strict=True):
        calls = read_calls(completion_text(c))
        parsed = None if calls is None else [ToolCall(name=x["name"], arguments=x["parameters"]) for x in calls]
        out.append(schema_reward(parsed, _tools(raw)))
    return out


def rm_conversation(prompt: Any) -> list[Message]:
    """The conversation a reward model scores: the policy's prompt without its system turn(s)."""
    if isinstance(prompt, str):
        return [Message(role="user", content=prompt)]
    return [Message(role=m["role"], content=str(m.get("content", ""))) for m in prompt if m["role"] != "system"]


def toolrm_fn(scorer: str | OutputScorer) -> RewardFn:
    """R_ToolRM with ``scorer`` (an ``OutputScorer`` or a ``load_scorer`` spec); the completions of one
    prompt are scored together, on Listing 1 (``rm_conversation``: no policy system turn)."""
    rm = load_scorer(scorer) if isinstance(scorer, str) else scorer

    def toolrm(prompts: list[Any], completions: list[Any], tools: list[Any], **_: Any) -> list[float]:
        out: list[float] = []
        i = 0
        while i < len(prompts):
            j = i
            while j < len(prompts) and prompts[j] == prompts[i]:
                j += 1
            texts = [completion_text(c) for c in completions[i:j]]
            scores = toolrm_reward(rm, rm_conversation(prompts[i]), _tools(tools[i]), texts)
            out.extend(float(s) for s in scores)
            i = j
        return out

    return toolrm


def _toolrm(toolrm_scorer: str | None) -> RewardFn:
    if not toolrm_scorer:
        raise ValueError("the toolrm reward needs a scorer spec (--toolrm-scorer)")
    return toolrm_fn(toolrm_scorer)


register_reward("toolrl_format", lambda _: toolrl_format)
register_reward("toolrl_correctness", lambda _: toolrl_correctness)
register_reward("schema", lambda _: schema)
register_reward("toolrm", _toolrm)

REWARD_NAMES = tuple(REWARDS)
"""The built-in reward functions' names (``REWARDS`` holds those registered later too)."""


def reward_functions(names: list[str], toolrm_scorer: str | None = None) -> list[RewardFn]:
    """The reward functions for ``names`` (registered in ``REWARDS``), in order."""
    out: list[RewardFn] = []
    for name in names:
        factory = REWARDS.get(name)
        if factory is None:
            raise ValueError(f"unknown reward {name!r}; valid: {', '.join(REWARDS)}")
        out.append(factory(toolrm_scorer))
    return out
