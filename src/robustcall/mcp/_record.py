"""Record and replay of an upstream MCP server: every ``tools/list`` and ``tools/call`` a session
makes, kept as JSONL, and answered back from it with no upstream at all.

A response is keyed by the call *and the calls made before it* in that session (the upstream's state
is what those calls left), so a replay answers exactly what the recorded server answered after the same
history; a call whose history is not in the recording is an :class:`NotRecorded` infrastructure error,
never a guess. Several recorded sessions of one file form a tree of histories.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Protocol

from robustcall.core import canonical_json

RECORD_FORMAT = 1


class NotRecorded(RuntimeError):
    """A replayed session made a call the recording does not hold after this history."""


class Upstream(Protocol):
    """What the proxy layers need of an MCP server (the ``mcp`` client, a recorder, a replayer)."""

    async def list_tools(self) -> list[dict[str, Any]]: ...

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]: ...


def call_key(name: str, arguments: dict[str, Any]) -> str:
    return canonical_json([name, arguments])


class History:
    """The calls of one session so far (the key of the next response)."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def key(self, call: str) -> str:
        return canonical_json([*self.calls, call])


class Recorder:
    """Forwards to ``inner`` and appends each exchange to ``path``."""

    def __init__(self, inner: Upstream, path: Path, *, workdir: str = "") -> None:
        self.inner, self.path = inner, path
        self.history = History()
        path.parent.mkdir(parents=True, exist_ok=True)
        self._fh = path.open("a", encoding="utf-8")
        self._write({"op": "session", "format": RECORD_FORMAT, "workdir": workdir})

    def _write(self, row: dict[str, Any]) -> None:
        self._fh.write(json.dumps(row, sort_keys=True) + "\n")
        self._fh.flush()

    async def list_tools(self) -> list[dict[str, Any]]:
        tools = await self.inner.list_tools()
        self._write({"op": "list", "tools": tools})
        return tools

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        key = call_key(name, arguments)
        result = await self.inner.call_tool(name, arguments)
        self._write(
            {"op": "call", "key": self.history.key(key), "tool": name, "arguments": arguments, "result": result}
        )
        self.history.calls.append(key)
        return result

    def note(self, row: dict[str, Any]) -> None:
        """Keep a row of the session's own (a verifier's outcome) under the history so far."""
        self._write({**row, "key": canonical_json(self.history.calls)})

    def close(self) -> None:
        self._fh.close()


class Replayer:
    """Answers from a recording; ``calls`` counts the answers it gave (the upstream got none)."""

    def __init__(self, path: Path) -> None:
        if not path.is_file():
            raise NotRecorded(f"no recording at {path}")
        self.tools: list[dict[str, Any]] | None = None
        self.workdir = ""
        """The task folder of the recorded sessions (a replay fills ``{workdir}`` with it, so that its
        calls carry the recorded paths)."""
        self.answers: dict[str, dict[str, Any]] = {}
        self.notes: dict[str, dict[str, Any]] = {}
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            if row["op"] == "session" and row.get("format", 1) > RECORD_FORMAT:
                raise NotRecorded(f"{path} was written by a newer robustcall (format {row['format']})")
            if row["op"] == "session":
                self.workdir = self.workdir or str(row.get("workdir", ""))
            if row["op"] == "list" and self.tools is None:
                self.tools = row["tools"]
            elif row["op"] == "call":
                self.answers.setdefault(row["key"], row["result"])
            elif row["op"] not in ("session", "list"):
                self.notes.setdefault(f"{row['op']}:{row['key']}", row)
        self.history = History()
        self.calls = 0

    async def list_tools(self) -> list[dict[str, Any]]:
        if self.tools is None:
            raise NotRecorded("the recording holds no tools/list")
        return self.tools

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        key = call_key(name, arguments)
        full = self.history.key(key)
        if full not in self.answers:
            raise NotRecorded(
                f"{name}({canonical_json(arguments)}) after {len(self.history.calls)} calls is not in the recording"
            )
        self.history.calls.append(key)
        self.calls += 1
        return self.answers[full]

    def note(self, op: str) -> dict[str, Any]:
        """The row ``op`` recorded after this session's history (``NotRecorded`` if none)."""
        row = self.notes.get(f"{op}:{canonical_json(self.history.calls)}")
        if row is None:
            raise NotRecorded(f"no recorded {op} after these {len(self.history.calls)} calls")
        return row
