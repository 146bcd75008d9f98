"""Appendix N's runtime axes (beyond the paper) as an ``Env`` wrapper: stale resources, prerequisite
dependencies and strict parameter types. They are behaviours of the environment, not draws of the
injector: every occurrence is recorded as a fault (``Step.fault``) so the recovery metrics apply.

- ``stale_resource`` (vscode#296892): after a successful write, the first read whose result the write
  changed returns the result as it was before the write; an identical read after that is fresh.
- ``prerequisite`` (langchain#36503, langgraph#7117): writes fail, in the environment's own idiom,
  until the added ``authenticate`` tool has been called ("its prerequisite tool was not called").
- ``prerequisite_error``: the same, and the first ``authenticate`` call returns an error and starts
  no session ("or returned an error the agent failed to inspect"): an agent that does not read it
  goes on to a write that fails; one that reads it calls ``authenticate`` again.
- ``param_type_mismatch`` (pfsense-mcp-server#7, gsd-2#3361): arguments are checked strictly against
  the tool's JSON-schema types; a wrong type gets a typed HTTP 422 error and the call does not run.

Reads and writes: a call is a read when its name starts with a read verb (``get``, ``list``, ``ls``,
``cat``, ``inventory``...) or it runs a read-only SQL statement; everything else is a write. An
environment names the actions that change state although their verb reads in ``write_actions``
(TextCraft's ``get`` adds the item to the inventory): those are writes.
The expert acts on the true state: stale reads cost it nothing, the prerequisite costs it exactly
one extra call, and its calls are well typed.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from robustcall.core import AXES, AXIS_FAULT_TYPES, Axis, ToolCall, ToolSpec, canonical_json, is_read
from robustcall.envs import Env, EnvReset, EnvStep, UserTurns, is_solved
from robustcall.faults._injector import InjectedFault

PREREQUISITE_TOOL = ToolSpec(
    name="authenticate",
    description="Start an authenticated session. Must be called once before any action that changes state.",
    parameters={"type": "object", "properties": {}, "required": []},
)
PREREQUISITE_OK = "Authenticated: session started."
PREREQUISITE_FAILED = (
    "Authentication failed: the identity service did not confirm the session, so none was started. "
    "You are not authenticated."
)
"""What the first ``authenticate`` call answers under ``prerequisite_error``."""
PREREQUISITE_MESSAGES: dict[str, str] = {
    "bfcl_multi_turn": '{{"error": "Authentication required: call authenticate() before {tool}()."}}',
    "dbbench": "(1045, \"Access denied for user 'agent': call authenticate before {tool}\")",
    "textcraft": "Could not {tool}: you are not authenticated. Call authenticate first.",
}
"""The missing-prerequisite error in each environment's own idiom (``{tool}``: the refused action)."""
PREREQUISITE_DEFAULT = "Error: {tool} requires an authenticated session; call authenticate first."

_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "float": (int, float),
    "boolean": (bool,),
    "array": (list, tuple),
    "tuple": (list, tuple),
    "object": (dict,),
    "dict": (dict,),
}


def type_error(tool: ToolSpec, call: ToolCall) -> str | None:
    """The typed error for the first argument whose value does not have its schema type."""
    for param, value in call.arguments.items():
        prop = tool.properties().get(param)
        kind = prop.get("type") if isinstance(prop, dict) else None
        if not isinstance(kind, str) or kind not in _JSON_TYPES:
            continue
        numeric = kind in ("integer", "number", "float")
        if isinstance(value, _JSON_TYPES[kind]) and not (numeric and isinstance(value, bool)):
            continue
        got = type(value).__name__
        return (
            f"HTTP 422 Unprocessable Entity: parameter `{param}` of `{call.name}` must be of type {kind}, "
            f"got {got} {json.dumps(value, ensure_ascii=False, default=str)}."
        )
    return None


@dataclass(frozen=True)
class AxisStep(EnvStep):
    """An ``EnvStep`` carrying the axis fault that shaped it, if any."""

    fault: InjectedFault | None = None


