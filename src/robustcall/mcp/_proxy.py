"""The MCP proxy on the official ``mcp`` SDK (install the ``mcp`` extra).

The proxy is an MCP server that forwards ``tools/list`` and ``tools/call`` to an upstream MCP server
(a stdio command or a streamable-HTTP URL), optionally recorded or replayed (``_record``). Agent side
first, a call passes PIPE's rename (``--rename``: a legacy name gets Table 5's "Invalid Action"), the
perturbed view (``--perturb``: a distractor is answered ``DISTRACTOR_ERROR`` and never reaches the
upstream), then the fault profile through the same ``FaultSession`` as the environment wrapper:

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

import contextlib
import json
import os
import shlex
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TextIO

try:
    import mcp_types as types
    from mcp.client.stdio import stdio_client
    from mcp.server.lowlevel import NotificationOptions, Server
    from mcp.server.stdio import stdio_server
    from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler, ToolsListChanged
    from mcp_types.version import MODERN_PROTOCOL_VERSIONS

    from mcp import Client, StdioServerParameters
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError("the MCP proxy needs the `mcp` extra: pip install 'robustcall[mcp]'") from exc

from pydantic import BaseModel, ConfigDict

from robustcall.core import JsonlAppender, ToolCall, ToolSpec, seeded_rng
from robustcall.faults import Blocked, FaultProfile, FaultSession, InjectedFault
from robustcall.interface import Mode, NameView, invalid_action
from robustcall.mcp._names import mcp_interface_map
from robustcall.mcp._record import NotRecorded, Recorder, Replayer, Upstream
from robustcall.mcp._view import DISTRACTOR_ERROR, INJECTION_TYPE, ToolView, perturbed
from robustcall.perturb import INJECTIONS, Rewriter

PROXY_KEY = "mcp-proxy"
"""The episode key of the proxy's fault session (with the profile seed it fixes every draw)."""

CallOutcome = Literal["upstream", "fault", "distractor", "legacy", "unknown"]


class ProxyInjection(BaseModel):
    """One line of the proxy's log: a call the layers answered other than by plain forwarding
    (``kind``: an injected fault, a distractor call, a legacy call of a renamed tool)."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["fault", "distractor", "legacy"] = "fault"
    session: str = ""
    tool: str
    arguments: dict[str, Any]
    fault: InjectedFault | None = None


class ProxyCall(BaseModel):
    """One line of the proxy's log per call (``--log-calls``): what ``mcp score`` reads."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["call"] = "call"
    session: str = ""
    index: int
    tool: str
    arguments: dict[str, Any]
    outcome: CallOutcome
    upstream: str | None = None
    fault: InjectedFault | None = None
    observation: str = ""
    injected: bool = False
    """``prompt_injection``: this result carried the injected instruction."""


class ProxyInterface(BaseModel):
    """The first line of a proxy log with ``--perturb`` / ``--rename``: what the agent is shown."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["interface"] = "interface"
    session: str = ""
    seed: int
    perturb: list[str]
    rename: str | None
    applied: list[dict[str, Any]]
    shown: list[tuple[str, str | None]]
    """Each listed tool's shown name and the upstream tool it runs (``None``: a distractor)."""
    interface_map: list[tuple[str, str]]


@dataclass(frozen=True)
class Layers:
    """What the proxy does to the interface besides faults (``--perturb``, ``--rename``)."""

    perturb: tuple[str, ...] = ()
    rename: Mode | None = None
    """``synonym`` / ``symbol`` (strict: the old name is a legacy call) or ``dual`` (both listed)."""
    seed: int = 0
    targets: tuple[str, ...] | None = None
    """The tools each perturbation is built around (default: every upstream tool)."""
    instruction: str = ""
    """A task's instruction, for the query types and the Reward types' added request."""
    rewriter: Rewriter | None = None
    order: Literal[1, 2] = 1
    """``dual``: 1 lists each synonym before its original name, 2 the original first (PIPE, Table 10)."""


def upstream_target(spec: str) -> StdioServerParameters | str:
    """``http(s)://...`` is a streamable-HTTP server; anything else is a command line run over stdio."""
    if spec.startswith(("http://", "https://")):
        return spec
    argv = shlex.split(spec)
    if not argv:
        raise ValueError("--upstream is empty: give a command line or an http(s) URL")
    # the SDK's default environment keeps only a few variables: a server that needs the user's own
    # (an API key, PYTHONPATH, a config path) would not start
    return StdioServerParameters(command=argv[0], args=argv[1:], env=dict(os.environ))


