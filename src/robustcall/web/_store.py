"""Leaderboard storage through SQLAlchemy: a SQLite file by default, PostgreSQL by URL.

Guarantees: a submission (its raw upload, per-record verdicts and summary) is written in one
transaction, so a failed or rejected upload leaves nothing behind; concurrent uploads each get
their own transaction and id (SQLite writers are serialised by a lock and a busy timeout);
committed rows survive a restart (SQLite in WAL mode with synchronous=FULL; PostgreSQL's own
durability).

The raw upload and the verdicts are stored gzip-compressed in deferred columns: the pages and the
ranked table read only the small columns, one page at a time, ordered by the database.

Every write also counts up the board's *version* (one row of ``board_state``), in the same
transaction and as its first statement: the pages are cached by that version (``_cache``), and the
row lock that the update takes serialises writers across processes (several ``--workers`` on one
database, PostgreSQL or SQLite), so the name and storage checks hold at commit there too.
"""

from __future__ import annotations

import gzip
import secrets
import threading
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    DateTime,
    Float,
    Integer,
    LargeBinary,
    String,
    Text,
    create_engine,
    event,
    func,
    inspect,
    select,
    text,
    update,
)
from sqlalchemy.engine import Engine
from sqlalchemy.exc import ArgumentError, IntegrityError, OperationalError
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, deferred, mapped_column, sessionmaker

from robustcall.core import UserError
from robustcall.web._guard import ANONYMOUS
from robustcall.web._names import name_key

ADDED_COLUMNS = {"model_type": "VARCHAR(16)"}
"""Nullable columns added after the first version: a table without them gets them at start."""

MAX_ID = 2**63 - 1
"""Largest submission id a database column holds; a larger one in a URL is bad input."""


class Base(DeclarativeBase):
    pass


class Submission(Base):
    __tablename__ = "submissions"

    # 64-bit ids on PostgreSQL (any id a URL may carry, up to MAX_ID, fits the column); SQLite's
    # INTEGER PRIMARY KEY is 64-bit already and must be spelled INTEGER to autoincrement
    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True, autoincrement=True)
    model_name: Mapped[str] = mapped_column(String(200), index=True)
    model_type: Mapped[str | None] = mapped_column(String(16), nullable=True)
    """The Type the uploader declared (Figure 5's: open / fine-tuned / closed), if any."""
    name_key: Mapped[str] = mapped_column(String(800), index=True)
    """What names are compared by (``_names.name_key``): look-alike names share it."""
    owner: Mapped[str] = mapped_column(String(64))
    """Who holds the name: ``token:<sha256 prefix>`` of the upload token, or ``anonymous``."""
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    bench_version: Mapped[str] = mapped_column(String(64))
    partial: Mapped[bool] = mapped_column(Boolean)
    answered: Mapped[int] = mapped_column(Integer)
    expected: Mapped[int] = mapped_column(Integer)
    pert_acc: Mapped[float | None] = mapped_column(Float, nullable=True, index=True)
    clean_acc: Mapped[float | None] = mapped_column(Float, nullable=True)
    observation_acc: Mapped[float | None] = mapped_column(Float, nullable=True)
    action_acc: Mapped[float | None] = mapped_column(Float, nullable=True)
    reward_acc: Mapped[float | None] = mapped_column(Float, nullable=True)
    transition_acc: Mapped[float | None] = mapped_column(Float, nullable=True)
    beyond_acc: Mapped[float | None] = mapped_column(Float, nullable=True)
    """Pooled accuracy over the uploaded records of the types beyond the paper (Appendix N), if any."""
    attack_success: Mapped[float | None] = mapped_column(Float, nullable=True)
    """Prompt-injection attack success rate (beyond the paper), if the upload has such records."""
    stored_bytes: Mapped[int] = mapped_column(Integer)
    """Compressed upload + verdicts + summary: what the submission takes of the storage limit."""
    summary_json: Mapped[str] = deferred(mapped_column(Text))
    coverage_json: Mapped[str] = deferred(mapped_column(Text))
    verdicts_gz: Mapped[bytes] = deferred(mapped_column(LargeBinary))
    raw_upload_gz: Mapped[bytes] = deferred(mapped_column(LargeBinary))

    def component_acc(self, component: str) -> float | None:
        value: float | None = getattr(self, f"{component}_acc")
        return value

    @property
    def verdicts_jsonl(self) -> str:
        return gzip.decompress(self.verdicts_gz).decode("utf-8")

    @property
    def raw_upload(self) -> bytes:
        return gzip.decompress(self.raw_upload_gz)


class BoardState(Base):
    """One row: what the board's content is at, for caches and ETags."""

    __tablename__ = "board_state"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    epoch: Mapped[str] = mapped_column(String(32))
    """Random, made with the row: a database made again never repeats an old ETag."""
    version: Mapped[int] = mapped_column(BigInteger)
    """Counts every committed add and delete."""


