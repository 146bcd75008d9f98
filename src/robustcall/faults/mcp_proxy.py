"""A fault-injecting MCP proxy on the official ``mcp`` SDK (install the ``mcp`` extra).

The proxy is an MCP server that forwards ``tools/list`` and ``tools/call`` to an upstream MCP server
(a stdio command or a streamable-HTTP URL) and applies a fault profile through the same
``FaultSession`` as the environment wrapper:

- execution errors come back as ``isError`` results carrying the synthesised message; the upstream
  tool is not called;
- semantic anomalies call the upstream tool and corrupt its text content (structured content
  follows the corrupted text when that is a JSON object, and is dropped otherwise);
- non-stationarity changes what ``tools/list`` shows (a deprecated tool disappears, a parameter is
  renamed or newly required) and announces it with ``notifications/tools/list_changed`` (on the
  handshake era's session, and to ``subscriptions/listen`` streams on 2026-07-28 connections).

One fault session spans the proxy's lifetime (all clients share it), seeded by the profile; each
injection is appended to a JSONL log.
"""

from __future__ import annotations

import json
import shlex
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

try:
    import mcp_types as types
    from mcp import Client, StdioServerParameters
    from mcp.server.lowlevel import NotificationOptions, Server
    from mcp.server.stdio import stdio_server
    from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler, ToolsListChanged
    from mcp_types.version import MODERN_PROTOCOL_VERSIONS
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError("the MCP proxy needs the `mcp` extra: pip install 'robustcall[mcp]'") from exc

from pydantic import BaseModel, ConfigDict

from robustcall.core import JsonlAppender, ToolCall, ToolSpec
from robustcall.faults._injector import InjectedFault
from robustcall.faults._profile import FaultProfile
from robustcall.faults._session import Blocked, FaultSession

PROXY_KEY = "mcp-proxy"
"""The episode key of the proxy's fault session (with the profile seed it fixes every draw)."""


class ProxyInjection(BaseModel):
    """One line of the proxy's injection log."""

    model_config = ConfigDict(extra="forbid")

    tool: str
    arguments: dict[str, Any]
    fault: InjectedFault


def upstream_target(spec: str) -> StdioServerParameters | str:
    """``http(s)://...`` is a streamable-HTTP server; anything else is a command line run over stdio."""
    if spec.startswith(("http://", "https://")):
        return spec
    argv = shlex.split(spec)
    if not argv:
        raise ValueError("--upstream is empty: give a command line or an http(s) URL")
    return StdioServerParameters(command=argv[0], args=argv[1:])


def _text_of(result: types.CallToolResult) -> str:
    return "\n".join(block.text for block in result.content if isinstance(block, types.TextContent))


class _ProxyServer(Server[Any]):
    """Advertises ``tools.listChanged`` on every transport (the HTTP runner asks with no options)."""

    def create_initialization_options(
        self,
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, dict[str, Any]] | None = None,
        extensions: dict[str, dict[str, Any]] | None = None,
    ) -> Any:
        return super().create_initialization_options(
            notification_options or NotificationOptions(tools_changed=True), experimental_capabilities, extensions
        )


class FaultProxy:
    """The proxy's handlers over one connected upstream client."""

    def __init__(self, upstream: Client, profile: FaultProfile, log_path: Path | None = None) -> None:
        self.upstream = upstream
        self.profile = profile
        self.log = JsonlAppender(log_path) if log_path is not None else None
        self.bus = InMemorySubscriptionBus()
        self._tools: dict[str, types.Tool] = {}
        self._session: FaultSession | None = None

    async def load_tools(self) -> None:
        """Fetch the upstream tool list (all pages) and start the fault session over it."""
        tools: list[types.Tool] = []
        cursor: str | None = None
        while True:
            page = await self.upstream.list_tools(cursor=cursor)
            tools.extend(page.tools)
            cursor = page.next_cursor
            if cursor is None:
                break
        self._tools = {t.name: t for t in tools}
        specs = [ToolSpec(name=t.name, description=t.description or "", parameters=dict(t.input_schema)) for t in tools]
        self._session = FaultSession(self.profile, specs, key=PROXY_KEY)

    @property
    def session(self) -> FaultSession:
        if self._session is None:
            raise RuntimeError("load_tools() first")
        return self._session

    def listed_tools(self) -> list[types.Tool]:
        """The upstream tools as the fault session shows them now."""
        return [self._tools[s.name].model_copy(update={"input_schema": s.parameters}) for s in self.session.tools()]

    async def on_list_tools(self, ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=self.listed_tools())

    async def on_call_tool(self, ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        arguments = dict(params.arguments or {})
        call = ToolCall(name=params.name, arguments=arguments)
        changed_before = self.session.changed_tools()
        plan = self.session.plan(call)
        if isinstance(plan, Blocked):
            self._record(call, plan.fault)
            if self.session.changed_tools() != changed_before:
                await self._announce_list_changed(ctx)
            return types.CallToolResult(
                content=[types.TextContent(type="text", text=plan.fault.observation)], is_error=True
            )
        result = await self.upstream.call_tool(plan.call.name, plan.call.arguments)
        if plan.anomaly is None:
            return result
        shown, fault = self.session.finish(plan, _text_of(result))
        if fault is None:
            return result
        self._record(call, fault)
        try:
            parsed = json.loads(shown)
        except ValueError:
            parsed = None
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=shown)],
            structured_content=parsed if isinstance(parsed, dict) else None,
            is_error=result.is_error,
        )

    def _record(self, call: ToolCall, fault: InjectedFault) -> None:
        if self.log is not None:
            self.log.write(ProxyInjection(tool=call.name, arguments=call.arguments, fault=fault))

    async def _announce_list_changed(self, ctx: Any) -> None:
        await self.bus.publish(ToolsListChanged())
        if getattr(ctx, "protocol_version", None) not in MODERN_PROTOCOL_VERSIONS:
            await ctx.session.send_tool_list_changed()

    def server(self) -> Server[Any]:
        return _ProxyServer(
            "robustcall-fault-proxy",
            version="1",
            instructions="Forwards tools to an upstream MCP server and injects faults (robustcall).",
            on_list_tools=self.on_list_tools,
            on_call_tool=self.on_call_tool,
            on_subscriptions_listen=ListenHandler(self.bus),
        )


@asynccontextmanager
async def connected_proxy(upstream: str, profile: FaultProfile, log_path: Path | None) -> AsyncIterator[FaultProxy]:
    """A proxy whose upstream is connected and listed; the upstream closes on exit."""
    async with Client(upstream_target(upstream), cache=None) as client:
        proxy = FaultProxy(client, profile, log_path)
        await proxy.load_tools()
        try:
            yield proxy
        finally:
            if proxy.log is not None:
                proxy.log.close()


async def serve(upstream: str, profile: FaultProfile, *, log_path: Path | None, transport: str, port: int) -> None:
    """Run the proxy until the client disconnects (stdio) or the process is stopped (http)."""
    async with connected_proxy(upstream, profile, log_path) as proxy:
        server = proxy.server()
        if transport == "stdio":
            options = server.create_initialization_options()
            async with stdio_server() as (read, write):
                await server.run(read, write, options)
            return
        import uvicorn

        app = server.streamable_http_app(host="127.0.0.1")
        config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")
        print(f"fault proxy on http://127.0.0.1:{port}/mcp", file=sys.stderr, flush=True)
        await uvicorn.Server(config).serve()
