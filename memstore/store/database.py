"""Connections, transactions and the lazy schema upgrade.

Every connection gets ``foreign_keys``, WAL, ``secure_delete`` and a 500 ms busy timeout.
Each unit of work checks a connection out of a small pool for just its duration, so no
connection is ever used by two threads at once. Pooling matters for speed: closing the last
connection to a WAL database checkpoints and deletes the WAL, which per unit of work doubled
the cost of an import. Write units begin with ``BEGIN IMMEDIATE``, taking the write lock up
front, so a read-then-write transaction waits for the lock instead of failing midway.

The hottest calls (recording a message, remembering, recall, the word queries, the per-turn
context) run their textual SQL on the pooled ``sqlite3`` connection itself
(:meth:`Database.write_sql`, :meth:`Database.read_sql`): a SQLAlchemy unit of work costs
about 0.3 ms of Python per call whatever it runs, which measured as most of their time over
SQLite's own work (``make bench``). Everything else uses ORM sessions.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from importlib.util import find_spec
from pathlib import Path
from typing import Any

from alembic.config import Config
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, Engine, create_engine, event
from sqlalchemy.exc import DatabaseError
from sqlalchemy.orm import Session
from sqlalchemy.pool import QueuePool

from alembic import command
from memstore import files
from memstore.errors import (
    FileError,
    Fts5Unavailable,
    StoreBusy,
    StoreDamaged,
    StoreError,
    StoreReadOnly,
)
from memstore.store import probe as dbfile

log = logging.getLogger(__name__)

BUSY_TIMEOUT_MS = 500
FTS_TABLE_PREFIXES = ("messages_fts", "memories_fts")
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
    ``read_only``, connections that cannot write (see :func:`dbfile.reader_uri`).

    Transactions begin DEFERRED unless the execution option ``memstore_begin`` says
    ``"IMMEDIATE"``. The switch to WAL is not a connection setting: it writes the file, so
    :meth:`Database.ensure_schema` makes it once, after checking that the file is memstore's.
    """
    target = Path(path)

    def connect() -> sqlite3.Connection:
        if read_only:
            return sqlite3.connect(dbfile.reader_uri(target), uri=True, check_same_thread=False)
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


def require_fts5() -> None:
    """Raise :class:`Fts5Unavailable` if Python's SQLite library lacks FTS5, or is older than
    3.35 (memstore's SQL uses MATERIALIZED common table expressions and UPDATE ... FROM)."""
    if sqlite3.sqlite_version_info < MIN_SQLITE:
        needed = ".".join(map(str, MIN_SQLITE))
        raise Fts5Unavailable(
            f"This Python's SQLite {sqlite3.sqlite_version} is older than {needed}, which "
            "memstore needs; install a newer Python (python.org builds bundle a recent SQLite)."
        )
    probe = sqlite3.connect(":memory:")
    try:
        probe.execute(FTS5_PROBE)
    except sqlite3.OperationalError as error:
        raise Fts5Unavailable(
            f"This Python's SQLite {sqlite3.sqlite_version} has no FTS5 ({error}); install a "
            "Python whose sqlite3 module is built with FTS5 (the python.org and most Linux "
            "builds are)."
        ) from error
    finally:
        probe.close()


def script_location() -> str:
    """The folder holding env.py and versions/: the repository's alembic/, shipped in the
    package as ``memstore._alembic`` so that wheel installs find it too."""
    spec = find_spec("memstore._alembic")
    if spec is not None and spec.submodule_search_locations:
        return str(next(iter(spec.submodule_search_locations)))
    return str(Path(__file__).resolve().parents[2] / "alembic")


def alembic_config(location: str | None = None) -> Config:
    """An Alembic configuration pointing at memstore's migrations (or ``location``)."""
    config = Config()
    config.set_main_option("script_location", location or script_location())
    return config


def code_version(config: Config) -> int:
    """The schema version of the newest revision this code ships."""
    head = ScriptDirectory.from_config(config).get_current_head()
    return int(head) if head else 0


def autogenerate_filter(name: str | None, type_: str, parent_names: Any) -> bool:
    """Alembic ``include_name``: keep the FTS5 tables, their shadow tables and their content
    views (raw DDL of revision 0002, not ORM models) out of autogenerate comparisons."""
    if type_ == "table" and name is not None:
        return not name.startswith(FTS_TABLE_PREFIXES) and not name.endswith("_searchable")
    return True


def revisions(config: Config) -> dict[str, int]:
    """Every revision id this code ships, with the schema version it stands for."""
    script = ScriptDirectory.from_config(config)
    return {rev.revision: int(rev.revision) for rev in script.walk_revisions()}


