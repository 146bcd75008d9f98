"""One MCP task as an ``envs.Env``: the episode's server behind the proxy's layers, driven from the
agent loop of ``run`` (which is synchronous towards an environment).

Each episode's proxy lives in one task of a background event loop (the ``mcp`` client's cancel scopes
must open and close in the same task), and the environment hands it one request at a time. The
episode starts the task's server in a fresh folder after the task's setup (or, on replay, answers from
the recording with no server and no setup), and its verdict is the task's verifier.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import shutil
import threading
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TextIO, TypeVar

from robustcall.core import ToolCall, ToolSpec
from robustcall.envs import EnvReset, EnvStep
from robustcall.faults import EXPERT_STOP, FaultedStep, FaultProfile, InjectedFault, load_profile
from robustcall.interface import Mode
from robustcall.mcp._proxy import Layers, McpProxy, ProxyCall, connected_proxy, text_of
from robustcall.mcp._record import Recorder, Replayer
from robustcall.mcp._tasks import (
    McpTask,
    TaskFile,
    answer_passes,
    fill,
    resolved,
    run_command_verifier,
    run_setup,
)
from robustcall.perturb import Rewriter

T = TypeVar("T")
STEP_TIMEOUT_S = 120.0


class BackgroundLoop:
    """An event loop in a daemon thread, for the episodes' MCP clients."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="mcp-episodes", daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=10)


class ProxyActor:
    """One episode's proxy, opened, used and closed inside one task of the background loop."""

    def __init__(self, bg: BackgroundLoop, opener: Callable[[], AbstractAsyncContextManager[McpProxy]]) -> None:
        self.bg = bg
        self.ready: concurrent.futures.Future[McpProxy] = concurrent.futures.Future()
        self.queue: asyncio.Queue[Any] | None = None
        self.main = asyncio.run_coroutine_threadsafe(self._main(opener), bg.loop)
        self.proxy = self.ready.result(timeout=STEP_TIMEOUT_S)

    async def _main(self, opener: Callable[[], AbstractAsyncContextManager[McpProxy]]) -> None:
        self.queue = asyncio.Queue()
        try:
            async with opener() as proxy:
                self.ready.set_result(proxy)
                while (item := await self.queue.get()) is not None:
                    fn, fut = item
                    try:
                        fut.set_result(await fn(proxy))
                    except Exception as exc:  # handed to the caller, who decides
                        fut.set_exception(exc)
        except Exception as exc:
            if not self.ready.done():
                self.ready.set_exception(exc)
            else:
                raise

    def submit(self, fn: Callable[[McpProxy], Awaitable[T]]) -> T:
        fut: concurrent.futures.Future[T] = concurrent.futures.Future()
        assert self.queue is not None
        self.bg.loop.call_soon_threadsafe(self.queue.put_nowait, (fn, fut))
        return fut.result(timeout=STEP_TIMEOUT_S)

    def close(self) -> None:
        if self.queue is not None and not self.main.done():
            self.bg.loop.call_soon_threadsafe(self.queue.put_nowait, None)
        with suppress(Exception):
            self.main.result(timeout=STEP_TIMEOUT_S)


@dataclass(frozen=True)
class Condition:
    """What an episode runs under: clean, one perturbation, one rename, or one fault profile."""

    name: str
    perturb: tuple[str, ...] = ()
    rename: Mode | None = None
    order: Literal[1, 2] = 1
    profile: FaultProfile = field(default_factory=lambda: load_profile("default").with_delta(0.0))
    rewriter: Rewriter | None = field(default=None, compare=False)
    """The generated types' text (paraphrases, siblings): the offline rewriter when ``None``."""


@dataclass
class EpisodeSources:
    """Where an episode's upstream comes from: live (optionally recorded) or a recording."""

    workroot: Path
    record: Path | None = None
    replay: Path | None = None


