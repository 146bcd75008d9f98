"""The embedded local model: Qwen2.5-Coder-0.5B-Instruct (Q4_K_M) behind our own llama-server."""

from __future__ import annotations

import asyncio
import os
import time
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path

import orjson

from robustcall.core import NotReadyError
from robustcall.models._api import Mode, ModelRequest, ModelResponse
from robustcall.models._openai import OpenAIChatModel
from robustcall.models._settings import DEFAULT_CONCURRENCY, ModelSettings
from robustcall.models.local._artifacts import MODEL_FILE, TEMPLATE, LocalStatus, check
from robustcall.models.local._server import LlamaServer
from robustcall.models.local._setup import cpu_count
from robustcall.models.local._sources import ModelSourceError, resolve_gguf

LOCAL_NAME = "local:" + MODEL_FILE.removesuffix(".gguf")
MAX_PARALLEL = 8
REUSE_LIMIT = 256
"""Answers :class:`LocalModel` keeps for identical requests (the most recent ones)."""


def free_threads(cpus: int | None = None, busy: float | None = None) -> int:
    """Threads for llama-server: the CPUs not busy right now, at least one.

    ``busy``: CPUs' worth of work other processes are doing, by default measured over 0.3 s from
    ``/proc/stat`` (the 1-minute load average where that file is missing). Measured now rather than
    averaged, so that the benchmark build this process just finished does not count. llama.cpp's
    threads meet at a barrier after every operation, so a thread without a core of its own stalls
    the others: on 2 cores under a load of 14, 2 threads generated 0.3-0.6 tokens/s and 1 thread 5-8
    (benchmarks/local_threads.py). The thread count does not change the output.
    """
    cpus = cpus or cpu_count()
    if busy is None:
        busy = _busy_cpus()
    return max(1, min(cpus, round(cpus - busy)))


THREADS_ENV = "ROBUSTCALL_LLAMA_THREADS"
"""Set to a positive count to fix llama-server's threads instead of measuring the idle CPUs (the
answers are the same either way: docs/run.md, "The main job on the local model")."""


def env_threads() -> int | None:
    """The thread count :data:`THREADS_ENV` fixes, or ``None``; anything but a positive integer is refused."""
    raw = os.environ.get(THREADS_ENV, "").strip()
    if not raw:
        return None
    if not raw.isdigit() or int(raw) < 1:
        raise LocalModelNotReady(f"{THREADS_ENV}={raw!r}: give a positive number of threads, or unset it")
    return int(raw)


PORT_ENV = "ROBUSTCALL_LOCAL_PORT"
"""Set to a port for ``--model local``'s llama-server to listen on (shared hosts hand out port
ranges); unset, the OS picks a free one."""


def env_port() -> int | None:
    """The port :data:`PORT_ENV` fixes, or ``None``; anything but a port number is refused."""
    raw = os.environ.get(PORT_ENV, "").strip()
    if not raw:
        return None
    if not raw.isdigit() or not 1 <= int(raw) <= 65535:
        raise LocalModelNotReady(f"{PORT_ENV}={raw!r}: give a port number (1-65535), or unset it")
    return int(raw)


def _busy_cpus(window_s: float = 0.3) -> float:
    def sample() -> tuple[int, int]:
        with open("/proc/stat", encoding="ascii") as fh:
            fields = [int(x) for x in fh.readline().split()[1:]]
        idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
        return sum(fields), idle

    try:
        total0, idle0 = sample()
        time.sleep(window_s)
        total1, idle1 = sample()
    except (OSError, ValueError, IndexError):
        try:
            return os.getloadavg()[0]
        except (AttributeError, OSError):  # not on Unix
            return 0.0
    total = total1 - total0
    if total <= 0:
        return 0.0
    return cpu_count() * (1.0 - (idle1 - idle0) / total)


class LocalModelNotReady(NotReadyError):
    """The GGUF or llama-server is missing from the cache."""


