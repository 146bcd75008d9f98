"""Any robustcall environment over AgentGym's environment-server API (``robustcall envs serve``).

The routes and bodies are AgentGym's (see ``envs/_agentgym.py``): ``POST /create`` -> ``{"id", ...}``,
``POST /reset`` ``{"id", "data_idx"}`` (``game`` / ``seed`` and the ``/maze`` / ``/wordle`` prefix for
those families), ``POST /step`` ``{"id", "action"}`` -> ``{"observation", "reward", "done"}`` (SciWorld
also ``score``, 0-100), ``GET /observation?id=`` and ``GET /detail?id=``, errors as ``{"error"}``; and
the routes AgentGym's clients call besides: ``POST /close`` ``{"id"}`` (``TextCraftEnvClient.close``;
the environment is freed, its id never given again), ``GET /wordle/filtered_vocab?id=`` (the words a
guess may be, which ``WordleEnvClient`` reads when it is made) and LMRL-Gym's
``GET /maze/available_actions`` (the action texts; served for every family).
The served environment may be PIPE-rewritten (``InterfaceEnv``: renamed actions, strict-mode
messages) or fault-injected (``FaultyEnv``), so an AgentGym-based trainer or evaluator gets PIPE's
interfaces and fault profiles with no code of ours. Text actions become tool calls through the
family's codec; answers carry a ``robustcall`` object that AgentGym clients ignore and ours reads.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from typing import Any

from robustcall.core import ToolCall
from robustcall.envs import AGENTGYM_FAMILIES, ActionCodec, AgentGymFamily, Env, is_solved


def _original_names(env: Any) -> dict[str, str]:
    """Shown action name -> the family's own, through any PIPE wrapper (``back``) in the chain."""
    names: dict[str, str] = {}
    while env is not None:
        names.update(getattr(env, "back", None) or {})
        env = getattr(env, "env", None)
    return names


class AgentGymServer:
    """The state of one served environment kind: a fresh environment per ``/create``."""

    def __init__(self, make_env: Callable[[], Env], family_name: str, *, full_vocab: bool = False) -> None:
        self.make_env = make_env
        self.full_vocab = full_vocab
        """Wordle: ``filtered_vocab`` lists every valid guess, not the short list of possible answers."""
        self.family = AGENTGYM_FAMILIES.get(family_name, AgentGymFamily(family_name))
        self.tasks = make_env().task_ids()
        self.envs: dict[int, Env] = {}
        self.info: dict[int, dict[str, Any]] = {}
        self.lock = threading.Lock()
        self._next_id = 0
        self._closed: set[int] = set()
        self._actions: list[str] | None = None

    def _codec(self, env: Env, tools: list[Any]) -> ActionCodec:
        return ActionCodec(self.family, tools, _original_names(env))

    def _ext(self, env_id: int, **extra: Any) -> dict[str, Any]:
        env, info = self.envs[env_id], self.info[env_id]
        expert = env.expert_action()
        return {
            **extra,
            "score": env.score(),
            "solved": is_solved(env),
            "expert": None if expert is None else self._codec(env, info["tools"]).text(expert),
        }

    def _score_fields(self, env: Env) -> dict[str, Any]:
        """``reward`` and ``score`` (SciWorld's 0-100; elsewhere the reward, as AgentGym's BabyAI server
        sends it and its client reads it)."""
        score = env.score()
        return {"reward": score, "score": score * self.family.score_scale}

    def create(self) -> dict[str, Any]:
        with self.lock:  # ids count up and are never reused, closed environments included
            env_id, self._next_id = self._next_id, self._next_id + 1
            self.envs[env_id] = self.make_env()
            self.info[env_id] = {"observation": "", "done": False, "reward": 0, "deleted": False, "tools": []}
        return {"id": env_id, "observation": "", "done": False, "reward": 0}

    def _check(self, env_id: Any) -> int:
        if env_id in self._closed:  # AgentGym's servers' words
            raise ValueError(f"The task with environment {env_id} has been deleted.")
        if not isinstance(env_id, int) or env_id not in self.envs:
            raise ValueError(f"The id {env_id} is not valid.")
        return env_id

    def close(self, body: dict[str, Any]) -> dict[str, Any]:
        """Free the environment ``body["id"]``."""
        with self.lock:
            env_id = self._check(body.get("id"))
            del self.envs[env_id], self.info[env_id]
            self._closed.add(env_id)
        return {"id": env_id, "closed": True}

    def available_actions(self) -> list[str]:
        """The served actions as texts (``move up``; ``craft <target> using <ingredients>``), in the
        interface they are served at."""
        if self._actions is None:
            env = self.make_env()
            tools = env.reset(self.tasks[0]).tools
            codec = self._codec(env, tools)
            placeholders = [{p: f"<{p}>" for p in (t.parameters.get("properties") or {})} for t in tools]
            self._actions = [
                codec.text(ToolCall(name=t.name, arguments=a)) for t, a in zip(tools, placeholders, strict=True)
            ]
        return self._actions

    def vocabulary(self, env_id: Any) -> list[str]:
        """Wordle's vocabulary, through any wrapper of the served environment: by default the short
        list the hidden word is drawn from (AgentGym's server serves its short list, and its
        ``WordleEnvClient`` puts the whole vocabulary into the first observation: the 12,972 valid
        guesses made that 80,839 characters); with ``full_vocab`` every valid guess. Any valid guess
        is accepted either way."""
        env: Any = self.envs[self._check(env_id)]
        while env is not None and not hasattr(env, "vocabulary"):
            env = getattr(env, "env", None)
        if env is None:
            raise ValueError(f"{self.family.name} has no vocabulary")
        short = getattr(env, "answer_words", None)
        return list(env.vocabulary() if self.full_vocab or short is None else short())

    def reset(self, body: dict[str, Any]) -> dict[str, Any]:
        env_id = self._check(body.get("id"))
        idx = body.get(self.family.reset_key, 0)
        if not isinstance(idx, int) or not 0 <= idx < len(self.tasks):
            raise ValueError(f"The {self.family.reset_key} {idx} is not valid (0..{len(self.tasks) - 1}).")
        env = self.envs[env_id]
        start = env.reset(self.tasks[idx])
        tools = [t.model_dump(mode="json") for t in start.tools]
        self.info[env_id].update({"observation": start.observation, "done": False, "reward": 0, "tools": start.tools})
        ext = self._ext(env_id, instruction=start.instruction, observation=start.observation, tools=tools)
        shown = start.observation
        if not self.family.client_shows_task:  # AgentGym's client reads the task from this text only
            shown = "\n\n".join(x for x in (start.instruction, start.observation) if x)
        return {
            "id": env_id,
            "observation": shown,
            "task_description": start.instruction,
            "done": False,
            **self._score_fields(env),
            "robustcall": ext,
        }

    def step(self, body: dict[str, Any]) -> dict[str, Any]:
        env_id = self._check(body.get("id"))
        action = body.get("action")
        if not isinstance(action, str):
            raise ValueError("action must be a string")
        env, info = self.envs[env_id], self.info[env_id]
        call = self._codec(env, info["tools"]).call(action)
        if call is None:  # not an action of this interface: the environment answers as it does in-process
            call = ToolCall(name="_".join(action.split()) or "_", arguments={})
        result = env.step(call)
        info.update({"observation": result.observation, "done": result.done, "reward": env.score()})
        ext = self._ext(env_id, error=result.error)
        return {"observation": result.observation, "done": result.done, **self._score_fields(env), "robustcall": ext}

    def detail(self, env_id: Any) -> dict[str, Any]:
        info = self.info[self._check(env_id)]
        return {k: v for k, v in info.items() if k != "tools"}


