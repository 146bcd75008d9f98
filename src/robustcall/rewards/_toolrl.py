"""The ToolRL reward (Qian et al. 2025; ToolRM §5.3.2: R = R_format + R_correctness), exactly.

This module is the one place its rules live.

R_format ∈ {0, 1}: the output must match the regex for the tags the ground truth contains
(``<think>`` always, then ``<tool_call>`` and / or ``<response>``), each of those tags exactly once:

- tool call only:      ``^<think>.*?</think>\\n<tool_call>\\n.*?\\n</tool_call>$``
- response only:       ``^<think>.*?</think>\\n<response>.*?</response>$``
- tool call + response: ``^<think>.*?</think>\\n<tool_call>\\n.*?\\n</tool_call>\\n<response>.*?</response>$``
- neither:             ``^<think>.*?</think>$``

R_correctness ∈ [-3, 3]:

- 0 when the ground truth has no ``<tool_call>``;
- -3 when the output lacks ``<tool_call>`` or ``</tool_call>``, or a line of its call block is not a
  JSON object with a string ``name`` and an object ``parameters`` (calls are the lines of the first
  block, split on ``\n`` after stripping the block; ToolRL's code raises, and so scores -3, on such a
  call when it reaches it; we reject it up front, which differs only for malformed calls);
- +3 when the predicted call list equals the golden one (same order, same values);
- otherwise ``(3 - (-3)) * S / S_max + (-3)`` with
  ``S = match(golden names, predicted names) + Σ_golden best_same_name(key match + #equal values)``
  and ``S_max = 1 + Σ_golden (1 + #golden params)``, where ``match`` is the multiset Jaccard
  ``|A ∩ B| / (|A| + |B| - |A ∩ B|)`` (1 for equal lists, 0 when either is empty) and each golden
  call takes the unused same-name predicted call with the highest positive score.

Worked example: one golden call with one parameter, predicted with the right name and key but a
wrong value: S = 1 (names) + 1 (keys) + 0 (values) = 2, S_max = 1 + (1 + 1) = 3, R = 6·2/3 - 3 = +1.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any

from robustcall.core import InputError

FORMAT_MAX = 1.0
FORMAT_MIN = 0.0
CORRECTNESS_MAX = 3.0
CORRECTNESS_MIN = -3.0

_FORMAT_PATTERNS: dict[tuple[bool, bool], str] = {
    (True, False): r"^<think>.*?</think>\n<tool_call>\n.*?\n</tool_call>$",
    (False, True): r"^<think>.*?</think>\n<response>.*?</response>$",
    (True, True): r"^<think>.*?</think>\n<tool_call>\n.*?\n</tool_call>\n<response>.*?</response>$",
    (False, False): r"^<think>.*?</think>$",
}
_ONCE: dict[tuple[bool, bool], tuple[str, ...]] = {
    (True, False): ("<tool_call>", "</tool_call>"),
    (False, True): ("<response>", "</response>"),
    (True, True): ("<tool_call>", "</tool_call>", "<response>", "</response>"),
    (False, False): (),
}


class GoldenFormatError(InputError):
    """The ground truth's ``<tool_call>`` block is not one JSON call per line."""


def toolrl_format_reward(output: str, ground_truth: str) -> float:
    """R_format ∈ {0, 1} (see the module doc for the four patterns)."""
    key = ("<tool_call>" in ground_truth, "<response>" in ground_truth)
    if re.search(_FORMAT_PATTERNS[key], output, re.DOTALL) and all(output.count(tag) == 1 for tag in _ONCE[key]):
        return FORMAT_MAX
    return FORMAT_MIN


def call_block_lines(text: str) -> list[str] | None:
    """The lines of the first ``<tool_call>…</tool_call>`` block, stripped as a whole, as ToolRL
    splits them; ``None`` when either tag is missing."""
    if "<tool_call>" not in text or "</tool_call>" not in text:
        return None
    block = text.split("<tool_call>")[1].split("</tool_call>")[0].strip()
    return block.split("\n")


def read_calls(text: str) -> list[dict[str, Any]] | None:
    """ToolRL's reading of a call block: one JSON object with ``name`` (str) and ``parameters``
    (object) per line; ``None`` on a missing tag, a JSON error or a malformed call."""
    lines = call_block_lines(text)
    if lines is None:
        return None
    calls: list[dict[str, Any]] = []
    for line in lines:
        try:
            obj = json.loads(line)
        except json.JSONDecodeError:
            return None
        if not isinstance(obj, dict) or not isinstance(obj.get("name"), str):
            return None
        if not isinstance(obj.get("parameters"), dict):
            return None
        calls.append(obj)
    return calls


def golden_calls(ground_truth: str) -> list[dict[str, Any]]:
    """The golden calls of a ground truth (``[]`` when it has no ``<tool_call>``)."""
    if "<tool_call>" not in ground_truth:
        return []
    calls = read_calls(ground_truth)
    if calls is None:
        raise GoldenFormatError(f"ground truth has an unreadable <tool_call> block: {ground_truth[:200]!r}")
    return calls


def match_score(a: list[Any], b: list[Any]) -> float:
    """Multiset Jaccard of two lists: 1 when equal, 0 when either is empty."""
    if a == b:
        return 1.0
    if not a or not b:
        return 0.0
    ca, cb = Counter(a), Counter(b)
    inter = sum(min(ca[k], cb[k]) for k in ca.keys() & cb.keys())
    union = len(a) + len(b) - inter
    return inter / union if union > 0 else 0.0


def partial_score(golden: list[dict[str, Any]], predicted: list[dict[str, Any]]) -> tuple[float, float]:
    """(S, S_max) of the partial-credit rule."""
    score = match_score([g["name"] for g in golden], [p["name"] for p in predicted])
    max_score = 1.0
    used: set[int] = set()
    for gold in golden:
        gparams: dict[str, Any] = gold["parameters"]
        max_score += 1.0 + len(gparams)
        best, best_i = 0.0, -1
        for i, pred in enumerate(predicted):
            if i in used or pred["name"] != gold["name"]:
                continue
            pparams: dict[str, Any] = pred["parameters"]
            keys = match_score(list(gparams), list(pparams))
            values = sum(1.0 for k, v in gparams.items() if k in pparams and pparams[k] == v)
            if keys + values > best:
                best, best_i = keys + values, i
        if best_i >= 0:
            used.add(best_i)
            score += best
    return score, max_score


def toolrl_correctness_reward(output: str, ground_truth: str) -> float:
    """R_correctness ∈ [-3, 3] (see the module doc)."""
    if "<tool_call>" not in ground_truth:
        return 0.0
    golden = golden_calls(ground_truth)
    predicted = read_calls(output)
    if predicted is None:
        return CORRECTNESS_MIN
    if predicted == golden:
        return CORRECTNESS_MAX
    score, max_score = partial_score(golden, predicted)
    return (CORRECTNESS_MAX - CORRECTNESS_MIN) * score / max_score + CORRECTNESS_MIN


def toolrl_reward(output: str, ground_truth: str) -> float:
    """R_ToolRL = R_format + R_correctness ∈ [-3, 4]."""
    return toolrl_format_reward(output, ground_truth) + toolrl_correctness_reward(output, ground_truth)
