"""A down endpoint stays a connection error however long it stays down (the cooldown is capped
before it overflows a float)."""

from __future__ import annotations

import asyncio
import socket

import pytest

from robustcall.models._endpoints import COOLDOWN_MAX_S, EndpointPool, cooldown_s
from robustcall.models._http import HttpConnectionError


def _port_with_nothing_listening() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_cooldown_doubles_then_stays_at_its_cap_for_any_streak() -> None:
    assert [cooldown_s(n) for n in (1, 2, 3, 4)] == [1.0, 2.0, 4.0, 8.0]
    for streak in (7, 1_024, 1_025, 10**6, 10**12):
        assert cooldown_s(streak) == COOLDOWN_MAX_S


def test_a_down_endpoint_gives_the_networks_error_on_every_request_past_1024_failures() -> None:
    url = f"http://127.0.0.1:{_port_with_nothing_listening()}/v1/chat/completions"

    async def go() -> list[BaseException]:
        pool = EndpointPool([url], limit=1, headers={})
        errors: list[BaseException] = []
        try:
            for _ in range(1_100):
                with pytest.raises(HttpConnectionError) as caught:  # never OverflowError
                    await pool.post(b"{}", timeout_s=5.0)
                errors.append(caught.value)
        finally:
            await pool.aclose()
        assert pool.endpoints[0].failed == 1_100
        return errors

    errors = asyncio.run(go())
    assert all("cannot connect to 127.0.0.1" in str(e) for e in errors)
