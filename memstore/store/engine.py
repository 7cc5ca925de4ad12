"""SQLite connections with memstore's settings, pooled by a SQLAlchemy engine.

Every connection gets ``foreign_keys``, ``secure_delete`` and a 500 ms busy timeout, and
issues ``BEGIN`` itself. Each unit of work checks a connection out of a small pool for just
its duration, so no connection is ever used by two threads at once. Pooling matters for
speed: closing the last connection to a WAL database checkpoints and deletes the WAL, which
per unit of work doubled the cost of an import.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, create_engine, event
from sqlalchemy.pool import QueuePool

from memstore.errors import Fts5Unavailable
from memstore.store import probe

BUSY_TIMEOUT_MS = 500
FTS5_PROBE = "CREATE VIRTUAL TABLE probe USING fts5(x)"
MIN_SQLITE = (3, 35, 0)
PRAGMAS = (
    f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}",
    "PRAGMA foreign_keys = ON",
    "PRAGMA secure_delete = ON",
)
TO_WAL = "PRAGMA journal_mode = WAL"


def make_engine(path: str | Path, *, read_only: bool = False) -> Engine:
    """An engine for the database file at ``path`` with memstore's connection settings; with
    ``read_only``, connections that cannot write (see :func:`probe.reader_uri`).

    ORM transactions (the test factories', Alembic's) begin DEFERRED unless the execution
    option ``memstore_begin`` says ``"IMMEDIATE"``. The switch to WAL is not a connection
    setting: it writes the file, so :func:`switch_to_wal` makes it once, after the file is
    known to be memstore's.
    """
    target = Path(path)

    def connect() -> sqlite3.Connection:
        if read_only:
            return sqlite3.connect(probe.reader_uri(target), uri=True, check_same_thread=False)
        return sqlite3.connect(target, check_same_thread=False)

    engine = create_engine(
        "sqlite+pysqlite://", creator=connect, poolclass=QueuePool, pool_size=4, max_overflow=16
    )
    event.listen(engine, "connect", _configure_connection)
    event.listen(engine, "begin", _begin)
    return engine


def _configure_connection(dbapi_connection: sqlite3.Connection, record: Any) -> None:
    dbapi_connection.isolation_level = None  # memstore issues BEGIN itself
    for pragma in PRAGMAS:
        dbapi_connection.execute(pragma)


def _begin(connection: Connection) -> None:
    mode = connection.get_execution_options().get("memstore_begin", "DEFERRED")
    connection.exec_driver_sql(f"BEGIN {mode}")


def pooled_sqlite(engine: Engine) -> tuple[Any, sqlite3.Connection]:
    """A connection checked out of ``engine``'s pool and the ``sqlite3`` connection inside it;
    the caller closes the first to return it."""
    pooled = engine.raw_connection()
    connection: sqlite3.Connection = pooled.driver_connection  # type: ignore[assignment]
    return pooled, connection


def raw_sqlite(connection: Connection) -> sqlite3.Connection:
    """The ``sqlite3`` connection under a SQLAlchemy connection."""
    return connection.connection.driver_connection  # type: ignore[return-value]


def switch_to_wal(engine: Engine) -> None:
    """Put the database in WAL mode (outside any transaction, as the switch must be)."""
    pooled, connection = pooled_sqlite(engine)
    try:
        connection.execute(TO_WAL)
    finally:
        pooled.close()


def require_fts5() -> None:
    """Raise :class:`Fts5Unavailable` if Python's SQLite library lacks FTS5, or is older than
    3.35 (memstore's SQL uses MATERIALIZED common table expressions and UPDATE ... FROM)."""
    if sqlite3.sqlite_version_info < MIN_SQLITE:
        needed = ".".join(map(str, MIN_SQLITE))
        raise Fts5Unavailable(
            f"This Python's SQLite {sqlite3.sqlite_version} is older than {needed}, which "
            "memstore needs; install a newer Python (python.org builds bundle a recent SQLite)."
        )
    probe_db = sqlite3.connect(":memory:")
    try:
        probe_db.execute(FTS5_PROBE)
    except sqlite3.OperationalError as error:
        raise Fts5Unavailable(
            f"This Python's SQLite {sqlite3.sqlite_version} has no FTS5 ({error}); install a "
            "Python whose sqlite3 module is built with FTS5 (the python.org and most Linux "
            "builds are)."
        ) from error
    finally:
        probe_db.close()
