"""The MCP task file: what an episode asks, of which server, how it starts, and how it is checked.

YAML (a mapping with ``servers``, optional ``setups`` and ``tasks``) or JSONL (one task a line, each with
its ``server`` given inline as a mapping)::

    servers:
      git: {command: "{bin}/mcp-server-git"}
    setups:
      repo: ["git init -q -b main repo", "..."]        # shell lines, run in the task's fresh folder
    tasks:
      - id: git-stage
        server: git
        setup: repo                                     # a setups name, or a list of shell lines
        instruction: "Stage a.txt in the repository {workdir}/repo."
        target: git_add                                 # the tool perturbations are built around
        expert:                                         # the scripted expert's calls, in order
          - {name: git_add, arguments: {repo_path: "{workdir}/repo", files: [a.txt]}}
        answer: ""                                      # the expert's final text
        verify: {command: "git -C repo diff --cached --name-only | grep -qx a.txt"}

A verifier is one of ``{command: SHELL}`` (exit status 0 is success, run in the task's folder),
``{query: {name, arguments}, expect: [TEXT, ...]}`` (a call to the server after the episode whose text
must contain every ``expect``), or ``{answer: [TEXT, ...]}`` (the agent's final text must contain each,
case-insensitively). ``{workdir}`` (the task's folder), ``{bin}`` (the folder of the running Python) and
``{python}`` are filled in everywhere; ``{sqlite_server}`` names ``mcp-server-sqlite`` (it needs mcp 1.x:
the cached environment ``~/.cache/robustcall/mcp-sqlite-venv`` when it exists, else the one on ``PATH``).
Setups and verifier commands are the task author's shell lines, never the model's text.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from robustcall.core import InputError, ToolCall, cache_dir

SETUP_ENV = {"GIT_AUTHOR_DATE": "2024-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2024-01-01T00:00:00Z",
             "GIT_AUTHOR_NAME": "Tester", "GIT_AUTHOR_EMAIL": "t@example.com",
             "GIT_COMMITTER_NAME": "Tester", "GIT_COMMITTER_EMAIL": "t@example.com"}  # fmt: skip
"""Fixed identity and dates, so that setups make the same commits every time."""


class Verifier(BaseModel):
    model_config = ConfigDict(extra="forbid")

    command: str | None = None
    query: ToolCall | None = None
    expect: list[str] = Field(default_factory=list)
    answer: list[str] | None = None

    @model_validator(mode="after")
    def _one_kind(self) -> Verifier:
        kinds = [k for k in ("command", "query", "answer") if getattr(self, k) is not None]
        if len(kinds) != 1:
            raise ValueError("a verifier is exactly one of command, query (with expect) or answer")
        return self

    @property
    def kind(self) -> str:
        return "command" if self.command is not None else "query" if self.query is not None else "answer"


class Server(BaseModel):
    model_config = ConfigDict(extra="forbid")

    command: str


class McpTask(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    server: str
    instruction: str
    setup: list[str] = Field(default_factory=list)
    target: str | None = None
    expert: list[ToolCall] = Field(default_factory=list)
    answer: str = ""
    verify: Verifier


class TaskFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    servers: dict[str, Server]
    tasks: list[McpTask]


def _placeholders(workdir: Path) -> dict[str, str]:
    venv_exe = cache_dir() / "mcp-sqlite-venv" / "bin" / "mcp-server-sqlite"
    sqlite = str(venv_exe) if venv_exe.exists() else (shutil.which("mcp-server-sqlite") or "mcp-server-sqlite")
    bindir = Path(sys.executable).parent
    return {"workdir": str(workdir), "bin": str(bindir), "python": sys.executable, "sqlite_server": sqlite}


def fill(value: Any, workdir: Path) -> Any:
    """``value`` with every ``{name}`` placeholder filled (strings inside lists and mappings too)."""
    if isinstance(value, str):
        out = value
        for key, sub in _placeholders(workdir).items():
            out = out.replace("{" + key + "}", sub)
        return out
    if isinstance(value, list):
        return [fill(v, workdir) for v in value]
    if isinstance(value, dict):
        return {k: fill(v, workdir) for k, v in value.items()}
    return value


def resolved(task: McpTask, workdir: Path) -> McpTask:
    return McpTask.model_validate(fill(task.model_dump(mode="json"), workdir))


def load_tasks(path: Path) -> TaskFile:
    """Read a task file (``.yaml``/``.yml`` or ``.jsonl``); a malformed one is an ``InputError``."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot read the task file {path}: {exc.strerror}") from None
    try:
        if path.suffix == ".jsonl":
            rows = [json.loads(line) for line in text.splitlines() if line.strip()]
            servers = {}
            for row in rows:
                if isinstance(row.get("server"), dict):
                    servers[row["id"]] = row["server"]
                    row["server"] = row["id"]
            data: Any = {"servers": servers, "tasks": rows}
        else:
            data = yaml.safe_load(text)
            setups = data.pop("setups", {}) if isinstance(data, dict) else {}
            for task in data.get("tasks", []) if isinstance(data, dict) else []:
                if isinstance(task.get("setup"), str):
                    if task["setup"] not in setups:
                        raise ValueError(f"task {task.get('id')}: unknown setup {task['setup']!r}")
                    task["setup"] = setups[task["setup"]]
        tf = TaskFile.model_validate(data)
    except (ValueError, ValidationError, yaml.YAMLError, AttributeError) as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise InputError(f"{path}: not a valid MCP task file ({first})") from None
    ids = [t.id for t in tf.tasks]
    dupes = sorted({i for i in ids if ids.count(i) > 1})
    if dupes:
        raise InputError(f"{path}: duplicate task ids {', '.join(dupes)}")
    unknown = sorted({t.server for t in tf.tasks} - set(tf.servers))
    if unknown:
        raise InputError(f"{path}: tasks name servers not in `servers`: {', '.join(unknown)}")
    return tf


class SetupError(InputError):
    """A task's setup line failed: the task file, or the machine, is at fault."""


def run_setup(task: McpTask, workdir: Path) -> None:
    workdir.mkdir(parents=True, exist_ok=True)
    for line in task.setup:
        done = subprocess.run(line, shell=True, cwd=workdir, env={**os.environ, **SETUP_ENV},
                              capture_output=True, text=True, timeout=120)  # fmt: skip
        if done.returncode != 0:
            tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or [""]
            raise SetupError(f"task {task.id}: setup line failed ({done.returncode}): {line} {tail[0]}")


def run_command_verifier(command: str, workdir: Path) -> bool:
    done = subprocess.run(command, shell=True, cwd=workdir, env={**os.environ, **SETUP_ENV},
                          capture_output=True, timeout=120)  # fmt: skip
    return done.returncode == 0


def answer_passes(expected: list[str], text: str) -> bool:
    low = text.lower()
    return all(e.lower() in low for e in expected)
