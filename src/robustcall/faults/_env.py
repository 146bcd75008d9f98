"""Algorithm 1 as an ``Env`` wrapper: the fault injector sits between the agent and the environment.

For each call: with probability δ it is intercepted and a type f ~ λ is drawn. Execution errors
(and custom fixed messages) replace the call: it does not run and the synthesised observation is
returned. Semantic anomalies let it run and corrupt the real result. Non-stationarity changes the
wrapped environment's interface for the rest of the episode (``tools()`` shows the new one); with a
sticky profile 404 / 401 / 403 persist too (see ``FaultSession``). Every injection is on ``log`` and
on the returned step.
"""

from __future__ import annotations

from dataclasses import dataclass

from robustcall.core import ToolCall, ToolSpec, stable_hash
from robustcall.envs import Env, EnvReset, EnvStep, UserTurns, is_solved
from robustcall.faults._injector import InjectedFault
from robustcall.faults._profile import FaultProfile
from robustcall.faults._session import Blocked, FaultSession


@dataclass(frozen=True)
class FaultedStep(EnvStep):
    """An ``EnvStep`` that carries the injected fault, if any (``Step.fault`` records its dump)."""

    fault: InjectedFault | None = None


EXPERT_STOP = (
    "The tool `{tool}` has been deprecated and removed (HTTP 410 Gone), and no other tool can do what "
    "it did, so I cannot complete the task."
)
"""What the expert says when the tool it needs is gone for the rest of the episode (a graceful failure)."""


def episode_key(env: str, task_id: str, seed: int) -> str:
    """The key of an episode's decision streams (the same episode meets the same draws)."""
    return stable_hash([env, task_id, seed])[:16]


class FaultyEnv:
    """Wraps any ``Env``; speaks the same protocol, plus ``tools()``, ``log`` and ``last_fault``."""

    def __init__(self, env: Env, profile: FaultProfile) -> None:
        self.env = env
        self.profile = profile
        self.name = env.name
        self._session: FaultSession | None = None
        self.last_fault: InjectedFault | None = None

    def task_ids(self) -> list[str]:
        return self.env.task_ids()

    def reset(self, task_id: str, seed: int = 0) -> EnvReset:
        start = self.env.reset(task_id, seed)
        self._session = FaultSession(self.profile, start.tools, key=episode_key(self.env.name, task_id, seed))
        self.last_fault = None
        return start

    @property
    def session(self) -> FaultSession:
        if self._session is None:
            raise RuntimeError("call reset() before step()")
        return self._session

    @property
    def log(self) -> list[InjectedFault]:
        return self.session.log

    def tools(self) -> list[ToolSpec]:
        """The action interface as it is now (after any non-stationarity)."""
        return self.session.tools()

    def step(self, call: ToolCall) -> FaultedStep:
        plan = self.session.plan(call)
        if isinstance(plan, Blocked):
            self.last_fault = plan.fault
            return FaultedStep(observation=plan.fault.observation, fault=plan.fault)
        real = self.env.step(plan.call)
        shown, fault = self.session.finish(plan, real.observation)
        fault = fault or getattr(real, "fault", None)  # a wrapped environment's own (runtime-axis) fault
        self.last_fault = fault
        return FaultedStep(observation=shown, done=real.done, error=real.error, fault=fault)

    def answer(self, text: str) -> EnvStep | None:
        """The next user turn, when the wrapped environment has several (never faulted)."""
        return self.env.answer(text) if isinstance(self.env, UserTurns) else None

    def score(self) -> float:
        return self.env.score()

    def solved(self) -> bool:
        return is_solved(self.env)

    def expert_action(self) -> ToolCall | None:
        """The expert's next action, written for the interface as it is now; ``None`` when it is done,
        or when the tool it needs was removed (``expert_stop`` then says why)."""
        action = self.env.expert_action()
        if action is None or self.expert_stop() is not None:
            return None
        return self.session.to_current(action)

    def expert_action_at_reset(self) -> ToolCall | None:
        """The expert's next action as written for the interface shown at reset (no adaptation)."""
        return self.env.expert_action()

    def expert_stop(self) -> str | None:
        """Why the expert cannot go on (its next action needs a tool that was removed), else ``None``."""
        action = self.env.expert_action()
        if action is None or action.name not in self.session.removed_tools():
            return None
        return EXPERT_STOP.format(tool=action.name)
