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
from contextlib import closing, contextmanager
from importlib.util import find_spec
from pathlib import Path
from typing import Any

from alembic.config import Config
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, Engine, create_engine, event, text
from sqlalchemy.exc import DatabaseError
from sqlalchemy.orm import Session, sessionmaker

from alembic import command
from memstore.errors import Fts5Unavailable, SchemaError, StoreBusy, StoreDamaged, StoreError

log = logging.getLogger(__name__)

BUSY_TIMEOUT_MS = 500
FTS_TABLE_PREFIXES = ("messages_fts", "memories_fts")
FTS5_PROBE = "CREATE VIRTUAL TABLE probe USING fts5(x)"
MIN_SQLITE = (3, 35, 0)
SCHEMA_TABLE = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'"
PRAGMAS = (
    f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}",
    "PRAGMA foreign_keys = ON",
    "PRAGMA secure_delete = ON",
    "PRAGMA journal_mode = WAL",
)


def make_engine(path: str | Path) -> Engine:
    """An engine for the database file at ``path`` with memstore's connection settings.

    Transactions begin DEFERRED unless the execution option ``memstore_begin`` says
    ``"IMMEDIATE"``.
    """
    engine = create_engine(f"sqlite+pysqlite:///{path}", pool_size=4, max_overflow=16)
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
    return str(Path(__file__).resolve().parent.parent / "alembic")


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


def recorded_versions(connection: Connection) -> list[int]:
    """The versions recorded in schema_migrations, ascending; [] for a new database."""
    exists = connection.execute(text(SCHEMA_TABLE)).first()
    if exists is None:
        return []
    rows = connection.execute(text("SELECT version FROM schema_migrations ORDER BY version"))
    return [int(version) for (version,) in rows]


def check_versions(recorded: list[int], code: int) -> bool:
    """True when migrations are pending, False when up to date.

    Raises:
        SchemaError: If the recorded versions are not 1..n, or n is newer than ``code``.
    """
    newest = recorded[-1] if recorded else 0
    if recorded != list(range(1, newest + 1)):
        raise SchemaError(
            f"Database schema versions {recorded} are not contiguous (expected 1..{newest}); "
            f"this code is at version {code}. Restore a backup; do not edit schema_migrations.",
            database_version=newest,
            code_version=code,
        )
    if newest > code:
        raise SchemaError(
            f"Database schema version {newest} is newer than this code's version {code}; "
            "upgrade memstore to open it. Nothing was written.",
            database_version=newest,
            code_version=code,
        )
    return newest < code


class Database:
    """One SQLite database file: lazy upgrade, then read and write units of work.

    Args:
        path: The database file; its folder is created on first use.
        migrations: Another Alembic script folder (tests use it); memstore's by default.
    """

    def __init__(self, path: str | Path, *, migrations: str | None = None) -> None:
        self.path = Path(path)
        self._config = alembic_config(migrations)
        self._engine = make_engine(self.path)
        self._writer = sessionmaker(self._engine.execution_options(memstore_begin="IMMEDIATE"))
        self._reader = sessionmaker(self._engine)
        self._ready = False
        self._lock = threading.Lock()

    @contextmanager
    def write(self) -> Iterator[Session]:
        """A write unit of work: commits on success, rolls back on any error.

        Raises:
            StoreBusy: If the write lock stayed taken past the 500 ms wait.
            StoreError: For any other SQLite failure.
        """
        self.ensure_schema()
        with translate_errors(), self._writer.begin() as session:
            yield session

    @contextmanager
    def read(self) -> Iterator[Session]:
        """A read-only unit of work on one consistent snapshot."""
        self.ensure_schema()
        with translate_errors(), self._reader.begin() as session:
            yield session

    @contextmanager
    def write_sql(self) -> Iterator[sqlite3.Connection]:
        """A write unit of work on the pooled ``sqlite3`` connection: ``BEGIN IMMEDIATE``,
        then ``COMMIT`` on success or ``ROLLBACK`` on any error. Statements are textual SQL
        with bound parameters (``:name`` and a dict, or ``?`` and a tuple).

        Raises:
            StoreBusy: If the write lock stayed taken past the 500 ms wait.
            StoreError: For any other SQLite failure.
        """
        with self._sql("BEGIN IMMEDIATE") as connection:
            yield connection

    @contextmanager
    def read_sql(self) -> Iterator[sqlite3.Connection]:
        """A read-only unit of work on one consistent snapshot, on the pooled ``sqlite3``
        connection (see :meth:`write_sql`)."""
        with self._sql("BEGIN") as connection:
            yield connection

    @contextmanager
    def _sql(self, begin: str) -> Iterator[sqlite3.Connection]:
        self.ensure_schema()
        with translate_errors():
            pooled = self._engine.raw_connection()
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
        self.ensure_schema()
        with translate_errors(), self._reader() as session:
            try:
                yield session
            finally:
                session.rollback()

    def ensure_schema(self) -> None:
        """Create or upgrade the schema once, every pending revision in one transaction.

        Raises:
            Fts5Unavailable: If SQLite lacks FTS5.
            SchemaError: If the database is newer than this code or its versions have gaps.
        """
        if self._ready:
            return
        with self._lock:
            if not self._ready:
                require_fts5()
                try:
                    self.path.parent.mkdir(parents=True, exist_ok=True)
                except OSError as error:
                    raise StoreError(
                        f"Cannot create the folder of the database {self.path} "
                        f"({error.strerror}); choose a writable location with --database or "
                        "the configuration's database setting."
                    ) from error
                with translate_errors():
                    self._upgrade()
                self._ready = True

    def _upgrade(self) -> None:
        code = code_version(self._config)
        with self._engine.connect() as connection:
            if not check_versions(recorded_versions(connection), code):
                return
        immediate = self._engine.execution_options(memstore_begin="IMMEDIATE")
        with immediate.begin() as connection:
            if check_versions(recorded_versions(connection), code):
                log.info("upgrading %s to schema version %d", self.path, code)
                self._config.attributes["connection"] = connection
                try:
                    command.upgrade(self._config, "head")
                finally:
                    del self._config.attributes["connection"]

    def code_version(self) -> int:
        """The schema version of the newest migration this code ships."""
        return code_version(self._config)

    def dispose(self) -> None:
        """Close the pooled connections (a later call opens new ones)."""
        self._engine.dispose()


def holds_memstore_schema(path: Path) -> bool | None:
    """Whether the existing file at ``path`` is a memstore database (it has the
    ``schema_migrations`` table), read without creating, upgrading or writing anything; None
    when SQLite cannot read it at all (``check`` reports that as damage).

    An empty file, or a SQLite database of another application, is False.
    """
    try:
        with closing(sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)) as probe:
            found = probe.execute(SCHEMA_TABLE).fetchone()
    except sqlite3.DatabaseError:
        return None
    return found is not None


def driver_connection(db: Session) -> sqlite3.Connection:
    """The ``sqlite3`` connection under an ORM session, inside the session's transaction, for
    the textual SQL that also runs on :meth:`Database.write_sql` connections."""
    return db.connection().connection.driver_connection  # type: ignore[return-value]


@contextmanager
def translate_errors() -> Iterator[None]:
    """Turn SQLite's lock timeout into StoreBusy, other operational errors into StoreError, and
    a file that is not a database (or is damaged) into StoreDamaged, whether SQLite's error
    comes wrapped by SQLAlchemy or straight from ``sqlite3``."""
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
            raise StoreError(f"SQLite failed: {cause}; run `memstore check`.") from error
        if type(cause) is not sqlite3.DatabaseError:  # constraint errors, misuse: bugs
            raise
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
