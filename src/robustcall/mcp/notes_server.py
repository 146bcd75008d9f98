"""A tiny MCP server of named notes kept as files in one folder (the suite's fourth kind of server:
a document store, where git is version control, sqlite a database and time a pure function).

    python -m robustcall.mcp.notes_server --dir NOTES_DIR

Tools: ``list_notes``, ``read_note``, ``write_note``, ``append_note``, ``delete_note``. A note's name is
a plain word (letters, digits, ``-``, ``_``); its text is the file ``NOTES_DIR/<name>.txt``.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")

_NAME_PARAM = {"type": "string", "description": "The note's name (letters, digits, - and _)."}
TOOLS = [
    types.Tool(name="list_notes", description="List the names of all notes, one per line.",
               input_schema={"type": "object", "properties": {}}),
    types.Tool(name="read_note", description="Read the text of a note.",
               input_schema={"type": "object", "properties": {"name": _NAME_PARAM}, "required": ["name"]}),
    types.Tool(name="write_note", description="Create a note, or replace its text.",
               input_schema={"type": "object", "properties": {"name": _NAME_PARAM, "text": {
                   "type": "string", "description": "The note's new text."}}, "required": ["name", "text"]}),
    types.Tool(name="append_note", description="Append a line of text to a note (creating it if needed).",
               input_schema={"type": "object", "properties": {"name": _NAME_PARAM, "text": {
                   "type": "string", "description": "The line to append."}}, "required": ["name", "text"]}),
    types.Tool(name="delete_note", description="Delete a note.",
               input_schema={"type": "object", "properties": {"name": _NAME_PARAM}, "required": ["name"]}),
]  # fmt: skip


def _result(text: str, error: bool = False) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=error)


def handle(folder: Path, tool: str, args: dict[str, Any]) -> types.CallToolResult:
    """One call, by explicit dispatch on the tool name."""
    if tool == "list_notes":
        return _result("\n".join(sorted(p.stem for p in folder.glob("*.txt"))) or "(no notes)")
    name = args.get("name")
    if not isinstance(name, str) or not NAME.fullmatch(name):
        return _result(f"invalid note name: {name!r}", error=True)
    path = folder / f"{name}.txt"
    text = args.get("text")
    if tool in ("write_note", "append_note") and not isinstance(text, str):
        return _result("text must be a string", error=True)
    if tool == "write_note":
        path.write_text(str(text), encoding="utf-8")
        return _result(f"wrote {name}")
    if tool == "append_note":
        before = path.read_text(encoding="utf-8") if path.exists() else ""
        sep = "" if not before or before.endswith("\n") else "\n"
        path.write_text(f"{before}{sep}{text}\n", encoding="utf-8")
        return _result(f"appended to {name}")
    if not path.exists():
        return _result(f"no note named {name}", error=True)
    if tool == "read_note":
        return _result(path.read_text(encoding="utf-8"))
    if tool == "delete_note":
        path.unlink()
        return _result(f"deleted {name}")
    return _result(f"unknown tool: {tool}", error=True)


def server(folder: Path) -> Server[Any]:
    async def on_list(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=TOOLS)

    async def on_call(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        return handle(folder, params.name, dict(params.arguments or {}))

    return Server("robustcall-notes", version="1", on_list_tools=on_list, on_call_tool=on_call)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--dir", type=Path, required=True, help="Folder of the notes (created if missing).")
    ns = parser.parse_args(argv)
    folder: Path = ns.dir
    folder.mkdir(parents=True, exist_ok=True)
    srv = server(folder)

    async def run() -> None:
        async with stdio_server() as (read, write):
            await srv.run(read, write, srv.create_initialization_options())

    anyio.run(run)


if __name__ == "__main__":
    main()
