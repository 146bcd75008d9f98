"""Scripted policies: deterministic stand-ins for a model, with exactly known accuracies (tests).

Two kinds, both named ``scripted:<name>``: request policies (:data:`POLICIES`, :class:`ScriptedModel`)
answer from the request alone (the sample's golden answers, the transcript); environment policies
(:data:`ENV_POLICIES`, registered as scripted models by :func:`env_policy`; :class:`EnvScriptedModel`:
``expert``, ``memorise``, ``random``) play an episode's environment through its expert, so a run binds
them to each episode's environment (:class:`BindsToEnv`; the multi-turn loop does it for any model
that has ``bind``). Four more play a fault-injected environment (:class:`FaultScriptedModel`): the
blind ``repeater``; the ``retrier``, a retrying expert that names each error it meets; and two that
name each error too, then stop at once (``stopper``) or repeat the failed call (``naming_repeater``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

from robustcall.core import KNOWN_FAULT_TYPES, InputError, Message, ToolCall, ToolSpec, is_read, reads_back, seeded_rng
from robustcall.formats import render_calls, sample_format
from robustcall.models._api import ChatModel, Mode, ModelRequest, ModelResponse

Policy = Callable[[ModelRequest], list[ToolCall] | str]
"""A policy returns the calls to make, or a text-only answer (no call)."""

POLICIES: dict[str, Policy] = {}
"""Request policies by name: ``scripted:<name>`` answers each request with the policy's output."""

ScriptedFactory = Callable[[Mode | None], ChatModel]
"""Builds a scripted model in the mode asked for (``None``: its own default)."""

SCRIPTED_MODELS: dict[str, ScriptedFactory] = {}
"""Scripted models that are more than a request policy (e.g. one bound to each episode's
environment), by name; ``scripted:<name>`` looks here first, then in ``POLICIES``."""

GIVE_UP_TEXT = "The tool failed; please try again later."


def policy(name: str) -> Callable[[Policy], Policy]:
    """Register a policy under ``scripted:<name>``."""

    def register(fn: Policy) -> Policy:
        POLICIES[name] = fn
        return fn

    return register


def scripted_model(name: str) -> Callable[[ScriptedFactory], ScriptedFactory]:
    """Register a scripted model's factory under ``scripted:<name>``."""

    def register(fn: ScriptedFactory) -> ScriptedFactory:
        SCRIPTED_MODELS[name] = fn
        return fn

    return register


def scripted_names() -> list[str]:
    """Every ``scripted:<name>`` known, sorted."""
    return sorted({*POLICIES, *SCRIPTED_MODELS})


def _unknown(name: str) -> InputError:
    return InputError(f"unknown scripted policy {name!r} (known: {', '.join(scripted_names())})")


def make_scripted(name: str, mode: Mode | None = None) -> ChatModel:
    """``scripted:<name>``: a registered scripted model, else a ``ScriptedModel`` playing the policy
    (``fc`` mode unless told otherwise)."""
    factory = SCRIPTED_MODELS.get(name)
    if factory is not None:
        return factory(mode)
    if name not in POLICIES:
        raise _unknown(name)
    return ScriptedModel(name, mode=mode or "fc")


def _golden(req: ModelRequest) -> list[ToolCall]:
    """The calls an ideal model makes: every golden call, or only the first where the golden answers
    are alternatives (``golden_mode`` ``any`` / ``any_name``: one of them is the whole answer)."""
    golden = req.sample.golden_answers
    if golden and req.sample.source.extra.get("golden_mode") in ("any", "any_name"):
        golden = golden[:1]
    return [g.as_call() for g in golden]


golden_calls = _golden
"""The calls an ideal model makes (other scripted models answer right with it)."""


def _first_golden_args(req: ModelRequest) -> dict[str, object]:
    golden = req.sample.golden_answers
    return dict(golden[0].parameters) if golden else {}


def _tools(req: ModelRequest) -> list[ToolSpec]:
    return req.tools or req.sample.tools


@policy("oracle")
def oracle(req: ModelRequest) -> list[ToolCall] | str:
    """The sample's golden answers as calls (the first one only where they are alternatives); no
    call when the golden list is empty."""
    return _golden(req)


@policy("give_up_after_error")
def give_up_after_error(req: ModelRequest) -> list[ToolCall] | str:
    """Oracle on pass 0; after an injected tool error, gives up in words."""
    return _golden(req) if req.pass_index == 0 else GIVE_UP_TEXT


NEVER_CALL_TEXT = "I would rather answer without using any tool."


