"""Robustness over real MCP servers: the proxy's layers (RobustBench-TC perturbations of ``tools/list``,
PIPE renames, faults), record / replay, the task runner and its verifiers, and ``mcp score`` for agents
we do not run. Built from ``perturb``, ``interface`` and ``faults``; episodes go through ``run``'s loop
and are summarised by ``metrics``; nothing here computes a statistic of its own. Needs the ``mcp`` extra.
"""

from robustcall.mcp._names import WORD_SYNONYMS, mcp_interface_map, synonym
from robustcall.mcp._proxy import (
    PROXY_KEY,
    Layers,
    LiveUpstream,
    McpProxy,
    ProxyCall,
    ProxyInjection,
    ProxyInterface,
    connected_proxy,
    serve,
    upstream_target,
)
from robustcall.mcp._record import NotRecorded, Recorder, Replayer, Upstream
from robustcall.mcp._view import DISTRACTOR_ERROR, Shown, ToolView, parse_perturb, perturbed

__all__ = [
    "DISTRACTOR_ERROR",
    "PROXY_KEY",
    "WORD_SYNONYMS",
    "Layers",
    "LiveUpstream",
    "McpProxy",
    "NotRecorded",
    "ProxyCall",
    "ProxyInjection",
    "ProxyInterface",
    "Recorder",
    "Replayer",
    "Shown",
    "ToolView",
    "Upstream",
    "connected_proxy",
    "mcp_interface_map",
    "parse_perturb",
    "perturbed",
    "serve",
    "synonym",
    "upstream_target",
]