class AxisEnv:
    """Wraps any ``Env`` with the chosen runtime axes; speaks the same protocol."""

    def __init__(self, env: Env, axes: Sequence[Axis]) -> None:
        unknown = [a for a in axes if a not in AXES]
        if unknown:
            raise ValueError(f"unknown runtime axis {', '.join(unknown)}; valid: {', '.join(AXES)}")
        self.env = env
        self.axes = tuple(axes)
        self.name = env.name
        self._tools: dict[str, ToolSpec] = {}
        self._reads: dict[str, str] = {}
        """Read call -> its latest fresh result."""
        self._before_write: dict[str, str] = {}
        """Read call -> its result before the last write, served once when the write changed it."""
        self._authenticated = False
        self._auth_failed = False
        """``prerequisite_error``: the first ``authenticate`` call has already failed."""
        self._calls = 0
        self._writes = frozenset(getattr(env, "write_actions", ()))
        """Actions that change state though their verb reads (``Env.write_actions``)."""
        self._first: dict[str, int] = {}
        """(axis, tool or call) -> the step it first refused (later refusals are repeats, as in Algorithm 1's log)."""
        self.log: list[InjectedFault] = []

    def is_read(self, call: ToolCall) -> bool:
        """``call`` only reads state (``core.is_read``, less the environment's ``write_actions``)."""
        return call.name not in self._writes and is_read(call)

    @property
    def _needs_auth(self) -> bool:
        return "prerequisite" in self.axes or "prerequisite_error" in self.axes

    def task_ids(self) -> list[str]:
        return self.env.task_ids()

    def reset(self, task_id: str, seed: int = 0) -> EnvReset:
        start = self.env.reset(task_id, seed)
        self._reads, self._before_write, self._authenticated, self._calls = {}, {}, False, 0
        self._auth_failed = False
        self._first, self.log = {}, []
        tools = list(start.tools)
        if self._needs_auth:
            tools.append(PREREQUISITE_TOOL)
        self._tools = {t.name: t for t in tools}
        return EnvReset(instruction=start.instruction, observation=start.observation, tools=tools)

    def _fault(self, code: str, call: ToolCall, observation: str, **detail: Any) -> InjectedFault:
        ftype = AXIS_FAULT_TYPES[code]
        step = self._calls - 1
        sticky = {"tool": call.name, "call": canonical_json([call.name, call.arguments])}.get(ftype.scope)
        first = self._first.setdefault(f"{code}/{sticky}", step) if sticky is not None else step
        fault = InjectedFault(
            step=step,
            tool=call.name,
            fault_type=code,
            fault_class=ftype.fault_class,
            transient=ftype.transient,
            observation=observation,
            executed=ftype.effect == "transform",
            repeat_of=first if first != step else None,
            persists=ftype.scope != "none",
            detail=detail,
        )
        self.log.append(fault)
        return fault

    def step(self, call: ToolCall) -> AxisStep:
        self._calls += 1
        if self._needs_auth:
            if call.name == PREREQUISITE_TOOL.name:
                if "prerequisite_error" in self.axes and not self._auth_failed and not self._authenticated:
                    self._auth_failed = True
                    fault = self._fault("prerequisite_error", call, PREREQUISITE_FAILED)
                    return AxisStep(observation=PREREQUISITE_FAILED, error=True, fault=fault)
                self._authenticated = True
                return AxisStep(observation=PREREQUISITE_OK)
            if (
                not self._authenticated and call.name in self._tools and not self.is_read(call)
            ):  # unknown: the env says so
                template = getattr(self.env, "prerequisite_message", PREREQUISITE_MESSAGES.get(self.name))
                text = str(template or PREREQUISITE_DEFAULT).format(tool=call.name)
                return AxisStep(observation=text, error=True, fault=self._fault("prerequisite", call, text))
        spec = self._tools.get(call.name)
        if "param_type_mismatch" in self.axes and spec is not None:
            problem = type_error(spec, call)
            if problem is not None:
                fault = self._fault("param_type_mismatch", call, problem)
                return AxisStep(observation=problem, error=True, fault=fault)
        real = self.env.step(call)
        if "stale_resource" not in self.axes:
            return AxisStep(observation=real.observation, done=real.done, error=real.error)
        key = canonical_json([call.name, call.arguments])
        if not self.is_read(call):
            if not real.error:
                self._before_write = dict(self._reads)
            return AxisStep(observation=real.observation, done=real.done, error=real.error)
        stale = self._before_write.pop(key, None)
        self._reads[key] = real.observation
        if stale is None or stale == real.observation or real.error:
            return AxisStep(observation=real.observation, done=real.done, error=real.error)
        fault = self._fault("stale_resource", call, stale, real_observation=real.observation)
        return AxisStep(observation=stale, done=real.done, error=False, fault=fault)

    def answer(self, text: str) -> EnvStep | None:
        return self.env.answer(text) if isinstance(self.env, UserTurns) else None

    def score(self) -> float:
        return self.env.score()

    def solved(self) -> bool:
        return is_solved(self.env)

    def expert_action(self) -> ToolCall | None:
        action = self.env.expert_action()
        if action is None or not self._needs_auth or self._authenticated or self.is_read(action):
            return action
        return ToolCall(name=PREREQUISITE_TOOL.name)


def with_axes(make_env: Callable[[], Env], axes: Sequence[Axis]) -> Callable[[], Env]:
    """A factory of ``make_env``'s environments wrapped with ``axes`` (unchanged when there are none)."""
    if not axes:
        return make_env
    return lambda: AxisEnv(make_env(), axes)


def parse_axes(spec: str | None) -> list[Axis]:
    """A comma list of runtime axes (``all`` for every one); unknown names raise ``ValueError``."""
    if not spec:
        return []
    names = list(AXES) if spec.strip() == "all" else [p.strip() for p in spec.split(",") if p.strip()]
    unknown = [n for n in names if n not in AXES]
    if unknown:
        raise ValueError(f"unknown runtime axis {', '.join(unknown)}; valid: {', '.join(AXES)} or all")
    return [a for a in AXES if a in names]