class McpTaskEnv:
    """An ``Env`` over the tasks of a task file under one condition (one episode at a time)."""

    name = "mcp"

    def __init__(self, tasks: TaskFile, condition: Condition, sources: EpisodeSources, bg: BackgroundLoop) -> None:
        self.tasks = {t.id: t for t in tasks.tasks}
        self.servers = tasks.servers
        self.condition, self.sources, self.bg = condition, sources, bg
        self.actor: ProxyActor | None = None
        self.task: McpTask | None = None
        self.workdir = Path()
        self.done_expert = 0
        self.rows: list[ProxyCall] = []
        self.last_fault: InjectedFault | None = None
        self.final_text = ""
        self._verdict: bool | None = None
        self.names_map: list[list[str]] = []
        self.injection: dict[str, Any] | None = None
        self._log_fh: TextIO | None = None

    # Env protocol ---------------------------------------------------------------------------------
    def task_ids(self) -> list[str]:
        return list(self.tasks)

    def reset(self, task_id: str, seed: int = 0) -> EnvReset:
        self.close()
        raw = self.tasks[task_id]
        src = self.sources
        replayer: Replayer | None = None
        if src.replay is not None:
            replayer = Replayer(src.replay / f"{task_id}.jsonl")
            self.workdir = Path(replayer.workdir or src.workroot / task_id)
        else:
            self.workdir = src.workroot / self.condition.name / task_id
            shutil.rmtree(self.workdir, ignore_errors=True)
        task = resolved(raw, self.workdir)
        if replayer is None:
            run_setup(task, self.workdir)
        self.task, self.done_expert, self.rows, self.last_fault = task, 0, [], None
        self.final_text, self._verdict = "", None
        layers = Layers(self.condition.perturb, self.condition.rename, seed,
                        (task.target,) if task.target else None, task.instruction,
                        rewriter=self.condition.rewriter, order=self.condition.order)  # fmt: skip
        command = self.servers[task.server].command
        server = str(fill(command, self.workdir))
        record = src.record / f"{task_id}.jsonl" if src.record is not None else None
        key = f"mcp/{task_id}/{self.condition.name}/s{seed}"

        def opener() -> AbstractAsyncContextManager[McpProxy]:
            if replayer is not None:
                return _replayed(replayer, self.condition.profile, layers, key)
            return connected_proxy(server, self.condition.profile, None, layers, record=record, session=key,
                                   workdir=str(self.workdir), fault_key=key, errlog=self._errlog())  # fmt: skip

        self.actor = ProxyActor(self.bg, opener)
        proxy = self.actor.proxy
        if isinstance(proxy.upstream, Recorder) and task.verify.answer is None:
            # the verdict of the untouched state too: a replayed agent that changes nothing (a legacy or
            # distractor call, a give-up) is then judged, not an infrastructure error
            self._submit(self._state_verdict)
        self.names_map = [list(p) for p in proxy.names.map.synonyms] if proxy.names is not None else []
        self.injection = proxy.injection
        return EnvReset(proxy.instruction() or task.instruction, "", proxy.shown_specs())

    @property
    def proxy(self) -> McpProxy:
        if self.actor is None:
            raise RuntimeError("reset() first")
        return self.actor.proxy

    def tools(self) -> list[ToolSpec]:
        return self.proxy.shown_specs()

    def step(self, call: ToolCall) -> FaultedStep:
        result, row = self._submit(lambda p: p.call(call.name, call.arguments))
        self.rows.append(row)
        self.last_fault = row.fault
        nxt = self._expert_next()
        if nxt is not None and row.upstream == nxt.name and (row.fault is None or row.fault.executed):
            self.done_expert += 1
        return FaultedStep(observation=text_of(result), error=bool(result.get("isError")), fault=row.fault)

    def _submit(self, fn: Callable[[McpProxy], Awaitable[T]]) -> T:
        if self.actor is None:
            raise RuntimeError("reset() first")
        return self.actor.submit(fn)

    def answer(self, text: str) -> EnvStep | None:
        """The agent's text answer ends the episode (the ``answer`` verifiers read it)."""
        self.final_text = text
        return EnvStep(observation="", done=True)

    def score(self) -> float:
        return 1.0 if self.solved() else 0.0

    def solved(self) -> bool:
        if self._verdict is None:
            self._verdict = self._verify()
        return self._verdict

    def _verify(self) -> bool:
        task = self.task
        if task is None:
            raise RuntimeError("reset() first")
        if task.verify.answer is not None:
            return answer_passes(task.verify.answer, self.final_text)
        return self._submit(self._state_verdict)

    async def _state_verdict(self, p: McpProxy) -> bool:
        """A command or query verifier over the server's state now. A recording keeps the verdict under
        the session's call history (the query goes to the server beside the history, so the history
        holds the agent's calls only); a replay answers from it."""
        if isinstance(p.upstream, Replayer):
            return bool(p.upstream.note("verify")["passed"])
        v = self.task.verify if self.task is not None else None
        assert v is not None
        if v.query is not None:
            server = p.upstream.inner if isinstance(p.upstream, Recorder) else p.upstream
            result = await server.call_tool(v.query.name, v.query.arguments)
            passed = not result.get("isError") and answer_passes(v.expect, text_of(result))
        else:
            assert v.command is not None
            passed = run_command_verifier(v.command, self.workdir)
        if isinstance(p.upstream, Recorder):
            p.upstream.note({"op": "verify", "passed": passed})
        return passed

    # the scripted expert ---------------------------------------------------------------------------
    def _expert_next(self) -> ToolCall | None:
        if self.task is None or self.done_expert >= len(self.task.expert):
            return None
        return self.task.expert[self.done_expert]

    def expert_action(self) -> ToolCall | None:
        """The expert's next call in the names and parameters the agent is shown now; ``None`` when it
        is done or the tool it needs was removed."""
        nxt = self._expert_next()
        if nxt is None or self.expert_stop() is not None:
            return None
        current = self.proxy.session.to_current(nxt)
        return current.model_copy(update={"name": self.proxy.shown_name(nxt.name)})

    def original_name(self, name: str) -> str:
        """The upstream's own name of a tool shown as ``name`` (the scripted policies read it)."""
        names = self.proxy.names
        return names.back.get(name, name) if names is not None else name

    def expert_action_at_reset(self) -> ToolCall | None:
        nxt = self._expert_next()
        return None if nxt is None else nxt.model_copy(update={"name": self.proxy.shown_name(nxt.name)})

    def expert_stop(self) -> str | None:
        """Why the expert cannot go on (a removed tool), or, once it is done, the task's answer text."""
        nxt = self._expert_next()
        if nxt is not None and nxt.name in self.proxy.session.removed_tools():
            return EXPERT_STOP.format(tool=nxt.name)
        if nxt is None and self.task is not None:
            return self.task.answer or None
        return None

    def _errlog(self) -> TextIO:
        """The server's stderr goes to ``<task folder>/server.log``, not over the run's output."""
        self.workdir.mkdir(parents=True, exist_ok=True)
        self._log_fh = (self.workdir / "server.log").open("a", encoding="utf-8")
        return self._log_fh

    def upstream_calls(self) -> int:
        up = self.proxy.upstream
        return int(getattr(up, "calls", 0))

    def close(self) -> None:
        if self.actor is not None:
            self.actor.close()
            self.actor = None
        if self._log_fh is not None:
            self._log_fh.close()
            self._log_fh = None


@asynccontextmanager
async def _replayed(replayer: Replayer, profile: FaultProfile, layers: Layers, key: str) -> AsyncIterator[McpProxy]:
    proxy = McpProxy(replayer, profile, None, layers, session=key, key=key)
    await proxy.load_tools()
    yield proxy