class Database:
    """One SQLite database file: checked and upgraded lazily, then read and write units of work.

    Only a missing or empty file becomes a memstore database; another application's SQLite
    file is refused untouched, and a file this process cannot write is opened read-only
    (reads work, writes raise :class:`StoreReadOnly`).

    Args:
        path: The database file; it and its folders are created private on first use.
        migrations: Another Alembic script folder (tests use it); memstore's by default.
    """

    def __init__(self, path: str | Path, *, migrations: str | None = None) -> None:
        self.path = Path(path)
        self._config = alembic_config(migrations)
        self._engine: Engine | None = None
        self._lock = threading.Lock()
        self.read_only: str | None = None
        """Why the file is opened read-only, or None when it can be written."""

    @property
    def engine(self) -> Engine:
        """The engine, once :meth:`ensure_schema` has opened the file."""
        self.ensure_schema()
        assert self._engine is not None
        return self._engine

    @contextmanager
    def write(self) -> Iterator[Session]:
        """A write unit of work: commits on success, rolls back on any error.

        Raises:
            StoreReadOnly: If the file cannot be written.
            StoreBusy: If the write lock stayed taken past the 500 ms wait.
            StoreError: For any other SQLite failure.
        """
        engine = self._writable()
        with (
            self.translated(),
            Session(engine.execution_options(memstore_begin="IMMEDIATE")) as session,
            session.begin(),
        ):
            yield session

    @contextmanager
    def read(self) -> Iterator[Session]:
        """A read-only unit of work on one consistent snapshot."""
        engine = self.engine
        with self.translated(), Session(engine) as session, session.begin():
            yield session

    @contextmanager
    def write_sql(self) -> Iterator[sqlite3.Connection]:
        """A write unit of work on the pooled ``sqlite3`` connection: ``BEGIN IMMEDIATE``,
        then ``COMMIT`` on success or ``ROLLBACK`` on any error. Statements are textual SQL
        with bound parameters (``:name`` and a dict, or ``?`` and a tuple).

        Raises:
            StoreReadOnly: If the file cannot be written.
            StoreBusy: If the write lock stayed taken past the 500 ms wait.
            StoreError: For any other SQLite failure.
        """
        with self._sql(self._writable(), "BEGIN IMMEDIATE") as connection:
            yield connection

    @contextmanager
    def read_sql(self) -> Iterator[sqlite3.Connection]:
        """A read-only unit of work on one consistent snapshot, on the pooled ``sqlite3``
        connection (see :meth:`write_sql`)."""
        with self._sql(self.engine, "BEGIN") as connection:
            yield connection

    @contextmanager
    def _sql(self, engine: Engine, begin: str) -> Iterator[sqlite3.Connection]:
        with self.translated():
            pooled = engine.raw_connection()
            connection: sqlite3.Connection = pooled.driver_connection  # type: ignore[assignment]
            try:
                connection.execute(begin)
                try:
                    yield connection
                except BaseException:
                    connection.rollback()
                    raise
                connection.execute("COMMIT")
            finally:
                if connection.in_transaction:  # a failed COMMIT
                    connection.rollback()
                pooled.close()

    @contextmanager
    def inspect(self) -> Iterator[Session]:
        """A unit of work that always rolls back: for checks that probe with statements that
        write (FTS5 integrity-check) on a file that may be damaged, where a commit can fail."""
        engine = self.engine
        with self.translated(), Session(engine) as session:
            try:
                yield session
            finally:
                session.rollback()

    @contextmanager
    def translated(self) -> Iterator[None]:
        """:func:`translate_errors` for this file."""
        with translate_errors(self.path):
            yield

    def _writable(self) -> Engine:
        engine = self.engine
        if self.read_only is not None:
            raise StoreReadOnly(str(self.path), self.read_only)
        return engine

    def ensure_schema(self) -> None:
        """Check the file, then create or upgrade the schema once, every pending revision in
        one transaction (a read-only file is only checked).

        Raises:
            Fts5Unavailable: If SQLite lacks FTS5.
            FileError: If the path is not a regular file, or holds another application's
                SQLite database (it is left untouched).
            SchemaError: If the schema is newer than this code, has gaps, or its
                alembic_version and schema_migrations disagree.
            StoreReadOnly: If a read-only file needs an upgrade.
            StoreError: If the file or its folder cannot be created.
        """
        if self._engine is not None:
            return
        with self._lock:
            if self._engine is None:
                require_fts5()
                self._engine = self._open()

    def _open(self) -> Engine:
        if str(self.path) == ":memory:":
            raise FileError(
                ":memory:",
                "memstore keeps its store in a file, shared by pooled connections; give a "
                "file path (a temporary one for a throwaway store).",
            )
        known, code = revisions(self._config), self.code_version()
        if files.regular(self.path, "the database") is None:
            self._create()
        schema = dbfile.read_schema(self.path)
        upgrade = schema is None or dbfile.pending(schema, self.path, known, code)
        self.read_only = dbfile.read_only_reason(self.path)
        if self.read_only is not None:
            if upgrade and schema is not None:
                raise StoreReadOnly(
                    str(self.path), f"{self.read_only}; it needs an upgrade to version {code}"
                )
            return make_engine(self.path, read_only=True)
        engine = make_engine(self.path)
        try:
            with translate_errors(self.path):
                self._switch_to_wal(engine)
                if upgrade:
                    self._upgrade(engine, known, code)
        except BaseException:
            engine.dispose()
            raise
        return engine

    def _create(self) -> None:
        try:
            files.create_private(self.path)
        except OSError as error:
            raise StoreError(
                f"Cannot create the folder or the file of the database {self.path} "
                f"({error.strerror}); choose a "
                "writable location with --database or the configuration's database setting."
            ) from error

    def _switch_to_wal(self, engine: Engine) -> None:
        pooled = engine.raw_connection()  # outside any transaction, as the switch must be
        connection: sqlite3.Connection = pooled.driver_connection  # type: ignore[assignment]
        try:
            connection.execute(TO_WAL)
        finally:
            pooled.close()

    def _upgrade(self, engine: Engine, known: dict[str, int], code: int) -> None:
        """Apply the pending revisions in one IMMEDIATE transaction, checking the schema again
        once the write lock is held (another process may have upgraded it, or written
        another application's tables, meanwhile)."""
        with engine.execution_options(memstore_begin="IMMEDIATE").begin() as connection:
            schema = dbfile.schema_of(raw_sqlite(connection))
            if dbfile.pending(schema, self.path, known, code):
                log.info("upgrading %s to schema version %d", self.path, code)
                self._config.attributes["connection"] = connection
                try:
                    command.upgrade(self._config, "head")
                finally:
                    del self._config.attributes["connection"]

    def holds_store(self) -> bool | None:
        """Whether the file holds a memstore database, examined without creating or changing
        anything: False for a missing or empty file or another application's database, None
        when SQLite cannot read it as a database.

        Raises:
            FileError: If the path is not a regular file (a FIFO, a folder, a device).
        """
        status = files.regular(self.path, "the database")
        if status is None or status.st_size == 0:
            return False
        schema = dbfile.read_schema(self.path)
        return None if schema is None else schema.is_memstore

    def code_version(self) -> int:
        """The schema version of the newest migration this code ships."""
        return code_version(self._config)

    def dispose(self) -> None:
        """Close the pooled connections (a later call opens new ones)."""
        if self._engine is not None:
            self._engine.dispose()


