"""One episode of fault injection: decisions plus the state persisting faults leave behind.

Shared by the environment wrapper (``FaultyEnv``) and the MCP proxy: both ask ``plan`` what to do
with a call (answer with a fault, or run a possibly translated call) and hand real results to
``finish``, which corrupts them when a semantic anomaly was drawn.

Algorithm 1's ``inject_fault ~ Bernoulli(δ)`` decides on every call *whether* a fault is injected.
What an injected fault leaves behind depends on its class (§3.1):

- environmental non-stationarity persists for the rest of the episode: a deprecated tool "becomes
  permanently unavailable" (it leaves ``tools()`` and every later call of it is answered with the
  same 410), a renamed or newly required parameter is a changed "specification" (``tools()`` shows
  it; calls written against the old interface are rejected, calls against the new one are
  translated back before they run);
- execution errors and semantic anomalies are observations of the call they were drawn for: the
  next call draws afresh.

With ``profile.sticky`` the permanent execution errors persist too, by the type's scope: a 404
answers the same tool with the same arguments again, 401 and 403 answer every later call of the
tool. A persisting fault met again is answered without a draw and logged with ``repeat_of`` (not
a new fault); every record of a persisting fault carries ``persists``.
"""

from __future__ import annotations

import copy
import random
from dataclasses import dataclass
from typing import Any

from robustcall.core import FAULT_TYPES, FaultType, ToolCall, ToolSpec, canonical_json
from robustcall.faults._anomaly import TRANSFORMS
from robustcall.faults._injector import FaultInjector, InjectedFault, synthesise
from robustcall.faults._profile import FaultProfile

NEW_PARAM_VALUE = "2"
_NEW_PARAMS = ("api_version", "client_api_version", *(f"api_version_{i}" for i in range(2, 1000)))
"""The value a newly required parameter asks for (``api_version="2"``)."""


@dataclass(frozen=True)
class Blocked:
    """Answer the call with this fault's observation; the environment does not run it."""

    fault: InjectedFault


@dataclass(frozen=True)
class Execute:
    """Run ``call`` (original interface); corrupt its result when ``anomaly`` is set."""

    index: int
    call: ToolCall
    written: ToolCall
    """The call as the agent wrote it."""
    anomaly: FaultType | None = None
    rng: random.Random | None = None


def call_key(call: ToolCall) -> str:
    return canonical_json([call.name, call.arguments])


