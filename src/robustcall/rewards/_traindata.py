"""RM training pairs (§3.3, §4): obfuscated samples, a generator pool's incorrect outputs, one per query.

Obfuscation follows the paper: every function name and every parameter name is replaced by a random
alphanumeric string (7-12 characters, seeded per sample, consistent across the catalog, the gold
calls and any assistant calls in the conversation; whole-word mentions of function names in the
conversation text are replaced too), and the keys of every tool schema are reordered (the tool's
top-level keys, the parameter object's keys and the order of its properties). Pairs are then drawn
exactly as the benchmark's (:func:`robustcall.rewards._rewardbench.assemble`), so the training data and
FC-RewardBench share one definition of "incorrect" and of the error types.
"""

from __future__ import annotations

import random
import re
import string
from typing import Any

from robustcall.core import GoldenAnswer, Message, Sample, ToolCall, ToolSpec, seeded_rng
from robustcall.rewards._types import RewardPair

_ALPHABET = string.ascii_letters + string.digits


def random_name(rng: random.Random, taken: set[str]) -> str:
    """A fresh random identifier (starts with a letter, as most schemas need)."""
    while True:
        name = rng.choice(string.ascii_letters) + "".join(rng.choice(_ALPHABET) for _ in range(rng.randint(6, 11)))
        if name not in taken:
            taken.add(name)
            return name


def _shuffled(d: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    keys = list(d)
    rng.shuffle(keys)
    return {k: d[k] for k in keys}


def _rename_args(args: dict[str, Any], pmap: dict[str, str]) -> dict[str, Any]:
    return {pmap.get(k, k): v for k, v in args.items()}


def obfuscate(sample: Sample, seed: int) -> Sample:
    """``sample`` with random function and parameter names and reordered schema keys."""
    rng = seeded_rng(seed, "obfuscate", sample.id)
    taken: set[str] = set()
    fmap: dict[str, str] = {}
    pmaps: dict[str, dict[str, str]] = {}
    tools: list[ToolSpec] = []
    for tool in sample.tools:
        new = fmap.setdefault(tool.name, random_name(rng, taken))
        pmap = pmaps.setdefault(tool.name, {})
        props = {pmap.setdefault(k, random_name(rng, taken)): v for k, v in tool.properties().items()}
        params = dict(tool.parameters)
        if "properties" in params:
            params["properties"] = _shuffled(props, rng)
        if isinstance(params.get("required"), list):
            params["required"] = [pmap.get(str(r), str(r)) for r in params["required"]]
        tools.append(tool.model_copy(update={"name": new, "parameters": _shuffled(params, rng)}))

    def call(c: ToolCall) -> ToolCall:
        return ToolCall(name=fmap.get(c.name, c.name), arguments=_rename_args(c.arguments, pmaps.get(c.name, {})))

    def gold(g: GoldenAnswer) -> GoldenAnswer:
        pmap = pmaps.get(g.name, {})
        acceptable = None if g.acceptable is None else _rename_args(g.acceptable, pmap)
        return GoldenAnswer(
            name=fmap.get(g.name, g.name), parameters=_rename_args(g.parameters, pmap), acceptable=acceptable
        )

    pattern = (
        re.compile(r"\b(" + "|".join(re.escape(n) for n in sorted(fmap, key=len, reverse=True)) + r")\b")
        if fmap
        else None
    )

    def text(s: str) -> str:
        return pattern.sub(lambda m: fmap[m.group(1)], s) if pattern is not None and s else s

    conversation = [
        Message(
            role=m.role,
            content=text(m.content),
            tool_calls=None if m.tool_calls is None else [call(c) for c in m.tool_calls],
            name=None if m.name is None else fmap.get(m.name, m.name),
        )
        for m in sample.conversation
    ]
    return sample.model_copy(
        update={
            "tools": tools,
            "golden_answers": [gold(g) for g in sample.golden_answers],
            "conversation": conversation,
        }
    )


def shuffle_tool_keys(pair: RewardPair, seed: int) -> RewardPair:
    """The pair with each tool's top-level keys in a seeded order."""
    rng = seeded_rng(seed, "tool keys", pair.test_id)
    return pair.model_copy(update={"tools": [_shuffled(t, rng) for t in pair.tools]})
