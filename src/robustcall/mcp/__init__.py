"""Robustness over real MCP servers: the proxy's layers (RobustBench-TC perturbations of ``tools/list``,
PIPE renames, faults), record / replay, the task runner and its verifiers, and ``mcp score`` for agents
we do not run. Built from ``perturb``, ``interface`` and ``faults``; episodes go through ``run``'s loop
and are summarised by ``metrics``; nothing here computes a statistic of its own. Needs the ``mcp`` extra.
"""

from robustcall.mcp._env import BackgroundLoop, Condition, EpisodeSources, McpTaskEnv
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
from robustcall.mcp._runner import CLEAN, MANIFEST, episode_id, parse_conditions, run_mcp
from robustcall.mcp._score import Outcome, trajectories_from_log
from robustcall.mcp._summary import condition_rows, markdown
from robustcall.mcp._tasks import McpTask, TaskFile, Verifier, load_tasks
from robustcall.mcp._view import (
    DISTRACTOR_ERROR,
    INJECTION_TYPE,
    MCP_TYPES,
    QUERY_TYPES,
    TOOL_TYPES,
    Shown,
    ToolView,
    parse_perturb,
    perturbed,
)

__all__ = [
    "CLEAN",
    "DISTRACTOR_ERROR",
    "INJECTION_TYPE",
    "MANIFEST",
    "MCP_TYPES",
    "PROXY_KEY",
    "QUERY_TYPES",
    "TOOL_TYPES",
    "WORD_SYNONYMS",
    "BackgroundLoop",
    "Condition",
    "EpisodeSources",
    "Layers",
    "LiveUpstream",
    "McpProxy",
    "McpTask",
    "McpTaskEnv",
    "NotRecorded",
    "Outcome",
    "ProxyCall",
    "ProxyInjection",
    "ProxyInterface",
    "Recorder",
    "Replayer",
    "Shown",
    "TaskFile",
    "ToolView",
    "Upstream",
    "Verifier",
    "condition_rows",
    "connected_proxy",
    "episode_id",
    "load_tasks",
    "markdown",
    "mcp_interface_map",
    "parse_conditions",
    "parse_perturb",
    "perturbed",
    "run_mcp",
    "serve",
    "synonym",
    "trajectories_from_log",
    "upstream_target",
]
