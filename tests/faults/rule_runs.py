"""Scripted runs on the shop environment for docs/faults.md's before/after of issue 35 (not a test).

``python tests/faults/rule_runs.py OUT`` writes one run directory per scripted agent under OUT (the
default profile, δ = 0, 0.3 and 0.5, tasks lamp and mug, seeds 0-49); ``robustcall faults report``
reads them with any version of the metrics.
"""

from __future__ import annotations

import sys
from pathlib import Path

from policies import Policy, Turn, diagnose_and_retry, misdiagnose_and_retry, retry_once, run_episode
from shop_env import ShopEnv

from robustcall.core import ToolCall, write_jsonl
from robustcall.faults import FaultyEnv, load_profile

GARBLED = '<tool_call>\n{"name": "buy", "parameters": {"item_id": '


def repeater(env: FaultyEnv, history: list[Turn]) -> tuple[str, ToolCall | None]:
    """The expert's calls, written for the interface shown at reset; after a fault, the failed call again."""
    last = history[-1] if history else None
    if last is not None and last.fault is not None and last.call is not None:
        return "", last.call
    action = env.expert_action_at_reset()
    return ("", action) if action is not None else ("Done.", None)


def garbler(env: FaultyEnv, history: list[Turn]) -> tuple[str, ToolCall | None]:
    """The expert, but after a fault it writes a broken tool call."""
    if history and history[-1].fault is not None:
        return GARBLED, None
    action = env.expert_action()
    return ("", action) if action is not None else ("Done.", None)


AGENTS: dict[str, Policy] = {
    "namer": diagnose_and_retry,  # names the error type, retries once, else stops saying why
    "misnamer": misdiagnose_and_retry,  # the same, naming another type
    "vague": retry_once,  # the same, saying only "That call did not work"
    "repeater": repeater,  # the blind repeater: no text; after a fault, the same call again
    "garbler": garbler,  # after a fault: a broken tool call
}


def main(out: Path) -> None:
    for name, policy in AGENTS.items():
        trajs = []
        for delta in (0.0, 0.3, 0.5):
            prof = load_profile("default").with_delta(delta)
            for task in ("lamp", "mug"):
                for seed in range(50):
                    trajs.append(run_episode(FaultyEnv(ShopEnv(), prof), task, policy, seed=seed, model=name))
        (out / name).mkdir(parents=True, exist_ok=True)
        write_jsonl(out / name / "trajectories.jsonl", trajs)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