@dataclass(frozen=True)
class NewSubmission:
    model_name: str
    owner: str
    bench_version: str
    partial: bool
    answered: int
    expected: int
    pert_acc: float | None
    clean_acc: float | None
    components: dict[str, float | None]
    summary_json: str
    coverage_json: str
    verdicts_jsonl: str
    raw_upload: bytes
    beyond_acc: float | None = None
    attack_success: float | None = None
    model_type: str | None = None


class StoreError(UserError, RuntimeError):
    """The database cannot be used as it is (a URL no driver reads, a table of an older version)."""


class StoreUnavailable(StoreError):
    """The database named by a good URL cannot be reached (infrastructure: exit 3)."""

    exit_code = 3


class NameTaken(ValueError):
    """The model name, or one that looks like it, is on the board under another owner."""


class StorageFull(ValueError):
    """Storing the submission would pass the total-storage limit."""


def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA synchronous=FULL")
    cur.close()


class Store:
    """Submissions: add (atomically), page through, get, delete."""

    def __init__(self, url: str, *, max_storage_bytes: int | None = None) -> None:
        self.url = url
        self.is_sqlite = url.startswith("sqlite")
        self.max_storage_bytes = max_storage_bytes
        kwargs: dict[str, Any] = {"connect_args": {"timeout": 30}} if self.is_sqlite else {"pool_pre_ping": True}
        try:
            self.engine: Engine = create_engine(url, **kwargs)
        except (ArgumentError, ImportError) as exc:  # no dialect or driver reads the URL
            raise StoreError(
                f"cannot use database URL {url!r}: {exc}", hint="expected sqlite:///FILE or postgresql+psycopg://..."
            ) from None
        if self.is_sqlite:
            event.listen(self.engine, "connect", _sqlite_pragmas)
        try:
            Base.metadata.create_all(self.engine)
        except OperationalError as exc:
            why = " ".join(str(exc.orig).split())  # drivers' messages span lines
            if self.is_sqlite:  # a file that cannot be opened or made: the path is wrong
                raise StoreError(f"cannot open the database {url!r}: {why}") from None
            raise StoreUnavailable(f"cannot reach the database {url!r}: {why}") from None
        have = {c["name"] for c in inspect(self.engine).get_columns(Submission.__tablename__)}
        for name in sorted(set(ADDED_COLUMNS) - have):  # nullable columns of later versions: added in place
            with self.engine.begin() as conn:
                conn.execute(text(f"ALTER TABLE {Submission.__tablename__} ADD COLUMN {name} {ADDED_COLUMNS[name]}"))
            have.add(name)
        lacking = sorted({c.name for c in Submission.__table__.columns} - have)
        if lacking:
            self.engine.dispose()
            raise StoreError(
                f"{url}: the submissions table was made by an older version (no {', '.join(lacking)}); "
                "serve a new database, or re-upload the submissions into one"
            )
        self._session = sessionmaker(self.engine, expire_on_commit=False)
        self._first_state()
        self._rekey()
        # one writer at a time in this process; across processes, _count_a_write's row lock
        self._write_lock = threading.Lock()

    def _first_state(self) -> None:
        """The ``board_state`` row, made once (several processes may start at the same moment)."""
        with self._session() as session:
            if session.get(BoardState, 1) is not None:
                return
        try:
            with self._session.begin() as session:
                session.add(BoardState(id=1, epoch=secrets.token_hex(4), version=0))
        except IntegrityError:  # another process made it first
            pass

    def version(self) -> str:
        """What the board's content is at: ``epoch.count``; it changes with every add and delete."""
        with self._session() as session:
            state = session.execute(select(BoardState.epoch, BoardState.version).where(BoardState.id == 1)).one()
        return f"{state.epoch}.{state.version}"

    @staticmethod
    def _count_a_write(session: Session) -> None:
        """The first statement of every write: counts up the version and takes the row's lock, which
        serialises writers from every process until commit (on SQLite, the database's write lock)."""
        session.execute(update(BoardState).where(BoardState.id == 1).values(version=BoardState.version + 1))

    def _rekey(self) -> None:
        """Give names stored under an older look-alike key today's key (the rules grow: issue 43
        added blank-rendering characters and combining marks), so old rows are compared as new ones."""
        with self._session.begin() as session:
            pairs = session.execute(select(Submission.model_name, Submission.name_key).distinct()).all()
            for name, key in pairs:
                if (new := name_key(name)) != key:
                    session.execute(update(Submission).where(Submission.model_name == name).values(name_key=new))

    def add(self, new: NewSubmission) -> Submission:
        """Insert ``new``; raises :class:`NameTaken` or :class:`StorageFull` (nothing stored)."""
        verdicts_gz = gzip.compress(new.verdicts_jsonl.encode("utf-8"), mtime=0)
        raw_gz = gzip.compress(new.raw_upload, mtime=0)
        size = len(verdicts_gz) + len(raw_gz) + len(new.summary_json) + len(new.coverage_json)
        key = name_key(new.model_name)
        row = Submission(
            model_name=new.model_name,
            model_type=new.model_type,
            name_key=key,
            owner=new.owner,
            created_at=datetime.now(UTC),
            bench_version=new.bench_version,
            partial=new.partial,
            answered=new.answered,
            expected=new.expected,
            pert_acc=new.pert_acc,
            clean_acc=new.clean_acc,
            observation_acc=new.components.get("observation"),
            action_acc=new.components.get("action"),
            reward_acc=new.components.get("reward"),
            transition_acc=new.components.get("transition"),
            beyond_acc=new.beyond_acc,
            attack_success=new.attack_success,
            stored_bytes=size,
            summary_json=new.summary_json,
            coverage_json=new.coverage_json,
            verdicts_gz=verdicts_gz,
            raw_upload_gz=raw_gz,
        )
        with self._write_lock, self._session.begin() as session:
            self._count_a_write(session)
            self._check_name(session, new, key)
            if self.max_storage_bytes is not None:
                used = session.scalar(select(func.coalesce(func.sum(Submission.stored_bytes), 0))) or 0
                if used + size > self.max_storage_bytes:
                    raise StorageFull(
                        f"rejected: the leaderboard's storage is full ({used:,} of {self.max_storage_bytes:,} bytes "
                        f"used; this submission needs {size:,})"
                    )
            session.add(row)
        return row

    @staticmethod
    def _check_name(session: Session, new: NewSubmission, key: str) -> None:
        """Raise :class:`NameTaken` when a name that looks like ``new``'s is held by another owner,
        or, for an anonymous upload, is a different spelling (anonymous names are shared as shown,
        so a look-alike could only pass for the original)."""
        holders = session.execute(
            select(Submission.model_name, Submission.owner).where(Submission.name_key == key).distinct().limit(50)
        ).all()
        for name, owner in holders:
            if name == new.model_name and owner != new.owner:
                raise NameTaken(f"rejected: the name {name!r} is on the board under another uploader")
            if name != new.model_name and (owner != new.owner or owner == ANONYMOUS):
                raise NameTaken(
                    f"rejected: the name {new.model_name!r} looks like {name!r}, which is on the board "
                    "(names are compared after Unicode NFKC, case folding and TR39 confusable skeletons, "
                    "with blank-looking characters as one space and without combining marks)"
                )

    def page(self, offset: int = 0, limit: int = 50) -> list[Submission]:
        """Submissions ranked best Pert. Acc. first (ties: earlier first), ``limit`` from ``offset``;
        only the small columns are read."""
        with self._session() as session:
            query = (
                select(Submission)
                .order_by(
                    Submission.pert_acc.is_(None), Submission.pert_acc.desc(), Submission.created_at, Submission.id
                )
                .offset(offset)
                .limit(limit)
            )
            return list(session.scalars(query).all())

    def ranked(self) -> list[Submission]:
        """Every submission, ranked (small columns only)."""
        return self.page(0, 2**31)

    def get(self, submission_id: int, *, full: bool = False) -> Submission | None:
        """One submission; ``full``: with its summary and coverage loaded; the compressed verdicts
        and upload are loaded on access inside :meth:`verdicts`."""
        if not 0 < submission_id <= MAX_ID:
            return None
        with self._session() as session:
            row = session.get(Submission, submission_id)
            if row is not None and full:
                _ = (row.summary_json, row.coverage_json)
            return row

    def verdicts(self, submission_id: int) -> str | None:
        if not 0 < submission_id <= MAX_ID:
            return None
        with self._session() as session:
            gz = session.scalar(select(Submission.verdicts_gz).where(Submission.id == submission_id))
        return None if gz is None else gzip.decompress(gz).decode("utf-8")

    def delete(self, submission_id: int) -> bool:
        if not 0 < submission_id <= MAX_ID:
            return False
        with self._write_lock, self._session.begin() as session:
            row = session.get(Submission, submission_id)
            if row is None:
                return False
            self._count_a_write(session)
            session.delete(row)
            return True

    def count(self) -> int:
        with self._session() as session:
            return int(session.scalar(select(func.count(Submission.id))) or 0)

    def used_bytes(self) -> int:
        with self._session() as session:
            return int(session.scalar(select(func.coalesce(func.sum(Submission.stored_bytes), 0))) or 0)

    def dispose(self) -> None:
        self.engine.dispose()
