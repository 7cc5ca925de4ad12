"""What the benchmark's steps share: the data's speakers, the page size, and the raw side's
plain sqlite3 helpers (fresh databases, connections, transactions, comparisons)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import closing, contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from memstore import MemoryService
from memstore.kinds import Category, values
from memstore.store.connections import add_functions
from memstore.times import format_utc

CATEGORIES = values(Category)
REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"
SPEAKERS = {"Diego": "user", "Morgan": "assistant"}
OWNER = "diego"
HITS = 8  # memstore's default max_results

INSERT_SESSION = "INSERT INTO sessions (id, started_at, ended_at, metadata) VALUES (?, ?, NULL, ?)"
INSERT_MESSAGE = (
    "INSERT INTO messages (id, session_id, sequence, role, content, created_at, status, "
    "source_ref, speaker, index_text) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
SIDES = (("main", "other"), ("other", "main"))


def utc_now() -> str:
    """The current time as memstore stores it (fixed-width UTC text)."""
    return format_utc(datetime.now(UTC))


def fts_string(word: str) -> str:
    """A word as an FTS5 string literal."""
    return '"' + word.replace('"', '""') + '"'


def plain_word(term: str, shortest: int) -> bool:
    """True for an ASCII alphabetic term of at least ``shortest`` letters."""
    return term.isascii() and term.isalpha() and len(term) >= shortest


def migrated(path: Path) -> Path:
    """A fresh database file at ``path`` with memstore's schema (migrations run)."""
    for stale in path.parent.glob(path.name + "*"):
        stale.unlink()
    MemoryService(path).health()
    return path


def raw_connect(path: Path) -> sqlite3.Connection:
    """A plain sqlite3 connection: autocommit mode (explicit BEGIN), WAL, foreign keys, and
    the SQL function memstore's replayed statements call (a user's query calls none)."""
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute("PRAGMA journal_mode = WAL")
    connection.execute("PRAGMA foreign_keys = ON")
    add_functions(connection)
    return connection


@contextmanager
def read_transaction(raw: sqlite3.Connection) -> Iterator[None]:
    """The body in one read transaction of ``raw`` (BEGIN, then COMMIT whatever happens,
    unless the transaction already ended, so that an error in the body is not hidden)."""
    raw.execute("BEGIN")
    try:
        yield
    finally:
        if raw.in_transaction:
            raw.execute("COMMIT")


@contextmanager
def write_transaction(raw: sqlite3.Connection) -> Iterator[None]:
    """The body in one write transaction of ``raw``: BEGIN IMMEDIATE, then COMMIT, or
    ROLLBACK when the body (or the commit) raises."""
    raw.execute("BEGIN IMMEDIATE")
    try:
        yield
        raw.execute("COMMIT")
    except BaseException:
        raw.execute("ROLLBACK")
        raise


def fetch_all(path: Path, sql: str, parameters: Sequence[Any] = ()) -> list[Any]:
    """The rows of ``sql`` on the database at ``path``, on a connection of its own."""
    with closing(sqlite3.connect(path)) as connection:
        return connection.execute(sql, parameters).fetchall()


def differing(raw: sqlite3.Connection, other: Path, selects: Sequence[str]) -> int:
    """Rows present in one database but not the other: ``other`` is attached to ``raw`` as
    ``other``, and each select, a template of the schema name ``{db}`` (main or other), is
    compared both ways."""
    raw.execute("ATTACH DATABASE ? AS other", (str(other),))
    try:
        count = 0
        for select in selects:
            for left, right in SIDES:
                query = (
                    f"SELECT count(*) FROM ({select.format(db=left)} "
                    f"EXCEPT {select.format(db=right)})"
                )
                count += raw.execute(query).fetchone()[0]
        return count
    finally:
        raw.execute("DETACH DATABASE other")
