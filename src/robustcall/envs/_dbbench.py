"""AgentBench DBBench replayed in SQLite: answer a question about, or change, one table with SQL.

``DbBenchEnv(path)``: ``path`` is AgentBench's ``data/dbbench`` folder (``standard.jsonl`` is used: its 300
tasks are Table 7's DataBase test set) or one of its JSONL files. Each record embeds its table
(``table.table_info``: columns and rows); on ``reset`` the table is built in a fresh in-memory SQLite
database. Two tools: ``execute_sql(sql)`` runs one statement and shows the result (at most ``MAX_ROWS``
rows), ``commit_final_answer(answer)`` ends the episode with a list of answer strings.

Score (AgentBench's answer semantics, in SQLite):

- ``INSERT`` / ``UPDATE`` / ``DELETE`` tasks: the table's content hash after the agent's statements
  equals its hash after the gold statement (``label[0]``) on a fresh copy. AgentBench's ``answer_md5``
  is a MySQL ``md5(group_concat(...))`` that SQLite cannot reproduce, so the gold statement is
  replayed instead; tasks whose gold statement SQLite rejects are left out (``skipped``).
- query tasks: the committed answer equals ``label`` as a set of normalised strings (trimmed; a
  number compared by its value to two decimals, so ``"2"`` equals ``"2.0"``).

Safety: model SQL runs in a private in-memory database under an authoriser that refuses ``ATTACH``
(no file is ever opened) and a progress handler that stops a statement after ``MAX_VM_STEPS``
virtual-machine steps; Python never evaluates any of it.

Expert: runs the gold SQL (mutations: ``label[0]``; queries: ``sql.query`` when SQLite accepts it), then
commits the answer (queries: ``label``; mutations: an empty list).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from robustcall.core import ToolCall, ToolSpec, jsonl_lines
from robustcall.envs._protocol import EnvReset, EnvStep

MAX_ROWS = 30
MAX_VM_STEPS = 5_000_000
MUTATIONS = ("INSERT", "UPDATE", "DELETE")
INSTRUCTION = (
    "I will ask you a question about a table in a SQL database, or ask you to change it. Use execute_sql to "
    "run one SQL statement at a time (SQLite dialect) and see its result. When you have the answer, or have "
    "made the change, call commit_final_answer with the answer as a list of strings (an empty list after a "
    "change)."
)


@dataclass(frozen=True)
class DbTask:
    """One DBBench record, as the environment needs it."""

    id: str
    description: str
    table: str
    columns: list[tuple[str, str]]
    rows: list[list[Any]]
    kind: str
    """``INSERT`` / ``UPDATE`` / ``DELETE``, or the query type (``counting``, ``aggregation-SUM``, …)."""
    label: list[str]
    gold_sql: str | None


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _norm(value: Any) -> str:
    s = str(value).strip()
    try:
        return f"{float(s.replace(',', '')):.2f}"
    except ValueError:
        return s


def _authorize(action: int, *_: Any) -> int:
    return sqlite3.SQLITE_DENY if action in (sqlite3.SQLITE_ATTACH, sqlite3.SQLITE_DETACH) else sqlite3.SQLITE_OK


def _database(task: DbTask) -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:", isolation_level=None)
    cols = ", ".join(f"{_q(c)} {t}" for c, t in task.columns)
    conn.execute(f"CREATE TABLE {_q(task.table)} ({cols})")
    marks = ", ".join("?" for _ in task.columns)
    conn.executemany(f"INSERT INTO {_q(task.table)} VALUES ({marks})", task.rows)
    conn.set_authorizer(_authorize)
    return conn


def _run(conn: sqlite3.Connection, sql: str) -> list[tuple[Any, ...]]:
    """Rows of one statement, stopped after ``MAX_VM_STEPS`` virtual-machine steps."""
    counter = {"n": 0}

    def guard() -> int:
        counter["n"] += 1
        return 1 if counter["n"] > MAX_VM_STEPS // 1000 else 0

    conn.set_progress_handler(guard, 1000)
    return conn.execute(sql).fetchall()


def table_hash(conn: sqlite3.Connection, table: str) -> str:
    """sha256 of the table's rows, in a canonical order (row order does not matter)."""
    rows = sorted(json.dumps(list(r), default=str) for r in conn.execute(f"SELECT * FROM {_q(table)}"))
    return hashlib.sha256("\n".join(rows).encode()).hexdigest()


def load_tasks(path: Path) -> tuple[list[DbTask], list[str]]:
    """The usable tasks of a DBBench file, and the ids left out (gold mutation SQLite rejects)."""
    file = path / "standard.jsonl" if path.is_dir() else path
    tasks, skipped = [], []
    for k, line in enumerate(jsonl_lines(file.read_text(encoding="utf-8"))):
        if not line.strip():
            continue
        r = json.loads(line)
        info = r["table"]["table_info"]
        kind = str(r["type"][0])
        task = DbTask(
            id=f"{file.stem}-{k}",
            description=f"{r['description']}\n{r['add_description']}",
            table=r["table"]["table_name"],
            columns=[(c["name"], c["type"]) for c in info["columns"]],
            rows=info["rows"],
            kind=kind,
            label=[str(x) for x in r["label"]],
            gold_sql=r["label"][0] if kind in MUTATIONS else (r.get("sql") or {}).get("query"),
        )
        if kind in MUTATIONS:
            try:
                _run(_database(task), str(task.gold_sql))
            except sqlite3.Error:
                skipped.append(task.id)
                continue
        tasks.append(task)
    return tasks, skipped