class LocalModel:
    """A ``ChatModel`` that starts llama-server on first use and talks to it over OpenAI chat.

    Default mode is ``prompt``: robustcall renders the tools into the system prompt and parses the
    model's text itself, which tolerates the ```json fences this model likes (llama-server's own
    fc parsing answered HTTP 500 on 35 of 60 BFCL requests because of them). ``fc`` stays available:
    then our chat template lists the tools and asks for bare JSON calls, and the server parses them.

    ``reuse_answers`` (default on; only at temperature 0): a request whose JSON body is byte-identical
    to one answered before (among the last :data:`REUSE_LIMIT`) gets that answer again without asking
    the server, with ``latency_s`` 0, ``attempts`` 0 and no ``usage``. Greedy decoding gives one answer to one
    request; the main job asks the clean prompt again as pass 1 of each of the six transition types.
    Infrastructure errors are never reused. ``reused`` counts the answers given this way.
    """

    def __init__(
        self,
        settings: ModelSettings | None = None,
        *,
        mode: Mode | None = None,
        concurrency: int = DEFAULT_CONCURRENCY,
        root: Path | None = None,
        threads: int | None = None,
        ctx_size: int = 8192,
        gguf: str | Path | None = None,
        server_args: Sequence[str] = (),
        reuse_answers: bool = True,
        host: str = "127.0.0.1",
        port: int | None = None,
    ) -> None:
        status = check(root)
        if gguf is not None:  # ``local:<gguf>``: a model of your own on the cached (or adopted) server
            try:
                model_path = resolve_gguf(str(gguf), status.paths)
            except ModelSourceError as exc:
                raise LocalModelNotReady(str(exc)) from None
            if not status.server_ok:
                raise LocalModelNotReady(
                    f"no llama-server set up (missing or unverified: {status.paths.server}): run "
                    "`robustcall model setup --gguf PATH` (add --llama-server PATH to use one you have)"
                )
            status = LocalStatus(status.paths, True, True)
        elif not status.ready:
            parts = ((status.paths.gguf, status.model_ok), (status.paths.server, status.server_ok))
            missing = [p for p, ok in parts if not ok]
            raise LocalModelNotReady(
                "the embedded model is not set up (missing or unverified: "
                + ", ".join(str(p) for p in missing)
                + "): run `robustcall model setup` first"
            )
        else:
            model_path = status.paths.gguf
        self.settings = settings or ModelSettings()
        self.mode: Mode = mode or self.settings.mode
        embedded = gguf is None
        self.name = LOCAL_NAME if embedded else f"local:{model_path.name.removesuffix('.gguf')}"
        self._model_file = MODEL_FILE if embedded else model_path.name
        self.concurrency = max(1, concurrency)
        self.server = LlamaServer(
            status.paths.server,
            model_path,
            chat_template=TEMPLATE if embedded else None,  # another GGUF brings its own chat template
            parallel=min(self.concurrency, MAX_PARALLEL),
            threads=threads or env_threads() or free_threads(),
            ctx_size=ctx_size,
            host=host,
            log_dir=status.paths.logs,
            extra_args=server_args,
            port=port if port is not None else env_port(),
        )
        self._client: OpenAIChatModel | None = None
        self._lock = asyncio.Lock()
        self._slots = asyncio.Semaphore(self.server.parallel)
        """Requests beyond the server's slots wait here, so their timeout only runs while served."""
        self.reuse_answers = reuse_answers and self.settings.temperature == 0
        self._answers: OrderedDict[bytes, ModelResponse] = OrderedDict()
        self.reused = 0

    async def start(self) -> OpenAIChatModel:
        """Start the server (once) and return the client bound to it."""
        async with self._lock:
            if self._client is None or not self.server.running:
                base_url = await self.server.start()
                self._client = OpenAIChatModel(
                    self._model_file,
                    base_url,
                    self.settings,
                    mode=self.mode,
                    concurrency=self.concurrency,
                    api_key="",
                    name=self.name,
                    trust_env=False,  # our own server on 127.0.0.1: never via a proxy
                )
            return self._client

    async def complete(self, req: ModelRequest) -> ModelResponse:
        client = self._client if self._client is not None and self.server.running else await self.start()
        key = orjson.dumps(client.request_body(req)[0]) if self.reuse_answers else b""
        if key:
            hit = self._answers.get(key)
            if hit is not None:
                self._answers.move_to_end(key)
                self.reused += 1
                # no usage: the server spent no tokens on it, so token totals stay the server's own
                return ModelResponse(hit.text, hit.tool_calls, hit.error, hit.error_kind, 0.0, 0)
        async with self._slots:
            got = await client.complete(req)
        if key and got.error_kind != "infra":
            self._answers[key] = got
            if len(self._answers) > REUSE_LIMIT:
                self._answers.popitem(last=False)
        return got

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None
        self.server.stop()
