"""``mcp score``: an agent we do not run, seen through the proxy. The proxy's log (``--log-calls``, one
``--session <condition>/<task>`` per episode) gives each episode's calls, faults, distractor and
legacy calls; the user's outcomes file (JSONL ``{"task", "condition", "success"}``) gives the verdicts.
Together they become ``Trajectory`` records (no transcript: EIA, which reads the agent's text, stays
empty), summarised exactly as ``mcp run`` summarises its own."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from robustcall.core import InputError, Step, ToolCall, Trajectory
from robustcall.mcp._proxy import ProxyCall, ProxyInterface


class Outcome(BaseModel):
    model_config = ConfigDict(extra="ignore")

    task: str
    condition: str = "clean"
    success: bool | None


def _jsonl(path: Path, what: str) -> list[dict[str, Any]]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise InputError(f"cannot read {what} {path}: {exc.strerror}") from None
    try:
        return [json.loads(line) for line in lines if line.strip()]
    except ValueError:
        raise InputError(f"{path}: not JSONL ({what})") from None


def trajectories_from_log(log: Path, outcomes: Path) -> dict[str, list[Trajectory]]:
    """Each condition's episodes (``clean`` first), one per outcome line."""
    calls: dict[str, list[ProxyCall]] = {}
    shown: dict[str, ProxyInterface] = {}
    try:
        for row in _jsonl(log, "the proxy log"):
            if row.get("kind") == "call":
                c = ProxyCall.model_validate(row)
                calls.setdefault(c.session, []).append(c)
            elif row.get("kind") == "interface":
                i = ProxyInterface.model_validate(row)
                shown[i.session] = i
        results = [Outcome.model_validate(r) for r in _jsonl(outcomes, "the outcomes file")]
    except ValidationError as exc:
        raise InputError(f"malformed line: {str(exc).splitlines()[0]}") from None
    if not any(calls.values()):
        raise InputError(f"{log} holds no call lines: run the proxy with --log-calls and --session <condition>/<task>")
    runs: dict[str, list[Trajectory]] = {}
    for o in sorted(results, key=lambda o: (o.condition != "clean", o.condition, o.task)):
        session = f"{o.condition}/{o.task}"
        steps = [
            Step(index=c.index, action=ToolCall(name=c.tool, arguments=c.arguments), observation=c.observation,
                 fault=c.fault.model_dump() if c.fault is not None else None,
                 error=c.observation if c.outcome != "upstream" else None)
            for c in calls.get(session, [])
        ]  # fmt: skip
        distractor = sum(c.outcome == "distractor" for c in calls.get(session, []))
        config: dict[str, Any] = {"condition": o.condition, "distractor_calls": distractor}
        face = shown.get(session)
        if face is not None and face.rename is not None:
            config.update({"env": "mcp", "level": face.rename, "interface_map": [list(p) for p in face.interface_map]})
        runs.setdefault(o.condition, []).append(
            Trajectory(
                id=f"mcp/{o.task}/{o.condition}",
                env="mcp",
                task_id=o.task,
                config=config,
                steps=steps,
                success=o.success,
                score=float(bool(o.success)),
                termination="done" if o.success is not None else "infra",
            )
        )
    return runs