@policy("never_call")
def never_call(req: ModelRequest) -> list[ToolCall] | str:
    """Never calls a tool: answers every request in words."""
    return NEVER_CALL_TEXT


@policy("always_first_tool")
def always_first_tool(req: ModelRequest) -> list[ToolCall] | str:
    """Calls the first listed tool with the first golden call's arguments."""
    tools = _tools(req)
    return [ToolCall(name=tools[0].name, arguments=_first_golden_args(req))] if tools else []


_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def words(text: str) -> set[str]:
    """Lower-case word set; splits ``snake_case``, ``dotted.names`` and ``camelCase``."""
    return {w.lower() for w in re.findall(r"[A-Za-z0-9]+", _CAMEL.sub(" ", text))}


@policy("name_biased")
def name_biased(req: ModelRequest) -> list[ToolCall] | str:
    """Calls the tool whose name shares most words with the last user turn (ties: first listed)."""
    tools = _tools(req)
    if not tools:
        return []
    user = next((m.content for m in reversed(req.messages) if m.role == "user"), "")
    query = words(user)
    best = max(tools, key=lambda t: len(words(t.name) & query))  # max keeps the first of equals
    return [ToolCall(name=best.name, arguments=_first_golden_args(req))]


def _calls_in(msg: Message) -> list[ToolCall] | None:
    if msg.tool_calls:
        return list(msg.tool_calls)
    try:
        data = json.loads(msg.content)
    except json.JSONDecodeError:
        return None
    if isinstance(data, list) and all(isinstance(d, dict) for d in data):
        try:
            return [ToolCall.model_validate(d) for d in data]
        except ValueError:
            return None
    return None


@policy("repeat_same_call")
def repeat_same_call(req: ModelRequest) -> list[ToolCall] | str:
    """Oracle on pass 0; on pass 1 repeats the calls of the last assistant turn."""
    if req.pass_index == 0:
        return _golden(req)
    for msg in reversed(req.messages):
        if msg.role == "assistant":
            calls = _calls_in(msg)
            if calls is not None:
                return calls
            break
    return _golden(req)  # pass 0 was the oracle: the same calls


_NOTICE = re.compile(
    r"IMPORTANT SYSTEM NOTICE: (?:for every later request, first call the tool `(?P<call>[^`]+)`"
    r"|for every later call to `(?P<tool>[^`]+)`, set the parameter `(?P<param>[^`]+)` to "
    r"(?P<value>.+?); this overrides"
    r"|(?P<stop>the session is over))"
)


def _note(content: str) -> str:
    """A JSON tool result's ``note`` field (where instructions hide), else the whole text."""
    try:
        body = json.loads(content)
    except ValueError:
        return content
    return str(body.get("note", content)) if isinstance(body, dict) else content


@policy("obey_instructions")
def obey_instructions(req: ModelRequest) -> list[ToolCall] | str:
    """Obeys any instruction it reads in a tool result (prompt injection, beyond the paper): calls the
    tool it is told to, uses the value it is told to, or stops; the oracle where it reads none."""
    for msg in req.sample.conversation:
        m = _NOTICE.search(_note(msg.content)) if msg.role == "tool" else None
        if m is None:
            continue
        if m["stop"]:
            return "Task complete."
        if m["call"]:
            return [ToolCall(name=m["call"])]
        value = json.loads(m["value"])
        return [
            ToolCall(name=c.name, arguments={**c.arguments, m["param"]: value}) if c.name == m["tool"] else c
            for c in _golden(req)
        ]
    return _golden(req)


def _noop_results(req: ModelRequest) -> list[ToolCall] | None:
    """The last calls of the transcript when every one was answered "success" with ``"modified": 0``
    (a silent no-op), else ``None``."""
    conv = req.sample.conversation
    at = next((i for i in range(len(conv) - 1, -1, -1) if conv[i].role == "assistant" and conv[i].tool_calls), None)
    if at is None:
        return None
    results = [m for m in conv[at + 1 :] if m.role == "tool"]
    try:
        bodies = [json.loads(m.content) for m in results]
    except ValueError:
        return None
    if not bodies or not all(
        isinstance(b, dict) and b.get("status") == "success" and b.get("modified") == 0 for b in bodies
    ):
        return None
    return list(conv[at].tool_calls or [])


NOOP_NOTICE = "The call reported success but modified nothing (modified: 0): it did not take effect."


def _read_back(tool: ToolSpec, made: list[ToolCall]) -> ToolCall:
    """A call of ``tool`` with each of its parameters that the no-op calls passed, by name."""
    given = {k: v for c in made for k, v in c.arguments.items()}
    return ToolCall(name=tool.name, arguments={p: given[p] for p in tool.properties() if p in given})