def agentgym_app(
    make_env: Callable[[], Env], family_name: str, interface: str = "origin", *, full_vocab: bool = False
) -> Any:
    """A Starlette app serving ``make_env``'s environments under AgentGym's routes for ``family_name``;
    ``interface`` names the PIPE level they are served at (announced at ``GET /``); ``full_vocab``:
    Wordle's ``filtered_vocab`` lists every valid guess (default: the short list of answers)."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    server = AgentGymServer(make_env, family_name, full_vocab=full_vocab)
    prefix = server.family.prefix

    async def body_of(request: Request) -> dict[str, Any]:
        try:
            body = json.loads(await request.body() or b"{}")
        except ValueError:
            raise ValueError("the body is not JSON") from None
        if not isinstance(body, dict):
            raise ValueError("the body must be a JSON object")
        return body

    def handler(fn: Callable[[Request], Any]) -> Callable[[Request], Any]:
        async def run(request: Request) -> JSONResponse:
            try:
                return JSONResponse(await fn(request))
            except (ValueError, KeyError) as exc:  # AgentGym's servers answer errors as {"error": ...}
                return JSONResponse({"error": str(exc)})

        return run

    async def hello(request: Request) -> dict[str, Any]:
        return {"robustcall": {"env": family_name, "interface": interface, "tasks": server.tasks}}

    async def create(request: Request) -> dict[str, Any]:
        return server.create()

    async def reset(request: Request) -> dict[str, Any]:
        return server.reset(await body_of(request))

    async def step(request: Request) -> dict[str, Any]:
        return server.step(await body_of(request))

    async def observation(request: Request) -> Any:
        return server.detail(int(request.query_params.get("id", "-1")))["observation"]

    async def detail(request: Request) -> dict[str, Any]:
        return server.detail(int(request.query_params.get("id", "-1")))

    async def close(request: Request) -> dict[str, Any]:
        return server.close(await body_of(request))

    async def available_actions(request: Request) -> list[str]:
        return server.available_actions()

    async def filtered_vocab(request: Request) -> list[str]:
        return server.vocabulary(int(request.query_params.get("id", "-1")))

    routes = [
        Route("/", handler(hello), methods=["GET"]),
        Route(f"{prefix}/create", handler(create), methods=["POST"]),
        Route(f"{prefix}/reset", handler(reset), methods=["POST"]),
        Route(f"{prefix}/step", handler(step), methods=["POST"]),
        Route(f"{prefix}/observation", handler(observation), methods=["GET"]),
        Route(f"{prefix}/detail", handler(detail), methods=["GET"]),
        Route(f"{prefix}/close", handler(close), methods=["POST"]),
        Route(f"{prefix}/available_actions", handler(available_actions), methods=["GET"]),
    ]
    if server.family.name == "wordle":
        routes.append(Route(f"{prefix}/filtered_vocab", handler(filtered_vocab), methods=["GET"]))
    return Starlette(routes=routes)
