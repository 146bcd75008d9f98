"""What stands between an anonymous client and the leaderboard (docs/leaderboard.md, "Threat
model"): operator-issued upload tokens bound to names, a request-body limit enforced before and
while the body is read, and a per-client rate limit on uploads."""

from __future__ import annotations

import fnmatch
import hashlib
import hmac
import json
import threading
import time
from collections import deque
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from starlette.exceptions import HTTPException

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

ANONYMOUS = "anonymous"


class TokenError(ValueError):
    """An upload token file that cannot be read."""


@dataclass(frozen=True)
class TokenBook:
    """Upload tokens issued by the operator, each with the model names (``fnmatch`` patterns) it may
    upload under. Empty: uploads are anonymous and need no token."""

    names_by_token: dict[str, tuple[str, ...]]

    @classmethod
    def load(cls, path: Path | None) -> TokenBook:
        """``path``: YAML or JSON ``{token: [name or pattern, ...]}`` (``None``: no tokens)."""
        if path is None:
            return cls({})
        try:
            text = path.read_text(encoding="utf-8")
            data = json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)
        except (OSError, ValueError, yaml.YAMLError) as exc:
            raise TokenError(f"{path}: cannot read upload tokens: {exc}") from None
        if not isinstance(data, dict) or not data:
            raise TokenError(f"{path}: expected a non-empty mapping of token -> list of model names")
        book: dict[str, tuple[str, ...]] = {}
        for token, names in data.items():
            if not isinstance(token, str) or len(token) < 16:
                raise TokenError(f"{path}: every token must be a string of at least 16 characters")
            if isinstance(names, str):
                names = [names]
            if not isinstance(names, list) or not names or not all(isinstance(n, str) and n for n in names):
                raise TokenError(f"{path}: token {token[:4]}…: expected a list of model names")
            book[token] = tuple(names)
        return cls(book)

    @property
    def required(self) -> bool:
        return bool(self.names_by_token)

    def owner(self, token: str | None, model: str) -> str:
        """The owner key an upload of ``model`` with ``token`` stores; raises ``PermissionError``
        with the reason when the token is missing, unknown or not allowed that name."""
        if not self.required:
            return owner_key(token) if token else ANONYMOUS
        if not token:
            raise PermissionError("rejected: uploads need a token (Authorization: Bearer <token>)")
        names = None
        for known, allowed in self.names_by_token.items():
            if hmac.compare_digest(known.encode(), token.encode()):
                names = allowed
        if names is None:
            raise PermissionError("rejected: unknown upload token")
        if not any(fnmatch.fnmatchcase(model, pattern) for pattern in names):
            raise PermissionError(f"rejected: this token may not upload under the name {model!r}")
        return owner_key(token)


def owner_key(token: str) -> str:
    """What is stored of a token: a prefix of its sha256, never the token."""
    return "token:" + hashlib.sha256(token.encode()).hexdigest()[:32]


class RateLimiter:
    """At most ``limit`` events per client in any ``window_s`` seconds (a sliding window in memory,
    per server process). ``limit`` 0: no limit."""

    def __init__(self, limit: int, window_s: float = 3600.0, clock: Callable[[], float] = time.monotonic) -> None:
        self.limit = limit
        self.window_s = window_s
        self.clock = clock
        self._events: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def hit(self, client: str) -> float | None:
        """Count one event for ``client``; ``None`` when allowed, else the seconds until it would be."""
        if self.limit <= 0:
            return None
        now = self.clock()
        with self._lock:
            if len(self._events) > 100_000:  # forget idle clients rather than grow without bound
                self._events = {k: q for k, q in self._events.items() if q and q[-1] > now - self.window_s}
            q = self._events.setdefault(client, deque())
            while q and q[0] <= now - self.window_s:
                q.popleft()
            if len(q) >= self.limit:
                return max(1.0, q[0] + self.window_s - now)
            q.append(now)
            return None


class BodyLimit:
    """ASGI middleware: a request body over ``max_bytes`` gets HTTP 413 without being read past the
    limit: at once when ``Content-Length`` says so, else as soon as the streamed body passes it."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] in ("GET", "HEAD", "OPTIONS"):
            await self.app(scope, receive, send)
            return
        length = next((v for k, v in scope["headers"] if k == b"content-length"), None)
        if length is not None and (not length.isdigit() or int(length) > self.max_bytes):
            await self._refuse(send, int(length) if length.isdigit() else None)
            return
        seen = 0

        async def counted() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_bytes:  # stop reading here: Starlette answers the HTTPException
                    raise HTTPException(413, self._message(None))
            return message

        await self.app(scope, counted, send)

    def _message(self, length: int | None) -> str:
        size = f"{length:,} bytes" if length is not None else "larger than that"
        return f"rejected: the request body is {size}; the limit is {self.max_bytes:,} bytes"

    async def _refuse(self, send: Send, length: int | None) -> None:
        body = json.dumps({"error": self._message(length)})
        await send(
            {
                "type": "http.response.start",
                "status": 413,
                "headers": [(b"content-type", b"application/json"), (b"connection", b"close")],
            }
        )
        await send({"type": "http.response.body", "body": body.encode()})


SECURITY_HEADERS: tuple[tuple[bytes, bytes], ...] = (
    # the pages run no script, load nothing from elsewhere and post only to this site; the inline
    # <style> and the heatmap's style attributes are the only exception to "nothing"
    (
        b"content-security-policy",
        b"default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; form-action 'self'; "
        b"base-uri 'none'; frame-ancestors 'none'",
    ),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),  # frame-ancestors for browsers that predate CSP 2
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-opener-policy", b"same-origin"),
)


class SecurityHeaders:
    """ASGI middleware: every HTTP response carries :data:`SECURITY_HEADERS` (defence in depth
    should a name or message ever slip past the templates' escaping)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                have = {name.lower() for name, _ in message.get("headers", [])}
                extra = [(k, v) for k, v in SECURITY_HEADERS if k not in have]
                message["headers"] = [*message.get("headers", []), *extra]
            await send(message)

        await self.app(scope, receive, with_headers)