class FaultSession:
    """Fault state of one episode over a tool interface."""

    def __init__(self, profile: FaultProfile, tools: list[ToolSpec], *, key: str = "") -> None:
        self.injector = FaultInjector(profile, key=key)
        self._tools: dict[str, ToolSpec] = {t.name: t.model_copy(deep=True) for t in tools}
        self._gone: dict[str, InjectedFault] = {}
        self._missing: dict[str, InjectedFault] = {}
        self._renamed: dict[str, dict[str, tuple[str, InjectedFault]]] = {}
        """tool -> original parameter -> (new name, the fault that renamed it)."""
        self._required: dict[str, list[tuple[str, InjectedFault]]] = {}
        """tool -> newly required parameters and the faults that added them."""
        self.calls = 0
        self.sticky = profile.sticky

    @property
    def log(self) -> list[InjectedFault]:
        return self.injector.log

    def removed_tools(self) -> set[str]:
        """Tools deprecated in this episode (gone for the rest of it)."""
        return {t for t, f in self._gone.items() if f.fault_type == "tool_deprecated"}

    def tools(self) -> list[ToolSpec]:
        """The interface as it is now: deprecated tools gone, renamed/required parameters shown."""
        deprecated = self.removed_tools()
        return [t for name, t in self._tools.items() if name not in deprecated]

    def changed_tools(self) -> set[str]:
        """Tools whose interface changed or that disappeared in this episode."""
        return self.removed_tools() | set(self._renamed) | set(self._required)

    # -- the decision for one call -------------------------------------------------------------

    def plan(self, call: ToolCall) -> Blocked | Execute:
        index = self.calls
        self.calls += 1
        if call.name in self._gone:  # only persisting faults are kept there
            return Blocked(self._repeat(self._gone[call.name], index, call))
        translated, broken = self._translate(call)
        if broken is not None:
            return Blocked(self._repeat(broken[0], index, call, broken[1]))
        key = call_key(translated)
        if key in self._missing:
            return Blocked(self._repeat(self._missing[key], index, call))
        ftype, rng = self.injector.draw(index, call.name)
        if ftype is None:
            return Execute(index, translated, call)
        if ftype.effect == "transform":
            return Execute(index, translated, call, ftype, rng)
        if ftype.effect == "interface":
            return Blocked(self._change_interface(ftype, index, call, translated, rng))
        persists = self.sticky and ftype.scope in ("call", "tool")
        fault = self._record(ftype, index, call, synthesise(ftype, call.name), persists=persists)
        if self.sticky and ftype.scope == "call":
            self._missing[key] = fault
        elif self.sticky and ftype.scope == "tool":
            self._gone[call.name] = fault
        return Blocked(fault)

    def finish(self, plan: Execute, real: str) -> tuple[str, InjectedFault | None]:
        """The observation the agent sees for an executed call, and the anomaly record if any."""
        if plan.anomaly is None or plan.rng is None:
            return real, None
        code = plan.anomaly.code
        shown = TRANSFORMS[code](real, plan.rng)
        applied = plan.anomaly
        if shown is None or shown == real:
            applied = FAULT_TYPES["empty_result"]
            shown = TRANSFORMS["empty_result"](real, plan.rng) or ""
        fault = self._record(
            applied,
            plan.index,
            plan.written,
            shown,
            executed=True,
            requested=code if applied.code != code else None,
            detail={"real_observation": real},
        )
        return shown, fault

    def to_current(self, call: ToolCall) -> ToolCall:
        """An original-interface call (an expert's action) written for the interface as it is now."""
        args = dict(call.arguments)
        for old, (new, _) in self._renamed.get(call.name, {}).items():
            if old in args:
                args[new] = args.pop(old)
        for param, _ in self._required.get(call.name, []):
            args[param] = NEW_PARAM_VALUE
        return ToolCall(name=call.name, arguments=args)

    # -- internals -----------------------------------------------------------------------------

    def _record(
        self,
        ftype: FaultType,
        index: int,
        call: ToolCall,
        observation: str,
        *,
        executed: bool = False,
        requested: str | None = None,
        detail: dict[str, Any] | None = None,
        persists: bool = False,
    ) -> InjectedFault:
        fault = InjectedFault(
            step=index,
            tool=call.name,
            fault_type=ftype.code,
            fault_class=ftype.fault_class,
            transient=ftype.transient,
            observation=observation,
            executed=executed,
            requested=requested,
            detail=detail or {},
            persists=persists or ftype.fault_class == "nonstationary",
        )
        self.injector.log.append(fault)
        return fault

    def _repeat(self, original: InjectedFault, index: int, call: ToolCall, text: str | None = None) -> InjectedFault:
        fault = original.model_copy(
            update={
                "step": index,
                "tool": call.name,
                "observation": text or original.observation,
                "repeat_of": original.step,
                "executed": False,
            }
        )
        self.injector.log.append(fault)
        return fault

    def _translate(self, call: ToolCall) -> tuple[ToolCall, tuple[InjectedFault, str] | None]:
        """The call in original names, or the interface fault it breaks and the message to show."""
        args = dict(call.arguments)
        for param, fault in self._required.get(call.name, []):
            if param in args:
                del args[param]
            else:
                return call, (fault, fault.observation)
        for old, (new, fault) in self._renamed.get(call.name, {}).items():
            if old in args and new not in args:
                return call, (fault, _renamed_message(call.name, old, new))
            if new in args:
                args[old] = args.pop(new)
        return ToolCall(name=call.name, arguments=args), None

    def _change_interface(
        self, ftype: FaultType, index: int, call: ToolCall, translated: ToolCall, rng: random.Random
    ) -> InjectedFault:
        if ftype.code == "tool_deprecated":
            fault = self._record(ftype, index, call, synthesise(ftype, call.name))
            self._gone[call.name] = fault
            return fault
        renamed = self._renamed.setdefault(call.name, {})
        candidates = sorted(p for p in translated.arguments if p not in renamed)
        if ftype.code == "param_renamed" and candidates:
            old = candidates[rng.randrange(len(candidates))]
            new = f"{old}_v2"
            fault = self._record(
                ftype, index, call, _renamed_message(call.name, old, new), detail={"old": old, "new": new}
            )
            renamed[old] = (new, fault)
            self._edit_spec(call.name, rename=(old, new))
            return fault
        if not renamed:
            del self._renamed[call.name]
        # param_required, or a rename with no argument to rename (falls back, logged as requested).
        required = FAULT_TYPES["param_required"]
        spec = self._tools.get(call.name)
        taken = set(call.arguments) | (set(spec.properties()) if spec else set())
        taken |= {p for p, _ in self._required.get(call.name, [])}
        param = next(p for p in _NEW_PARAMS if p not in taken)
        fault = self._record(
            required,
            index,
            call,
            _required_message(call.name, param),
            requested=ftype.code if ftype.code != "param_required" else None,
            detail={"param": param, "value": NEW_PARAM_VALUE},
        )
        self._required.setdefault(call.name, []).append((param, fault))
        self._edit_spec(call.name, add=param)
        return fault

    def _edit_spec(self, tool: str, *, rename: tuple[str, str] | None = None, add: str | None = None) -> None:
        spec = self._tools.get(tool)
        if spec is None:
            return
        params: dict[str, Any] = copy.deepcopy(spec.parameters)
        props: dict[str, Any] = dict(params.get("properties") or {})
        required = [str(r) for r in params.get("required") or []]
        if rename is not None:
            old, new = rename
            props = {(new if k == old else k): v for k, v in props.items()}
            required = [new if r == old else r for r in required]
        if add is not None:
            props[add] = {
                "type": "string",
                "description": f'Required since the interface change ("{NEW_PARAM_VALUE}").',
            }
            required.append(add)
        params["properties"] = props
        params["required"] = required
        self._tools[tool] = spec.model_copy(update={"parameters": params})


def _renamed_message(tool: str, old: str, new: str) -> str:
    return (
        f"HTTP 400 Bad Request. Unknown parameter `{old}` for `{tool}`: "
        f"the API changed and this parameter is now named `{new}`."
    )


def _required_message(tool: str, param: str) -> str:
    return (
        f"HTTP 400 Bad Request. Missing required parameter `{param}` for `{tool}`: "
        f'the API changed and every call must now pass `{param}` (currently "{NEW_PARAM_VALUE}").'
    )
