"""Leaderboard storage through SQLAlchemy: a SQLite file by default, PostgreSQL by URL.

Guarantees: a submission (its raw upload, per-record verdicts and summary) is written in one
transaction, so a failed or rejected upload leaves nothing behind; concurrent uploads each get
their own transaction and id (SQLite writers are serialised by a lock and a busy timeout);
committed rows survive a restart (SQLite in WAL mode with synchronous=FULL; PostgreSQL's own
durability).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Boolean, DateTime, Float, Integer, LargeBinary, String, Text, create_engine, event, select
from sqlalchemy.engine import Engine
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, sessionmaker


class Base(DeclarativeBase):
    pass


class Submission(Base):
    __tablename__ = "submissions"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    model_name: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    bench_version: Mapped[str] = mapped_column(String(64))
    partial: Mapped[bool] = mapped_column(Boolean)
    answered: Mapped[int] = mapped_column(Integer)
    expected: Mapped[int] = mapped_column(Integer)
    pert_acc: Mapped[float | None] = mapped_column(Float, nullable=True)
    clean_acc: Mapped[float | None] = mapped_column(Float, nullable=True)
    summary_json: Mapped[str] = mapped_column(Text)
    coverage_json: Mapped[str] = mapped_column(Text)
    verdicts_jsonl: Mapped[str] = mapped_column(Text)
    raw_upload: Mapped[bytes] = mapped_column(LargeBinary)


@dataclass(frozen=True)
class NewSubmission:
    model_name: str
    bench_version: str
    partial: bool
    answered: int
    expected: int
    pert_acc: float | None
    clean_acc: float | None
    summary_json: str
    coverage_json: str
    verdicts_jsonl: str
    raw_upload: bytes


def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA synchronous=FULL")
    cur.close()


class Store:
    """Submissions: add (atomically), list, get, delete."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.is_sqlite = url.startswith("sqlite")
        kwargs: dict[str, Any] = {"connect_args": {"timeout": 30}} if self.is_sqlite else {"pool_pre_ping": True}
        self.engine: Engine = create_engine(url, **kwargs)
        if self.is_sqlite:
            event.listen(self.engine, "connect", _sqlite_pragmas)
        Base.metadata.create_all(self.engine)
        self._session = sessionmaker(self.engine, expire_on_commit=False)
        self._write_lock = threading.Lock() if self.is_sqlite else None

    def add(self, new: NewSubmission) -> Submission:
        row = Submission(created_at=datetime.now(UTC), **new.__dict__)
        if self._write_lock is not None:
            with self._write_lock, self._session.begin() as session:
                session.add(row)
        else:
            with self._session.begin() as session:
                session.add(row)
        return row

    def ranked(self) -> list[Submission]:
        """Every submission, best Pert. Acc. first (ties: earlier first)."""
        with self._session() as session:
            rows = session.scalars(select(Submission)).all()
        return sorted(rows, key=lambda r: (-(r.pert_acc if r.pert_acc is not None else -1.0), r.created_at, r.id))

    def get(self, submission_id: int) -> Submission | None:
        with self._session() as session:
            return session.get(Submission, submission_id)

    def delete(self, submission_id: int) -> bool:
        with self._session.begin() as session:
            row = session.get(Submission, submission_id)
            if row is None:
                return False
            session.delete(row)
            return True

    def count(self) -> int:
        with self._session() as session:
            return len(session.scalars(select(Submission.id)).all())

    def dispose(self) -> None:
        self.engine.dispose()