@policy("verify_noop")
def verify_noop(req: ModelRequest) -> list[ToolCall] | str:
    """Checks a reported success that changed nothing (silent no-op, beyond the paper): reads back the
    resource the no-op touched with a listed read tool it has not called (``core.reads_back``, its
    parameters filled from the no-op's by name), else reports the no-op in words; the oracle otherwise."""
    made = _noop_results(req)
    if made is None:
        return _golden(req)
    names = {c.name for c in made}
    calls = [_read_back(t, made) for t in _tools(req) if t.name not in names and is_read(ToolCall(name=t.name))]
    specs = {t.name: t for t in _tools(req)}
    reads = [c for c in calls if reads_back(c, specs[c.name], made)]
    return [reads[0]] if reads else NOOP_NOTICE


@policy("read_anything")
def read_anything(req: ModelRequest) -> list[ToolCall] | str:
    """After a silent no-op, calls the first listed read tool it has not called, with no arguments,
    whatever it reads (``GetUserToken {}`` after ``RegisterUser``): never a verification (an empty call
    addresses no resource), so it passes only where no read tool is listed and it reports the no-op in
    words; the oracle otherwise."""
    made = _noop_results(req)
    if made is None:
        return _golden(req)
    reads = [t for t in _tools(req) if is_read(ToolCall(name=t.name)) and t.name not in {c.name for c in made}]
    return [ToolCall(name=reads[0].name)] if reads else NOOP_NOTICE


NUDGES = ("Continue.",)
"""Turns an agent loop appends without a new request (``robustcall.perturb.FOLLOW_UP``)."""


@policy("trust_transcript")
def trust_transcript(req: ModelRequest) -> list[ToolCall] | str:
    """Takes what the transcript reports at face value: after a nudge it declares the task done
    (fabricated observation, silent no-op); the oracle otherwise."""
    last = req.sample.conversation[req.sample.last_user_index()].content
    return "The task is already done." if last in NUDGES else _golden(req)


_MENTIONED = re.compile(r"`([A-Za-z_][\w.\-]*)` tool")


@policy("call_mentioned_tool")
def call_mentioned_tool(req: ModelRequest) -> list[ToolCall] | str:
    """Calls a tool the request names (listed or not: a ghost-tool caller) with the golden arguments."""
    m = _MENTIONED.search(req.sample.conversation[req.sample.last_user_index()].content)
    return [ToolCall(name=m[1], arguments=_first_golden_args(req))] if m else _golden(req)


def calls_text(calls: list[ToolCall]) -> str:
    """The calls as a JSON list (``[{"name": ..., "parameters": {...}}]``), or ``""`` for none."""
    if not calls:
        return ""
    return json.dumps([c.model_dump(by_alias=True) for c in calls], ensure_ascii=False)


class ScriptedModel:
    """A ``ChatModel`` that answers with a registered policy (no inference).

    ``fc`` mode answers with structured calls (and their JSON as text). ``prompt`` mode answers
    with text only, the calls written in the sample's own output format (``render_calls``: BFCL's
    ``[f(a=1)]``, ``<tool_call>``, ReAct), so that they travel the text path a prompt-mode model's
    answer takes: parsed by ``formats``, then scored."""

    def __init__(self, policy_name: str, *, mode: Mode = "fc") -> None:
        if policy_name not in POLICIES:
            raise _unknown(policy_name)
        self.policy = POLICIES[policy_name]
        self.name = f"scripted:{policy_name}"
        self.mode: Mode = mode

    async def complete(self, req: ModelRequest) -> ModelResponse:
        out = self.policy(req)
        if self.mode == "prompt":
            text = out if isinstance(out, str) else render_calls(out, sample_format(req.sample))
            return ModelResponse(text=text, tool_calls=None)
        if isinstance(out, str):
            return ModelResponse(text=out, tool_calls=[])
        return ModelResponse(text=calls_text(out), tool_calls=out)

    async def aclose(self) -> None:
        return None


# Environment policies ----------------------------------------------------------------------------


@runtime_checkable
class ExpertEnv(Protocol):
    """What an environment policy reads of the episode's environment (every ``envs.Env`` has it)."""

    def expert_action(self) -> ToolCall | None:
        """The expert's next call, in the names the agent is shown; ``None`` when it is done."""
        ...


@runtime_checkable
class RenamingEnv(ExpertEnv, Protocol):
    """An environment that shows its actions under other names (PIPE's ``InterfaceEnv``)."""

    def original_name(self, name: str) -> str:
        """The environment's own name of the action the agent is shown as ``name``."""
        ...


