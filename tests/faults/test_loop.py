"""The fault-aware episode loop: transcript shape per mode, faults on steps, the CoT variant."""

from __future__ import annotations

import asyncio
import json

from shop_env import ShopEnv

from robustcall.core import ToolCall
from robustcall.faults import FaultProfile, FaultyEnv
from robustcall.models import ModelRequest, ModelResponse
from robustcall.run._episode import COT_PROMPT, run_episode

SEARCH = ToolCall(name="search", arguments={"query": "lamp"})
BUY = ToolCall(name="buy", arguments={"item_id": "L2"})


class Script:
    """A model that writes fixed replies in order and keeps every request it got."""

    def __init__(self, mode: str, replies: list[str]) -> None:
        self.name, self.mode, self.replies, self.requests = "script", mode, list(replies), []

    async def complete(self, req: ModelRequest) -> ModelResponse:
        self.requests.append(req)
        text = self.replies.pop(0)
        if self.mode == "fc":
            calls = [ToolCall.model_validate(json.loads(text))] if text.startswith("{") else []
            return ModelResponse(text="" if calls else text, tool_calls=calls)
        return ModelResponse(text=text, tool_calls=None)

    async def aclose(self) -> None:
        return None


def _tc(call: ToolCall) -> str:
    return "<tool_call>\n" + json.dumps({"name": call.name, "parameters": call.arguments}) + "\n</tool_call>"


def test_prompt_mode_episode_with_a_renamed_parameter() -> None:
    env = FaultyEnv(ShopEnv(), FaultProfile(delta=1.0, faults={"param_renamed": 1}, at_calls=[0]))
    adapted = ToolCall(name="search", arguments={"query_v2": "lamp"})
    model = Script("prompt", [_tc(SEARCH), _tc(adapted), _tc(BUY)])
    traj = asyncio.run(run_episode(model, env, "lamp", fmt="tool_call", prompt="cot"))  # type: ignore[arg-type]
    assert traj.success and traj.termination == "done" and len(traj.steps) == 3
    assert traj.steps[0].fault is not None and traj.steps[0].fault["fault_type"] == "param_renamed"
    # the keys Step.fault's docstring names
    keys = {"fault_type", "fault_class", "transient", "observation", "repeat_of", "executed"}
    assert keys <= set(traj.steps[0].fault)
    assert traj.steps[1].fault is None and traj.steps[1].executed == adapted
    system = traj.messages[0].content
    assert COT_PROMPT in system and "1. Name: search" in system
    assert traj.messages[3].role == "user" and traj.messages[3].content.startswith("<obs>HTTP 400 Bad Request.")


def test_fc_mode_sees_the_changed_interface_and_ends_on_text() -> None:
    env = FaultyEnv(ShopEnv(), FaultProfile(delta=1.0, faults={"tool_deprecated": 1}, at_calls=[0], sticky=True))
    model = Script("fc", [json.dumps({"name": "search", "arguments": {"query": "lamp"}}), "The search tool is gone."])
    traj = asyncio.run(run_episode(model, env, "lamp"))  # type: ignore[arg-type]
    assert traj.termination == "no_action" and traj.success is False
    assert [t.name for t in model.requests[1].tools] == ["buy"]  # the deprecated tool left the list
    assert [m.role for m in traj.messages] == ["system", "user", "assistant", "tool", "assistant"]
    assert traj.messages[3].content.startswith("HTTP 410 Gone.")