def text_of(result: dict[str, Any]) -> str:
    return "\n".join(str(b.get("text", "")) for b in result.get("content", []) if b.get("type") == "text")


def error_result(text: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], "isError": True}


class LiveUpstream:
    """An ``Upstream`` over a connected ``mcp`` client (results as plain JSON)."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self.calls = 0

    async def list_tools(self) -> list[dict[str, Any]]:
        tools: list[types.Tool] = []
        cursor: str | None = None
        while True:
            page = await self.client.list_tools(cursor=cursor)
            tools.extend(page.tools)
            cursor = page.next_cursor
            if cursor is None:
                break
        return [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in tools]

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        self.calls += 1
        result = await self.client.call_tool(name, arguments)
        return result.model_dump(mode="json", by_alias=True, exclude_none=True)


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


class McpProxy:
    """The proxy's layers over one upstream, agent side first: rename (PIPE), perturbation view
    (RobustBench-TC), faults (``FaultSession``). ``call`` is the one path every call takes, from the
    MCP server handler and from ``mcp run``'s episodes alike."""

    def __init__(
        self,
        upstream: Upstream,
        profile: FaultProfile,
        log_path: Path | None = None,
        layers: Layers | None = None,
        *,
        session: str = "",
        key: str = PROXY_KEY,
        log_calls: bool = False,
    ) -> None:
        self.upstream = upstream
        self.profile = profile
        self.layers = layers or Layers()
        self.session_id = session
        self.key = key
        self.log = JsonlAppender(log_path) if log_path is not None else None
        self.log_calls = log_calls
        self.bus = InMemorySubscriptionBus()
        self._tools: dict[str, dict[str, Any]] = {}
        self._session: FaultSession | None = None
        self._view: tuple[frozenset[str], ToolView] | None = None
        self.names: NameView | None = None
        self.calls = 0
        self.injection: dict[str, Any] | None = None
        self.injection_text = ""
        self._injected = False

    async def load_tools(self) -> None:
        """Fetch the upstream tool list and start the fault session and the interface over it."""
        tools = await self.upstream.list_tools()
        self._tools = {str(t["name"]): t for t in tools}
        specs = [ToolSpec(name=str(t["name"]), description=str(t.get("description") or ""),
                          parameters=dict(t.get("inputSchema") or {"type": "object"})) for t in tools]  # fmt: skip
        self._session = FaultSession(self.profile, specs, key=self.key)
        if self.layers.rename is not None:
            shown = list(dict.fromkeys(s.spec.name for s in self.view().tools))
            self.names = NameView(mcp_interface_map("mcp", shown), self.layers.rename)
        if INJECTION_TYPE in self.layers.perturb:
            self._draw_injection(specs)
        if self.log is not None and (self.layers.perturb or self.layers.rename):
            view = self.view()
            injected = [{"type": INJECTION_TYPE, "injection": self.injection, "instruction": self.injection_text}]
            self.log.write(
                ProxyInterface(
                    session=self.session_id,
                    seed=self.layers.seed,
                    perturb=list(self.layers.perturb),
                    rename=self.layers.rename,
                    applied=view.applied + (injected if self.injection else []),
                    shown=[(self.display(s.spec.name), s.upstream) for s in view.tools],
                    interface_map=list(self.names.map.synonyms) if self.names is not None else [],
                )
            )

    def _draw_injection(self, specs: list[ToolSpec]) -> None:
        """The instruction hidden in the first real result: stop, or call a tool other than the
        targets (``perturb``'s ``INJECTIONS`` texts), drawn with the seed."""
        rng = seeded_rng(self.layers.seed, "mcp", INJECTION_TYPE, *(self.layers.targets or ()))
        targets = set(self.layers.targets or ())
        others = [t.name for t in specs if t.name not in targets]
        kinds: list[dict[str, Any]] = [{"kind": "stop"}]
        if others:
            kinds.append({"kind": "call", "tool": self.display(rng.choice(others))})
        self.injection = rng.choice(kinds)
        self.injection_text = INJECTIONS[self.injection["kind"]].format(
            tool=self.injection.get("tool", ""), parameter="", value_json="null"
        )

    @property
    def session(self) -> FaultSession:
        if self._session is None:
            raise RuntimeError("load_tools() first")
        return self._session

    def view(self) -> ToolView:
        """The perturbed view of the tools as the fault session shows them now (recomputed only when
        non-stationarity changed them; the same seed gives the same view)."""
        changed = frozenset(self.session.changed_tools()) | frozenset(self.session.removed_tools())
        if self._view is None or self._view[0] != changed:
            lay = self.layers
            current = self.session.tools()
            names = {t.name for t in current}
            targets = [t for t in lay.targets if t in names] if lay.targets is not None else None
            codes = [c for c in lay.perturb if c != INJECTION_TYPE]
            view = perturbed(current, codes, targets=targets, instruction=lay.instruction, seed=lay.seed,
                             rewriter=lay.rewriter)  # fmt: skip
            self._view = (changed, view)
        return self._view[1]

    def display(self, name: str) -> str:
        return self.names.shown.get(name, name) if self.names is not None else name

    def shown_pairs(self) -> list[tuple[ToolSpec, str | None]]:
        """The tools as the agent sees them (renamed, perturbed, after any interface change), each with
        the upstream tool it runs; in ``dual`` mode each tool twice, under both names, in the order's
        sequence, each saying which name it equals (as PIPE's ``InterfaceEnv`` lists them)."""
        out: list[tuple[ToolSpec, str | None]] = []
        dual = self.names is not None and self.names.mode == "dual"
        for s in self.view().tools:
            shown = self.display(s.spec.name)
            if not dual:
                out.append((s.spec.model_copy(update={"name": shown}), s.upstream))
                continue
            syn = s.spec.model_copy(
                update={"name": shown, "description": f"{s.spec.description} Equivalent to {s.spec.name}."}
            )
            ori = s.spec.model_copy(update={"description": f"{s.spec.description} Equivalent to {shown}."})
            pair = [syn, ori] if self.layers.order == 1 else [ori, syn]
            out += [(spec, s.upstream) for spec in pair]
        return out

    def shown_specs(self) -> list[ToolSpec]:
        return [spec for spec, _ in self.shown_pairs()]

    def shown_name(self, upstream: str) -> str:
        return self.display(self.view().shown_name(upstream))

    def instruction(self) -> str:
        text = self.view().instruction
        return self.names.rewrite(text) if self.names is not None and hasattr(self.names, "rewrite") else text

    def listed_tools(self) -> list[types.Tool]:
        out = []
        for spec, upstream in self.shown_pairs():
            base = dict(self._tools.get(upstream or "", {}))
            if upstream is None:
                base.pop("outputSchema", None)
            base.update({"name": spec.name, "description": spec.description, "inputSchema": spec.parameters})
            out.append(types.Tool.model_validate(base))
        return out

    async def call(self, name: str, arguments: dict[str, Any]) -> tuple[dict[str, Any], ProxyCall]:
        """Answer one call through the layers; the upstream sees only its own names."""
        index, self.calls = self.calls, self.calls + 1
        row = ProxyCall(session=self.session_id, index=index, tool=name, arguments=arguments, outcome="upstream")
        if self.names is not None and self.names.is_deprecated(name):
            text = invalid_action(name, self.names.shown[name])
            return self._answer(error_result(text), row, "legacy", text)
        inner = self.names.back.get(name, name) if self.names is not None else name
        shown = self.view().route(ToolCall(name=inner, arguments=arguments))
        if shown is not None and shown.upstream is None:
            text = DISTRACTOR_ERROR.format(name=name)
            return self._answer(error_result(text), row, "distractor", text)
        target = shown.upstream if shown is not None and shown.upstream is not None else inner
        call = ToolCall(name=target, arguments=arguments)
        plan = self.session.plan(call)
        if isinstance(plan, Blocked):
            row = row.model_copy(update={"fault": plan.fault})
            return self._answer(error_result(plan.fault.observation), row, "fault", plan.fault.observation)
        result = await self.upstream.call_tool(plan.call.name, plan.call.arguments)
        row = row.model_copy(update={"upstream": plan.call.name})
        if self.injection is not None and not self._injected and not result.get("isError"):
            self._injected = True
            note = {"type": "text", "text": self.injection_text}
            result = {**result, "content": [*result.get("content", []), note]}
            row = row.model_copy(update={"injected": True})
        if plan.anomaly is None:
            return self._answer(result, row, "upstream", text_of(result))
        shown_text, fault = self.session.finish(plan, text_of(result))
        if fault is None:
            return self._answer(result, row, "upstream", text_of(result))
        try:
            parsed = json.loads(shown_text)
        except ValueError:
            parsed = None
        out: dict[str, Any] = {
            "content": [{"type": "text", "text": shown_text}],
            "isError": bool(result.get("isError")),
        }
        if isinstance(parsed, dict):
            out["structuredContent"] = parsed
        return self._answer(out, row.model_copy(update={"fault": fault}), "fault", shown_text)

    def _answer(
        self, result: dict[str, Any], row: ProxyCall, outcome: CallOutcome, text: str
    ) -> tuple[dict[str, Any], ProxyCall]:
        row = row.model_copy(update={"outcome": outcome, "observation": text})
        if self.log is not None:
            if self.log_calls:
                self.log.write(row)
            elif outcome in ("fault", "distractor", "legacy"):
                kind: Literal["fault", "distractor", "legacy"] = outcome
                self.log.write(ProxyInjection(kind=kind, session=self.session_id, tool=row.tool,
                                              arguments=row.arguments, fault=row.fault))  # fmt: skip
        return result, row

    # the MCP server side ------------------------------------------------------------------------
    async def on_list_tools(self, ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=self.listed_tools())

    async def on_call_tool(self, ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        before = self.session.changed_tools()
        try:
            result, _ = await self.call(params.name, dict(params.arguments or {}))
        except NotRecorded as exc:  # replaying: the recording cannot say what the server would answer
            result = error_result(f"robustcall replay: {exc}")
        if self.session.changed_tools() != before:
            await self._announce_list_changed(ctx)
        return types.CallToolResult.model_validate(result)

    async def _announce_list_changed(self, ctx: Any) -> None:
        await self.bus.publish(ToolsListChanged())
        if getattr(ctx, "protocol_version", None) not in MODERN_PROTOCOL_VERSIONS:
            await ctx.session.send_tool_list_changed()

    def close(self) -> None:
        if self.log is not None:
            self.log.close()

    def server(self) -> Server[Any]:
        return _ProxyServer(
            "robustcall-mcp-proxy",
            version="1",
            instructions="Forwards tools to an upstream MCP server; perturbs, renames and injects faults (robustcall).",
            on_list_tools=self.on_list_tools,
            on_call_tool=self.on_call_tool,
            on_subscriptions_listen=ListenHandler(self.bus),
        )


@asynccontextmanager
async def connected_proxy(
    upstream: str,
    profile: FaultProfile,
    log_path: Path | None,
    layers: Layers | None = None,
    *,
    record: Path | None = None,
    replay: Path | None = None,
    session: str = "",
    log_calls: bool = False,
    workdir: str = "",
    fault_key: str = PROXY_KEY,
    errlog: TextIO | None = None,
) -> AsyncIterator[McpProxy]:
    """A proxy whose upstream is connected (or replayed from ``replay``) and listed; closed on exit.
    ``fault_key`` seeds the fault session with the profile (``mcp run``: the episode's id)."""
    async with contextlib.AsyncExitStack() as stack:
        recorder: Recorder | None = None
        if replay is not None:
            up: Upstream = Replayer(replay)
        else:
            target = upstream_target(upstream)
            if errlog is not None and isinstance(target, StdioServerParameters):
                target = stdio_client(target, errlog=errlog)  # type: ignore[assignment]
            up = LiveUpstream(await stack.enter_async_context(Client(target, cache=None)))
            if record is not None:
                up = recorder = Recorder(up, record, workdir=workdir)
        proxy = McpProxy(up, profile, log_path, layers, session=session, log_calls=log_calls, key=fault_key)
        await proxy.load_tools()
        if recorder is not None:  # closed after the proxy, before the upstream's connection
            stack.callback(recorder.close)
        stack.callback(proxy.close)
        yield proxy


async def serve(
    upstream: str,
    profile: FaultProfile,
    *,
    log_path: Path | None,
    transport: str,
    port: int,
    layers: Layers | None = None,
    record: Path | None = None,
    replay: Path | None = None,
    session: str = "",
    log_calls: bool = False,
) -> None:
    """Run the proxy until the client disconnects (stdio) or the process is stopped (http)."""
    async with connected_proxy(upstream, profile, log_path, layers, record=record, replay=replay, session=session,
                               log_calls=log_calls) as proxy:  # fmt: skip
        server = proxy.server()
        if transport == "stdio":
            options = server.create_initialization_options()
            async with stdio_server() as (read, write):
                await server.run(read, write, options)
            return
        import uvicorn

        app = server.streamable_http_app(host="127.0.0.1")
        config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")
        print(f"mcp proxy on http://127.0.0.1:{port}/mcp", file=sys.stderr, flush=True)
        await uvicorn.Server(config).serve()
