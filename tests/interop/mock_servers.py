"""Mock endpoints on 127.0.0.1 for the interop tests: an OpenAI-compatible chat server (plain or TLS)
that records every request and can be killed mid-run, and an HTTP proxy (CONNECT and absolute form).

Each runs in a daemon thread with its own event loop.
"""

from __future__ import annotations

import asyncio
import socket
import ssl
import subprocess
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from aiohttp import web


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def completion(text: str = "", tool_calls: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if tool_calls:
        message["tool_calls"] = tool_calls
    return {
        "id": "x",
        "object": "chat.completion",
        "created": 0,
        "model": "m",
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }


def self_signed_cert(folder: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 / localhost and its key (``openssl req``)."""
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(cert),
         "-days", "1", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"],
        check=True, capture_output=True,
    )  # fmt: skip
    return cert, key


class _Threaded:
    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self._started = threading.Event()

    def _serve(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.run_until_complete(self._start())
        self._started.set()
        self.loop.run_forever()

    async def _start(self) -> None:
        raise NotImplementedError

    def start(self) -> None:
        self.thread.start()
        if not self._started.wait(10):
            raise RuntimeError("mock server did not start")

    def call(self, coro: Awaitable[Any]) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(10)  # type: ignore[arg-type]

    def stop(self) -> None:
        if not self.loop.is_running():
            return
        self.call(self._stop())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)

    async def _stop(self) -> None:
        raise NotImplementedError


@dataclass
class Seen:
    headers: dict[str, str]
    body: dict[str, Any]


Reply = Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]


class ChatServer(_Threaded):
    """``POST /v1/chat/completions`` answered by ``reply`` (default: text ``"[]"``); every request kept.
    Any other path (the Responses API, ...) answers 404 and is kept in ``other`` as ``METHOD /path``."""

    def __init__(self, reply: Reply | None = None, *, tls: tuple[Path, Path] | None = None) -> None:
        super().__init__()
        self.port = free_port()
        self.reply = reply
        self.seen: list[Seen] = []
        self.other: list[str] = []
        self.tls = tls
        self._runner: web.AppRunner | None = None
        self.start()

    @property
    def base_url(self) -> str:
        return f"{'https' if self.tls else 'http'}://127.0.0.1:{self.port}/v1"

    async def _chat(self, request: web.Request) -> web.Response:
        body = await request.json()
        self.seen.append(Seen(dict(request.headers), body))
        answer = await self.reply(body) if self.reply else completion("[]")
        return web.json_response(answer)

    async def _other(self, request: web.Request) -> web.Response:
        self.other.append(f"{request.method} {request.path}")
        return web.json_response({"error": {"message": f"no route {request.path}"}}, status=404)

    async def _start(self) -> None:
        app = web.Application()
        app.router.add_post("/v1/chat/completions", self._chat)
        app.router.add_route("*", "/{tail:.*}", self._other)
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=0.1)
        await self._runner.setup()
        context = None
        if self.tls:
            context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
            context.load_cert_chain(str(self.tls[0]), str(self.tls[1]))
        await web.TCPSite(self._runner, "127.0.0.1", self.port, ssl_context=context, backlog=1024).start()

    async def _stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()

    def kill(self) -> None:
        """Stop listening and drop every connection (a replica that died)."""
        self.stop()


@dataclass
class ProxyLog:
    requests: list[str] = field(default_factory=list)
    """Each request line the proxy received (``CONNECT host:port HTTP/1.1`` or ``POST http://... HTTP/1.1``)."""
    authorizations: list[str] = field(default_factory=list)


class ProxyServer(_Threaded):
    """A forward HTTP proxy: ``CONNECT`` tunnels and absolute-form requests (one per connection)."""

    def __init__(self) -> None:
        super().__init__()
        self.port = free_port()
        self.log = ProxyLog()
        self._server: asyncio.base_events.Server | None = None
        self.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def _start(self) -> None:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", self.port)

    async def _stop(self) -> None:
        if self._server is not None:
            self._server.close()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        self.log.requests.append(lines[0])
        for line in lines[1:]:
            if line.lower().startswith("proxy-authorization:"):
                self.log.authorizations.append(line.split(":", 1)[1].strip())
        method, target, _ = lines[0].split(" ", 2)
        if method == "CONNECT":
            host, port = target.rsplit(":", 1)
            up_reader, up_writer = await asyncio.open_connection(host, int(port))
            writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
            await writer.drain()
        else:
            parts = urlsplit(target)
            up_reader, up_writer = await asyncio.open_connection(parts.hostname, parts.port or 80)
            kept = [ln for ln in lines[1:] if ln and not ln.lower().startswith(("proxy-", "connection:"))]
            origin = f"{method} {parts.path or '/'} HTTP/1.1\r\n" + "".join(f"{ln}\r\n" for ln in kept)
            up_writer.write((origin + "Connection: close\r\n\r\n").encode("latin-1"))
        await asyncio.gather(self._pipe(reader, up_writer), self._pipe(up_reader, writer))

    @staticmethod
    async def _pipe(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
        try:
            while data := await src.read(65536):
                dst.write(data)
                await dst.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            dst.close()


class HubServer(_Threaded):
    """A Hugging Face Hub stand-in serving one model repo (the tree listing and ``resolve`` downloads
    ``huggingface_hub`` asks for); ``seen`` holds every request line."""

    def __init__(self, repo: str, files: dict[str, bytes]) -> None:
        super().__init__()
        self.port = free_port()
        self.repo = repo
        self.files = files
        self.seen: list[str] = []
        self._runner: web.AppRunner | None = None
        self.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def _any(self, request: web.Request) -> web.Response:
        import hashlib

        self.seen.append(f"{request.method} {request.path}")
        path = request.path
        if path.startswith(f"/api/models/{self.repo}/tree/"):
            return web.json_response(
                [{"type": "file", "path": name, "size": len(data), "oid": hashlib.sha1(data).hexdigest()}
                 for name, data in self.files.items()]
            )  # fmt: skip
        prefix = f"/{self.repo}/resolve/main/"
        if path.startswith(prefix) and path[len(prefix) :] in self.files:
            data = self.files[path[len(prefix) :]]
            headers = {
                "X-Repo-Commit": "a" * 40,
                "ETag": f'"{hashlib.sha256(data).hexdigest()}"',
                "Content-Length": str(len(data)),
            }
            return (
                web.Response(headers=headers) if request.method == "HEAD" else web.Response(body=data, headers=headers)
            )
        return web.Response(status=404)

    async def _start(self) -> None:
        app = web.Application()
        app.router.add_route("*", "/{tail:.*}", self._any)
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=0.1)
        await self._runner.setup()
        await web.TCPSite(self._runner, "127.0.0.1", self.port).start()

    async def _stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
