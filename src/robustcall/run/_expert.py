"""``scripted:expert`` for fault runs: a stand-in model that plays the environment's own expert.

Each episode gets a model bound to its (wrapped) environment; every request is answered with the
environment's ``expert_action()`` as a structured call (fc mode), and with a text answer once the
expert has nothing left to do. Under fault injection the wrapper writes the expert's action for the
interface as it is now, so the expert's success rate at δ = 0 is the ceiling a fault run can reach.
"""

from __future__ import annotations

from typing import Protocol

from robustcall.core import ToolCall
from robustcall.models import Mode as ModelMode
from robustcall.models import ModelRequest, ModelResponse

EXPERT_SPEC = "scripted:expert"


class _HasExpert(Protocol):
    def expert_action(self) -> ToolCall | None: ...


class EnvExpertModel:
    """The environment's expert as a ``ChatModel`` (bind it to each episode's environment)."""

    mode: ModelMode = "fc"
    name = EXPERT_SPEC

    def __init__(self, env: _HasExpert | None = None) -> None:
        self.env = env

    def bind(self, env: _HasExpert) -> EnvExpertModel:
        return EnvExpertModel(env)

    async def complete(self, req: ModelRequest) -> ModelResponse:
        if self.env is None:
            raise RuntimeError("bind the expert to an environment first")
        action = self.env.expert_action()
        if action is None:
            return ModelResponse(text="Done.", tool_calls=[])
        return ModelResponse(text="", tool_calls=[action])

    async def aclose(self) -> None:
        return None