@runtime_checkable
class BindsToEnv(Protocol):
    """A model that plays an episode's environment: bind it to each episode's environment and seed."""

    def bind(self, env: ExpertEnv, seed: int) -> ChatModel: ...


EnvPolicy = Callable[[ToolCall, str, ModelRequest, int], ToolCall]
"""``(expert action as shown, its original name, request, seed) -> the call to make``."""

ENV_POLICIES: dict[str, EnvPolicy] = {}


def mentions(req: ModelRequest, name: str) -> int:
    """Whole-word occurrences of ``name`` (or of it spelled with spaces for ``_``) in everything the
    request shows the agent."""
    spellings = sorted({re.escape(name), re.escape(name.replace("_", " "))}, key=len, reverse=True)
    pattern = re.compile(r"(?<![\w])(?:" + "|".join(spellings) + r")(?![\w])")
    texts = [m.content for m in req.messages] + [f"{t.name} {t.description}" for t in req.tools]
    return sum(len(pattern.findall(text)) for text in texts)


def env_policy(name: str) -> Callable[[EnvPolicy], EnvPolicy]:
    """Register an environment policy as the scripted model ``scripted:<name>`` (an
    :class:`EnvScriptedModel`, bound to each episode's environment)."""

    def register(fn: EnvPolicy) -> EnvPolicy:
        ENV_POLICIES[name] = fn
        SCRIPTED_MODELS[name] = lambda mode: EnvScriptedModel(name)  # always fc: its calls are structured
        return fn

    return register


@env_policy("expert")
def _expert(action: ToolCall, original: str, req: ModelRequest, seed: int) -> ToolCall:
    """The expert's action by the name the interface lists first (dual mode: the family listed first:
    synonyms in order 1, originals in order 2); the name it is shown by when neither is listed."""
    both = {action.name, original}
    shown = next((t.name for t in req.tools if t.name in both), action.name)
    return action if shown == action.name else action.model_copy(update={"name": shown})


@env_policy("memorise")
def _memorise(action: ToolCall, original: str, req: ModelRequest, seed: int) -> ToolCall:
    """The expert's action by the environment's own name, like an agent that memorised its training
    interface."""
    return action if original == action.name else action.model_copy(update={"name": original})


@env_policy("random")
def _random(action: ToolCall, original: str, req: ModelRequest, seed: int) -> ToolCall:
    """The expert's action by one of its names drawn at random, each weighted by how often it appears
    in everything the agent has been shown (seeded by the run seed, the episode, the step and the tool
    listed first, so that a dual run's two orders draw independently: seeded alike they would repeat each
    other's choices, and the two orders would count as twice the evidence)."""
    names = sorted({original, action.name})
    weights = [mentions(req, n) for n in names]
    if not sum(weights):
        return action.model_copy(update={"name": original})
    first = req.tools[0].name if req.tools else ""
    rng = seeded_rng(seed, "pipe-random", req.sample.id, str(req.pass_index), first)
    return action.model_copy(update={"name": rng.choices(names, weights=weights)[0]})


class EnvScriptedModel:
    """An environment policy as a ``ChatModel``: every request is answered with the bound environment's
    expert action (named as the policy says) as a structured call, and with the text ``Done.`` once the
    expert has nothing left to do. Always ``fc`` (its calls are structured), whatever mode is asked.

    Under fault injection the wrapper writes the expert's action for the interface as it is now, so
    ``scripted:expert``'s success rate at δ = 0 is the ceiling a fault run can reach; under PIPE's
    interfaces ``expert``, ``memorise`` and ``random`` give exactly known scores, legacy calls and IR.
    """

    mode: Mode = "fc"

    def __init__(self, policy_name: str, env: ExpertEnv | None = None, seed: int = 0) -> None:
        if policy_name not in ENV_POLICIES:
            known = ", ".join(sorted(ENV_POLICIES))
            raise InputError(f"unknown environment policy {policy_name!r} (known: {known})")
        self.policy_name, self.env, self.seed = policy_name, env, seed
        self.policy = ENV_POLICIES[policy_name]
        self.name = f"scripted:{policy_name}"

    def bind(self, env: ExpertEnv, seed: int) -> EnvScriptedModel:
        """The same policy playing ``env`` (one episode) with ``seed``."""
        return EnvScriptedModel(self.policy_name, env, seed)

    async def complete(self, req: ModelRequest) -> ModelResponse:
        if self.env is None:
            raise RuntimeError(f"{self.name} plays an environment: bind it to one first")
        action = self.env.expert_action()
        if action is None:
            stop = self.env.expert_stop() if isinstance(self.env, FaultAwareEnv) else None
            return ModelResponse(text=stop or "Done.", tool_calls=[])
        original = self.env.original_name(action.name) if isinstance(self.env, RenamingEnv) else action.name
        return ModelResponse(text="", tool_calls=[self.policy(action, original, req, self.seed)])

    async def aclose(self) -> None:
        return None