class DbBenchEnv:
    """The Env protocol over DBBench tasks in SQLite."""

    name = "dbbench"

    def __init__(self, path: Path) -> None:
        tasks, self.skipped = load_tasks(path)
        if not tasks:
            raise ValueError(f"{path}: no DBBench tasks")
        self.size_note: str | None = None
        """Why some records are not tasks (``pipe run`` prints it when the count differs from Table 7's)."""
        if self.skipped:
            self.size_note = f"{', '.join(self.skipped)} left out: the gold statement is not valid in SQLite"
        self._tasks = {t.id: t for t in tasks}
        self._task: DbTask | None = None
        self._conn: sqlite3.Connection | None = None
        self._answer: list[str] | None = None
        self._gold_hash = ""
        self._gold_ran = False

    def task_ids(self) -> list[str]:
        return list(self._tasks)

    def tools(self) -> list[ToolSpec]:
        return [
            ToolSpec(
                name="execute_sql",
                description="Run one SQL statement on the database and see its result.",
                parameters={
                    "type": "object",
                    "properties": {"sql": {"type": "string", "description": "One SQL statement."}},
                    "required": ["sql"],
                },
            ),
            ToolSpec(
                name="commit_final_answer",
                description="Submit the final answer and end the task.",
                parameters={
                    "type": "object",
                    "properties": {
                        "answer": {
                            "type": "array",
                            "items": {"type": "string"},
                            "description": "The answer values (an empty list after a change).",
                        }
                    },
                    "required": ["answer"],
                },
            ),
        ]

    @property
    def task(self) -> DbTask:
        if self._task is None:
            raise RuntimeError("call reset() first")
        return self._task

    def reset(self, task_id: str, seed: int = 0) -> EnvReset:
        if task_id not in self._tasks:
            raise KeyError(f"unknown DBBench task {task_id!r}")
        task = self._task = self._tasks[task_id]
        if self._conn is not None:
            self._conn.close()
        self._conn = _database(task)
        self._answer, self._gold_ran = None, False
        if task.kind in MUTATIONS:
            gold = _database(task)
            _run(gold, str(task.gold_sql))
            self._gold_hash = table_hash(gold, task.table)
            gold.close()
        return EnvReset(INSTRUCTION, task.description, self.tools())

    def step(self, call: ToolCall) -> EnvStep:
        if self._conn is None or self._answer is not None:
            return EnvStep("The task is over.", done=True, error=True)
        if call.name == "execute_sql":
            sql = call.arguments.get("sql")
            if not isinstance(sql, str) or not sql.strip():
                return EnvStep("execute_sql needs one SQL statement in 'sql'.", error=True)
            try:
                rows = _run(self._conn, sql)
            except (sqlite3.Error, sqlite3.Warning) as exc:
                return EnvStep(f"SQL error: {exc}", error=True)
            if sql.strip() == self.task.gold_sql:
                self._gold_ran = True
            if not rows:
                return EnvStep("[]")
            shown = json.dumps([list(r) for r in rows[:MAX_ROWS]], default=str, ensure_ascii=False)
            more = f" ({len(rows) - MAX_ROWS} more rows not shown)" if len(rows) > MAX_ROWS else ""
            return EnvStep(shown + more)
        if call.name == "commit_final_answer":
            answer = call.arguments.get("answer", [])
            if isinstance(answer, str):
                answer = [answer]
            if not isinstance(answer, list):
                return EnvStep("commit_final_answer needs 'answer': a list of strings.", error=True)
            self._answer = [str(a) for a in answer]
            return EnvStep("Answer submitted.", done=True)
        return EnvStep(f"Invalid action {call.name!r}. Valid actions: execute_sql, commit_final_answer.", error=True)

    def score(self) -> float:
        if self._conn is None or self._answer is None:
            return 0.0
        task = self.task
        if task.kind in MUTATIONS:
            return 1.0 if table_hash(self._conn, task.table) == self._gold_hash else 0.0
        return 1.0 if {_norm(a) for a in self._answer} == {_norm(a) for a in task.label} else 0.0

    def expert_action(self) -> ToolCall | None:
        if self._answer is not None:
            return None
        task = self.task
        gold = task.gold_sql
        if not self._gold_ran and gold and (task.kind in MUTATIONS or self._accepts(gold)):
            return ToolCall(name="execute_sql", arguments={"sql": gold})
        answer = [] if task.kind in MUTATIONS else list(task.label)
        return ToolCall(name="commit_final_answer", arguments={"answer": answer})

    def _accepts(self, sql: str) -> bool:
        probe = _database(self.task)
        try:
            _run(probe, sql)
            return True
        except (sqlite3.Error, sqlite3.Warning):
            return False
        finally:
            probe.close()
