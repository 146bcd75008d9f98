"""AgentGym's environment servers as an ``Env`` (``--env agentgym:<name>@<url>``).

AgentGym (Xi et al.) runs each environment as an HTTP server of its own: ``POST /create`` gives an
``id``, ``POST /reset`` ``{"id", "data_idx"}`` starts task ``data_idx`` (LMRL-Gym's MAZE takes
``game``, Wordle ``seed``, under ``/maze`` and ``/wordle``), ``POST /step`` ``{"id", "action"}``
runs one text action and answers ``{"observation", "reward", "done"}`` (SciWorld adds ``score``,
0-100), errors come back as ``{"error": "..."}`` (routes and bodies as in AgentGym's
``agentenv-{textcraft,sciworld,babyai,lmrlgym}/*/server.py`` and their environment wrappers).

Our side speaks tool calls, so each environment family has a *codec* between a ``ToolCall`` and
AgentGym's action text: the action's words (``move_up`` -> ``move up``, ``pick_up`` -> ``pick up``)
followed by its arguments, with the family's separators between them (TextCraft's
``craft <target> using <ingredients>``, SciWorld's ``connect <a> to <b>``, ``use <a> on <b>`` ...).
The tools and the interface map are the in-process environment's of the same family, so PIPE
(``InterfaceEnv``) and fault injection (``FaultyEnv``) wrap this client exactly as they wrap the
local environment: renamed actions are translated back before the server sees them. Any other
AgentGym environment is reachable through one ``act(action)`` tool carrying the raw text.

A server that is robustcall's own (``robustcall envs serve --protocol agentgym``) adds a ``robustcall``
object to its answers (task names, the served tool list, the instruction, the expert's next action,
whether the action failed, the score); the client uses it when present, so a round trip reproduces
the in-process episode byte for byte. AgentGym's own servers ignore it and are read as they are.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, cast

from robustcall.core import DEFAULTS, InputError, RunFailed, ToolCall, ToolSpec
from robustcall.envs._protocol import EnvReset, EnvStep


@dataclass(frozen=True)
class AgentGymFamily:
    """How one AgentGym environment server speaks."""

    name: str
    prefix: str = ""
    """Route prefix (LMRL-Gym serves MAZE under ``/maze`` and Wordle under ``/wordle``)."""
    reset_key: str = "data_idx"
    score_key: str = "reward"
    score_scale: float = 1.0
    """``score_key``'s full marks (SciWorld's ``score`` is 0-100)."""
    cumulative: bool = False
    """The score is the sum of step rewards (else the latest value)."""
    tasks: int = 100
    """Tasks read by default (PIPE's test-set sizes, Tables 7/8)."""
    done_is_success: bool = False
    """The score is a reward that stays below 1 on a solved task, and ``done`` says it was solved (BabyAI:
    AgentGym's wrapper ends an episode only once the goal is reached); else solved means full marks."""
    separators: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Between an action's arguments, by original action name (default one space)."""
    verbs: dict[str, str] = field(default_factory=dict)
    """An action's words where they are not its name's (Wordle's guess is the bare word)."""
    spelled: frozenset[str] = frozenset()
    """Actions whose argument is sent letter by letter (LMRL-Gym's Wordle takes ``s h i r e``)."""
    client_shows_task: bool = False
    """AgentGym's client for the family shows the task itself (TextCraft's opening turn is the
    instructions, SciWorld's client reads ``task_description``); else ``envs serve`` puts the
    instruction (MAZE's goal, BabyAI's mission) into the ``/reset`` observation, as AgentGym's servers do."""


_SCIWORLD_SEPARATORS: dict[str, tuple[str, ...]] = {
    "connect": (" to ",),
    "move": (" to ",),
    "pour": (" in ",),
    "dunk": (" in ",),
    "use": (" on ",),
}
AGENTGYM_FAMILIES: dict[str, AgentGymFamily] = {
    f.name: f
    for f in (
        AgentGymFamily("textcraft", tasks=100, separators={"craft": (" using ",), "get": ()}, client_shows_task=True),
        AgentGymFamily(
            "sciworld",
            score_key="score",
            score_scale=100.0,
            tasks=200,
            separators=_SCIWORLD_SEPARATORS,
            client_shows_task=True,
        ),
        AgentGymFamily("babyai", tasks=90, done_is_success=True),
        AgentGymFamily("maze", prefix="/maze", reset_key="game", cumulative=True, tasks=25),
        AgentGymFamily(
            "wordle",
            prefix="/wordle",
            reset_key="seed",
            cumulative=True,
            tasks=25,
            verbs={"guess": ""},
            spelled=frozenset({"guess"}),
        ),
    )
}
"""The families with a codec; any other name is reached through the generic ``act`` tool."""

ACT = ToolSpec(
    name="act",
    description="Send one action, as the environment's instructions write it, to the environment.",
    parameters={"type": "object", "properties": {"action": {"type": "string"}}, "required": ["action"]},
)


def _params(tool: ToolSpec) -> list[str]:
    props = tool.parameters.get("properties") or {}
    required = [p for p in tool.parameters.get("required") or [] if p in props]
    return required + [p for p in props if p not in required]


class ActionCodec:
    """``ToolCall`` <-> AgentGym action text for one family; ``original`` maps a shown action name to
    the family's own (PIPE renames names, never separators)."""

    def __init__(self, family: AgentGymFamily, tools: list[ToolSpec], original: dict[str, str] | None = None) -> None:
        self.family, self.original = family, original or {}
        self.tools = {t.name: t for t in tools}

    def verb(self, name: str) -> str:
        if name in self.family.verbs and self.original.get(name, name) == name:
            return self.family.verbs[name]
        return name.replace("_", " ")

    def _seps(self, name: str, n: int) -> list[str]:
        given = self.family.separators.get(self.original.get(name, name), ())
        return [given[i] if i < len(given) else " " for i in range(max(0, n - 1))]

    def text(self, call: ToolCall) -> str:
        if call.name == ACT.name and call.name not in self.family.separators:
            return str(call.arguments.get("action", ""))
        tool = self.tools.get(call.name)
        if tool is None:
            return call.name.replace("_", " ")
        values = [str(call.arguments.get(p, "")) for p in _params(tool)]
        if self.original.get(call.name, call.name) in self.family.spelled:
            values = [" ".join(v.replace(" ", "")) for v in values]
        seps = self._seps(call.name, len(values))
        out = self.verb(call.name)
        for i, value in enumerate(values):
            out += (" " if i == 0 else seps[i - 1]) + value
        return out.strip()

    def call(self, text: str) -> ToolCall | None:
        """The call an action text means (``None``: no action of this interface)."""
        text = " ".join(text.split())
        if list(self.tools) == [ACT.name]:
            return ToolCall(name=ACT.name, arguments={"action": text})
        for name in sorted(self.tools, key=lambda n: -len(self.verb(n))):
            verb, params = self.verb(name), _params(self.tools[name])
            if verb and text != verb and not text.startswith(verb + " "):
                continue
            rest = text[len(verb) :].strip()
            if not params:
                if rest:
                    continue
                return ToolCall(name=name, arguments={})
            values: list[str] = []
            for sep in self._seps(name, len(params)):
                head, found, rest = rest.partition(sep)
                if not found:
                    break
                values.append(head.strip())
            values.append(rest.strip())
            if self.original.get(name, name) in self.family.spelled:
                values = [_unspelled(v) for v in values]
            if len(values) != len(params) or not all(values):
                continue
            props = self.tools[name].parameters.get("properties") or {}
            args: dict[str, Any] = {}
            for p, v in zip(params, values, strict=True):
                kind = (props.get(p) or {}).get("type")
                args[p] = int(v) if kind == "integer" and re.fullmatch(r"-?\d+", v) else v
            return ToolCall(name=name, arguments=args)
        return None


def _unspelled(text: str) -> str:
    """``s h i r e`` -> ``shire``; any other text as it is."""
    letters = text.split(" ")
    return "".join(letters) if len(letters) > 1 and all(len(x) == 1 for x in letters) else text


def family_tools(name: str) -> list[ToolSpec]:
    """The in-process family's tools (the generic ``act`` for a family robustcall does not run)."""
    from robustcall.envs._registry import ENVS
    from robustcall.envs._wordle import WordleEnv

    if name == "wordle":  # its tools need no word list
        return WordleEnv.tools(cast(WordleEnv, None))
    if name not in AGENTGYM_FAMILIES or name not in ENVS:
        return [ACT]
    env: Any = ENVS[name].build(None)
    return list(env.tools())


class AgentGymEnv:
    """An AgentGym environment server as an ``Env`` (one server-side environment per client)."""

    def __init__(self, name: str, base_url: str, *, timeout_s: float = DEFAULTS.timeout_s) -> None:
        self.name = name
        self.family = AGENTGYM_FAMILIES.get(name, AgentGymFamily(name))
        self.base_url = base_url.rstrip("/")
        self.url = self.base_url + self.family.prefix
        self.timeout_s = timeout_s
        self._id: int | None = None
        self._ext: dict[str, Any] = {}
        self._score, self._done = 0.0, False
        self._tools = family_tools(name)
        hello = self._request("GET", base_url.rstrip("/") + "/")  # fails now, before a run starts
        self._remote_tasks: list[str] | None = None
        self.ours = isinstance(hello, dict) and isinstance(hello.get("robustcall"), dict)
        """robustcall's own server (``envs serve``), which sends the expert's next action."""
        if isinstance(hello, dict) and isinstance(hello.get("robustcall"), dict):
            self._remote_tasks = [str(t) for t in hello["robustcall"].get("tasks", [])]
            interface = hello["robustcall"].get("interface", "origin")
            if interface != "origin":  # already renamed server-side: the family's map no longer applies
                self.name = f"{name}[{interface}]"

    def _request(self, method: str, url: str, body: dict[str, Any] | None = None) -> Any:
        import urllib.error  # here: with ssl and http.client, a tenth of every command's start-up
        import urllib.request

        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=self.timeout_s) as resp:
                answer = json.loads(resp.read() or b"null")
        except urllib.error.HTTPError as exc:
            raise RunFailed(f"AgentGym server {url}: HTTP {exc.code} {exc.reason}", exit_code=3) from None
        except (urllib.error.URLError, OSError) as exc:
            raise RunFailed(f"AgentGym server {url}: {getattr(exc, 'reason', exc)}", exit_code=3) from None
        except ValueError:
            raise RunFailed(f"AgentGym server {url}: the answer is not JSON", exit_code=3) from None
        if isinstance(answer, dict) and "error" in answer and len(answer) == 1:
            raise RunFailed(f"AgentGym server {url}: {answer['error']}", exit_code=3)
        return answer

    def task_ids(self) -> list[str]:
        if self._remote_tasks is not None:
            return list(self._remote_tasks)
        return [str(i) for i in range(self.family.tasks)]

    def _ensure_created(self) -> int:
        if self._id is None:
            created = self._request("POST", self.url + "/create", {})
            if not isinstance(created, dict) or not isinstance(created.get("id"), int):
                raise RunFailed(f"AgentGym server {self.url}/create: no environment id in {str(created)[:80]}", 3)
            self._id = created["id"]
        return self._id

    def reset(self, task_id: str, seed: int = 0) -> EnvReset:
        tasks = self.task_ids()
        if task_id not in tasks:
            raise InputError(f"unknown task {task_id!r} of agentgym:{self.name} (0..{len(tasks) - 1})")
        env_id = self._ensure_created()
        answer = self._request("POST", self.url + "/reset", {"id": env_id, self.family.reset_key: tasks.index(task_id)})
        answer = answer if isinstance(answer, dict) else {"observation": str(answer)}
        self._ext = answer.get("robustcall") or {}
        self._score, self._done = 0.0, False
        if "tools" in self._ext:
            self._tools = [ToolSpec.model_validate(t) for t in self._ext["tools"]]
        observation = str(answer.get("observation", ""))
        if "instruction" in self._ext:
            shown = str(self._ext.get("observation", observation))
            return EnvReset(str(self._ext["instruction"]), shown, list(self._tools))
        if "task_description" in answer:
            return EnvReset(str(answer["task_description"]), observation, list(self._tools))
        # AgentGym's TextCraft, Maze, ...: one text holds the task (commands and goal): shown once
        return EnvReset(observation, "", list(self._tools))

    def step(self, call: ToolCall) -> EnvStep:
        env_id = self._ensure_created()
        text = ActionCodec(self.family, self._tools).text(call)
        answer = self._request("POST", self.url + "/step", {"id": env_id, "action": text})
        answer = answer if isinstance(answer, dict) else {"observation": str(answer)}
        self._ext = answer.get("robustcall") or {}
        value = answer.get(self.family.score_key, answer.get("reward", 0))
        value = float(value) / self.family.score_scale if isinstance(value, int | float) else 0.0
        self._score = self._score + value if self.family.cumulative else value
        if "score" in self._ext:
            self._score = float(self._ext["score"])
        self._done = bool(answer.get("done", False))
        return EnvStep(
            str(answer.get("observation", "")), bool(answer.get("done", False)), bool(self._ext.get("error"))
        )

    def score(self) -> float:
        """r(τ): the server's reward (SciWorld: its score / 100), as AgentGym reports it."""
        return min(1.0, max(0.0, self._score))

    def solved(self) -> bool:
        """Success: robustcall's own server says so; AgentGym's BabyAI ends an episode only when it is
        solved; elsewhere full marks."""
        if "solved" in self._ext:
            return bool(self._ext["solved"])
        return self._done and self._score > 0 if self.family.done_is_success else self.score() >= 1.0

    def expert_action(self) -> ToolCall | None:
        """The expert's next action, which only robustcall's own server sends: asked of any other
        server (a scripted policy playing it) this refuses, rather than play nothing."""
        if not self.ours:
            raise InputError(
                f"agentgym:{self.name}@{self.base_url}: AgentGym's own server sends no expert actions, which the "
                "environment-playing scripted models need; play it with a model, or serve the environment "
                "with `robustcall envs serve`"
            )
        text = self._ext.get("expert")
        return None if not isinstance(text, str) else ActionCodec(self.family, self._tools).call(text)


def parse_agentgym_spec(spec: str) -> tuple[str, str]:
    """``agentgym:<name>@<url>`` -> (name, url)."""
    body = spec.removeprefix("agentgym:")
    name, at, url = body.partition("@")
    if not at or not name or not url.startswith(("http://", "https://")):
        raise InputError(f"bad environment {spec!r}: expected agentgym:<name>@http://<host>:<port>")
    return name, url