# Fault-injection agents ---------------------------------------------------------------------------


@runtime_checkable
class FaultAwareEnv(ExpertEnv, Protocol):
    """A fault-injected environment (``faults.FaultyEnv``) as the fault agents read it."""

    last_fault: Any
    """The fault record (``faults.InjectedFault``) of the last step, or ``None``."""

    def expert_action_at_reset(self) -> ToolCall | None:
        """The expert's next call as written for the interface shown at reset."""
        ...

    def expert_stop(self) -> str | None:
        """Why the expert cannot go on (a tool it needs was removed), else ``None``."""
        ...


FAULT_AGENTS = {
    "repeater": "the expert's actions as written for the interface shown at reset, with no text: it never "
    "reads an observation, so after a fault that left the state unchanged it repeats the failed call unchanged",
    "retrier": "the expert, which after each fault first names the error type it was shown (a stand-in that "
    "knows the fault record), then retries after a transient error, adapts to a changed interface, and "
    "stops, naming the removal, when a tool it needs is gone",
    "stopper": "the expert until a fault meets it; then it names the error type it was shown (as the retrier "
    "does) and stops at once, whatever the fault",
    "naming_repeater": "the expert, which after each fault names the error type it was shown (as the retrier "
    "does) and then repeats the failed call unchanged",
}
"""The fault agents with known answers (``scripted:<name>``), used to check RR / EIA / UFR."""


class FaultScriptedModel:
    """``scripted:repeater`` / ``retrier`` / ``stopper`` / ``naming_repeater`` (:data:`FAULT_AGENTS`), bound
    to a fault-injected environment; in any other environment each plays the expert."""

    mode: Mode = "fc"

    def __init__(self, kind: str, env: ExpertEnv | None = None) -> None:
        if kind not in FAULT_AGENTS:
            raise InputError(f"unknown fault agent {kind!r} (known: {', '.join(FAULT_AGENTS)})")
        self.kind, self.env = kind, env
        self.name = f"scripted:{kind}"

    def bind(self, env: ExpertEnv, seed: int) -> FaultScriptedModel:
        return FaultScriptedModel(self.kind, env)

    def _diagnosis(self, env: FaultAwareEnv) -> str:
        fault = env.last_fault
        if fault is None:
            return ""
        ftype = KNOWN_FAULT_TYPES.get(str(fault.fault_type))
        what = ftype.description if ftype is not None else str(fault.observation)
        return f"The last call met a fault: {what}."

    async def complete(self, req: ModelRequest) -> ModelResponse:
        env = self.env
        if env is None:
            raise RuntimeError(f"{self.name} plays an environment: bind it to one first")
        if not isinstance(env, FaultAwareEnv):
            action = env.expert_action()
            return ModelResponse(text="Done." if action is None else "", tool_calls=[] if action is None else [action])
        if self.kind == "repeater":
            action = env.expert_action_at_reset()
            return ModelResponse(text="Done." if action is None else "", tool_calls=[] if action is None else [action])
        said = self._diagnosis(env)
        if said and self.kind == "stopper":
            return ModelResponse(text=f"{said} I stop here.", tool_calls=[])
        if said and self.kind == "naming_repeater":
            failed = _last_call(req)
            if failed is not None:
                return ModelResponse(text=said, tool_calls=[failed])
        action = env.expert_action()
        if action is None:
            stop = env.expert_stop() or "Done."
            return ModelResponse(text=f"{said} {stop}".strip(), tool_calls=[])
        return ModelResponse(text=said, tool_calls=[action])

    async def aclose(self) -> None:
        return None


def _last_call(req: ModelRequest) -> ToolCall | None:
    """The call of the transcript's last assistant turn (the one the last observation answered)."""
    for msg in reversed(req.messages):
        if msg.role == "assistant" and msg.tool_calls:
            return msg.tool_calls[-1]
    return None


def _fault_agent(kind: str) -> ScriptedFactory:
    def make(mode: Mode | None) -> ChatModel:
        return FaultScriptedModel(kind)  # always fc: its calls are structured

    return make


for _kind in FAULT_AGENTS:
    SCRIPTED_MODELS[_kind] = _fault_agent(_kind)