def raw_sqlite(connection: Connection) -> sqlite3.Connection:
    """The ``sqlite3`` connection under a SQLAlchemy connection."""
    return connection.connection.driver_connection  # type: ignore[return-value]


def driver_connection(db: Session) -> sqlite3.Connection:
    """The ``sqlite3`` connection under an ORM session, inside the session's transaction, for
    the textual SQL that also runs on :meth:`Database.write_sql` connections."""
    return db.connection().connection.driver_connection  # type: ignore[return-value]


@contextmanager
def translate_errors(path: Path | None = None) -> Iterator[None]:
    """Turn SQLite's lock timeout into StoreBusy, a refused write to a read-only file into
    StoreReadOnly, other operational errors into StoreError, constraint and interface errors
    (bugs or races) into StoreError, and a file that is not a database (or is damaged) into
    StoreDamaged, whether SQLite's error comes wrapped by SQLAlchemy or straight from
    ``sqlite3``."""
    try:
        yield
    except (DatabaseError, sqlite3.DatabaseError) as error:
        cause = error.orig if isinstance(error, DatabaseError) else error
        if isinstance(cause, sqlite3.OperationalError):
            if is_busy(error):
                raise StoreBusy(
                    f"The database stayed locked by another writer for over {BUSY_TIMEOUT_MS} "
                    "ms; retry in a moment."
                ) from error
            if "readonly" in str(cause) and path is not None:
                raise StoreReadOnly(str(path), f"SQLite says: {cause}") from error
            raise StoreError(f"SQLite failed: {cause}; run `memstore check`.") from error
        if type(cause) is not sqlite3.DatabaseError:
            raise StoreError(
                f"SQLite refused the statement ({type(cause).__name__}: {cause}); nothing "
                "was written. Please report it if it happens again."
            ) from error
        raise StoreDamaged(
            f"SQLite cannot read the database file ({cause}): it is not a SQLite "
            "database or it is damaged. Keep it and its -wal/-shm files for investigation and "
            "restore a verified backup (README, Backup and recovery)."
        ) from error


def is_busy(error: DatabaseError | sqlite3.DatabaseError) -> bool:
    """Whether SQLite gave up waiting for a lock ("database is locked" / "busy")."""
    cause = error.orig if isinstance(error, DatabaseError) else error
    message = str(cause)
    return isinstance(cause, sqlite3.OperationalError) and (
        "locked" in message or "busy" in message
    )
