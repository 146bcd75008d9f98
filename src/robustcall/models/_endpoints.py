"""Several base URLs for one model (replicas behind no load balancer, e.g. one vLLM per GPU).

Each request goes to the healthy endpoint with the fewest requests outstanding (ties: the one sent
fewest so far, then the first listed). A connection error or a timeout marks its endpoint down for
a cooldown that doubles with each consecutive failure (1 s, 2 s, ... up to 60 s); once the cooldown
has passed, the endpoint gets one probe request at a time until one succeeds, which makes it healthy
again. Any HTTP response, whatever its status, counts as alive. When every endpoint is down, the
one whose cooldown ends first is tried (the caller's retry loop and backoff pace it).
The failed request itself is retried by the caller (``OpenAIChatModel.send``), usually on another
endpoint, so a replica dying mid-run loses no record.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from robustcall.models._http import HttpClient, HttpConnectionError, HttpResponse, HttpResponseTooLarge, Limits

COOLDOWN_S = 1.0
COOLDOWN_MAX_S = 60.0


def cooldown_s(streak: int) -> float:
    """How long an endpoint stays down after ``streak`` consecutive failures: 1 s, 2 s, 4 s, ...
    up to ``COOLDOWN_MAX_S``. The exponent is capped first: past about 1,024 failures (a down
    endpoint in a long run) ``2 ** streak`` would no longer fit a float."""
    doublings = min(max(streak - 1, 0), 16)  # 2**16 s is far past any cap
    return min(COOLDOWN_MAX_S, COOLDOWN_S * 2.0**doublings)


@dataclass
class Endpoint:
    url: str
    """The chat-completions URL."""
    path: str
    client: HttpClient
    outstanding: int = 0
    sent: int = 0
    ok: int = 0
    failed: int = 0
    marked_down: int = 0
    healthy: bool = True
    streak: int = 0
    """Consecutive failures."""
    down_until: float = 0.0
    """Loop time before which a down endpoint gets no request."""

    def stats(self) -> dict[str, Any]:
        return {
            "url": self.url,
            "requests": self.sent,
            "ok": self.ok,
            "failed": self.failed,
            "marked_down": self.marked_down,
            "healthy": self.healthy,
        }


class EndpointPool:
    """Least-outstanding-requests balancing with per-endpoint health over ``urls``."""

    def __init__(self, urls: list[str], *, limit: int, headers: dict[str, str], trust_env: bool = True) -> None:
        if not urls:
            raise ValueError("no endpoint URL")
        self.endpoints: list[Endpoint] = []
        for url in urls:
            parts = urlsplit(url)
            path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
            self.endpoints.append(
                Endpoint(url, path, HttpClient(url, limit=limit, headers=headers, trust_env=trust_env))
            )

    def pick(self, now: float) -> Endpoint:
        eps = self.endpoints
        if len(eps) == 1:
            return eps[0]
        best: Endpoint | None = None
        for ep in eps:
            if not ep.healthy and (ep.down_until > now or ep.outstanding > 0):
                continue  # cooling down, or its one probe is in flight
            if best is None or (ep.outstanding, ep.sent) < (best.outstanding, best.sent):
                best = ep
        if best is None:  # all down: the one back soonest
            best = min(eps, key=lambda e: (e.down_until, e.outstanding))
        return best

    async def post(self, payload: bytes, *, timeout_s: float, limits: Limits | None = None) -> HttpResponse:
        """POST to the endpoint ``pick`` chooses. Raises ``HttpConnectionError`` / ``TimeoutError``;
        a response over the size limit (``HttpResponseTooLarge``) says nothing about the endpoint's health."""
        loop = asyncio.get_running_loop()
        ep = self.pick(loop.time())
        ep.outstanding += 1
        ep.sent += 1
        try:
            resp = await ep.client.request("POST", ep.path, payload, timeout_s=timeout_s, limits=limits)
        except HttpResponseTooLarge:
            raise
        except (HttpConnectionError, TimeoutError):
            self._failed(ep, loop.time())
            raise
        finally:
            ep.outstanding -= 1
        ep.ok += 1
        ep.healthy, ep.streak = True, 0
        return resp

    def _failed(self, ep: Endpoint, now: float) -> None:
        ep.failed += 1
        ep.streak += 1
        if ep.healthy:
            ep.marked_down += 1
        ep.healthy = False
        ep.down_until = now + cooldown_s(ep.streak)

    def stats(self) -> list[dict[str, Any]]:
        return [ep.stats() for ep in self.endpoints]

    async def aclose(self) -> None:
        for ep in self.endpoints:
            await ep.client.aclose()
