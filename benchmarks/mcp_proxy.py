"""Latency overhead of the MCP fault proxy per tool call.

Drives the same calls against a reference server directly and through ``robustcall faults mcp-proxy``
(stdio both ways, δ = 0 so every call is forwarded), alternating rounds to share machine noise, and
prints the median per-call latency of each path, the overhead in milliseconds and the ratio. Also
times ``FaultSession.plan`` alone (the injector's own cost per call).

    .venv/bin/python benchmarks/mcp_proxy.py --calls 200 --rounds 3
"""

from __future__ import annotations

import argparse
import asyncio
import shlex
import statistics
import sys
import time
from pathlib import Path

from mcp import Client, StdioServerParameters
from robustcall.core import ToolCall, ToolSpec
from robustcall.faults import FaultSession, load_profile

BIN = Path(sys.executable).parent
CALL = ("convert_time", {"source_timezone": "Europe/Warsaw", "time": "12:00", "target_timezone": "UTC"})


def direct() -> StdioServerParameters:
    return StdioServerParameters(command=str(BIN / "mcp-server-time"), args=["--local-timezone", "UTC"])


def proxied(delta: float) -> StdioServerParameters:
    upstream = shlex.join([str(BIN / "mcp-server-time"), "--local-timezone", "UTC"])
    args = ["faults", "mcp-proxy", "--upstream", upstream, "--delta", str(delta)]
    return StdioServerParameters(command=str(BIN / "robustcall"), args=args)


async def per_call_ms(target: StdioServerParameters, calls: int) -> list[float]:
    async with Client(target, cache=None) as client:
        await client.list_tools()
        for _ in range(10):  # warm-up
            await client.call_tool(*CALL)
        out = []
        for _ in range(calls):
            t0 = time.perf_counter()
            await client.call_tool(*CALL)
            out.append(1000 * (time.perf_counter() - t0))
        return out


def plan_us(n: int = 20000) -> float:
    spec = ToolSpec(name="convert_time", parameters={"type": "object", "properties": {"time": {"type": "string"}}})
    session = FaultSession(load_profile("default").with_delta(0.0), [spec], key="bench")
    call = ToolCall(name=CALL[0], arguments=CALL[1])
    t0 = time.perf_counter()
    for _ in range(n):
        session.plan(call)
    return 1e6 * (time.perf_counter() - t0) / n


async def main(calls: int, rounds: int) -> None:
    d_all: list[float] = []
    p_all: list[float] = []
    for r in range(rounds):
        d = await per_call_ms(direct(), calls)
        p = await per_call_ms(proxied(0.0), calls)
        d_all += d
        p_all += p
        print(f"round {r + 1}: direct {statistics.median(d):.2f} ms, proxied {statistics.median(p):.2f} ms")
    dm, pm = statistics.median(d_all), statistics.median(p_all)
    print(f"\nconvert_time over stdio, {rounds} x {calls} calls per path, δ = 0 (every call forwarded)")
    print(f"median per call: direct {dm:.2f} ms, through the proxy {pm:.2f} ms")
    print(f"overhead per call: {pm - dm:.2f} ms ({pm / dm:.2f}x direct)")
    d90, p90 = statistics.quantiles(d_all, n=10)[-1], statistics.quantiles(p_all, n=10)[-1]
    print(f"p90: direct {d90:.2f} ms, proxied {p90:.2f} ms")
    print(f"FaultSession.plan alone: {plan_us():.1f} µs per call")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--calls", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=3)
    ns = ap.parse_args()
    asyncio.run(main(ns.calls, ns.rounds))
