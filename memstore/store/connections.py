"""SQLite connections with memstore's settings, and the small pool every unit of work uses.

Every connection gets ``foreign_keys``, ``secure_delete`` and a 500 ms busy timeout, and
issues ``BEGIN`` itself. Each unit of work checks a connection out of the pool for just its
duration, so no connection is ever used by two threads at once. Pooling matters for speed:
closing the last connection to a WAL database checkpoints and deletes the WAL, which per
unit of work doubled the cost of an import.

The pool is this module's few lines over a standard-library queue, not SQLAlchemy's: its
import alone took 0.2 s of every command (issue 18's start-up). SQLAlchemy engines are built
on :func:`connect` only for Alembic and the ORM (:mod:`memstore.store.engine`).
"""

from __future__ import annotations

import contextlib
import queue
import sqlite3
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from memstore.errors import Fts5Unavailable, StoreBusy
from memstore.speakers import speaker_key
from memstore.store import readers
from memstore.text.tokens import holds_folded

BUSY_TIMEOUT_MS = 500
FTS5_PROBE = "CREATE VIRTUAL TABLE probe USING fts5(x)"
IDLE_CONNECTIONS = 4
"""The most connections the pool keeps open between units of work; more are opened when
more units run at once, and closed as they end."""
MAX_CONNECTIONS = 20
"""The most connections one pool has open at once: a unit of work beyond them waits for one
to come back, in the process, instead of every thread of a busy process taking the file's
write lock in turn (past 25 threads, many then gave up after the 500 ms lock wait), and
holding file descriptors."""
POOL_WAIT_SECONDS = 30
"""How long a unit of work waits for one of the :data:`MAX_CONNECTIONS` to come back."""
MIN_SQLITE = (3, 35, 0)
PRAGMAS = (
    f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}",
    "PRAGMA foreign_keys = ON",
    "PRAGMA secure_delete = ON",
)
FOLD_FUNCTION = "memstore_fold"
"""The SQL function of one argument that gives text as an import compares speakers' names
(composed and case-folded: :func:`memstore.speakers.speaker_key`) and any other value as it
is: SQLite's NOCASE folds A-Z only."""


def casefolded(value: str | bytes | int | float | None) -> str | bytes | int | float | None:
    """``value`` as a speaker's name is compared when it is text, else as it is (see
    :data:`FOLD_FUNCTION`)."""
    return speaker_key(value) if isinstance(value, str) else value


HOLDS_FOLDED_FUNCTION = "memstore_holds_folded"
"""The SQL function of three arguments, a text, a folded phrase and its literal run, that
tells whether the text folded as the index folds its words holds the phrase (see
:func:`memstore.text.tokens.holds_folded`); false for a value that is not text."""


def holds_folded_text(value: object, written: str, literal: str) -> bool:
    """:data:`HOLDS_FOLDED_FUNCTION`."""
    return isinstance(value, str) and holds_folded(value, written, literal)


def add_functions(connection: sqlite3.Connection) -> None:
    """Give ``connection`` the SQL functions memstore's statements call
    (:data:`FOLD_FUNCTION`, :data:`HOLDS_FOLDED_FUNCTION`)."""
    connection.create_function(FOLD_FUNCTION, 1, casefolded, deterministic=True)
    connection.create_function(HOLDS_FOLDED_FUNCTION, 3, holds_folded_text, deterministic=True)


TO_WAL = "PRAGMA journal_mode = WAL"


def connect(path: str | Path, *, read_only: bool = False) -> sqlite3.Connection:
    """A new connection to the database file at ``path`` with memstore's settings, in
    autocommit mode (memstore issues ``BEGIN`` itself); with ``read_only``, one that cannot
    write (see :mod:`memstore.store.readers`). Any thread may use it, one at a time."""
    if read_only:
        connection: sqlite3.Connection = readers.open_reader(Path(path), BUSY_TIMEOUT_MS / 1000)
    else:
        # absolute: a SQLite built with URI filenames on takes "file:x" for a URI, and wrote
        # to x while memstore checked the file named "file:x" (found by review)
        connection = sqlite3.connect(Path(path).absolute(), check_same_thread=False)
    try:
        connection.isolation_level = None
        for pragma in PRAGMAS:
            connection.execute(pragma)
        add_functions(connection)
    except BaseException:
        connection.close()
        raise
    return connection


class ConnectionPool:
    """Connections to one file, opened by ``open_connection`` when none is idle: at most
    :data:`MAX_CONNECTIONS` open at once, and :data:`IDLE_CONNECTIONS` kept open between
    units of work (last in, first out). SQLAlchemy's pool had the same limits (4 kept, 16
    more)."""

    def __init__(
        self, open_connection: Callable[[], sqlite3.Connection], *, keep: int = IDLE_CONNECTIONS
    ) -> None:
        """``keep``: how many idle connections are kept between units of work; with 0, each
        unit of work opens a connection of its own and closes it."""
        self._open = open_connection
        self._keep = keep
        self._idle: queue.LifoQueue[sqlite3.Connection] = queue.LifoQueue(max(keep, 1))
        self._slots = threading.BoundedSemaphore(MAX_CONNECTIONS)

    @contextmanager
    def connection(self) -> Iterator[sqlite3.Connection]:
        """A connection for the duration of the block, returned to the pool after it. The
        caller ends any transaction it began.

        Raises:
            StoreBusy: If all :data:`MAX_CONNECTIONS` stayed in use for
                :data:`POOL_WAIT_SECONDS`.
        """
        if not self._slots.acquire(timeout=POOL_WAIT_SECONDS):
            raise StoreBusy(
                f"All {MAX_CONNECTIONS} connections of this process to the database stayed in "
                f"use for {POOL_WAIT_SECONDS} s; retry in a moment."
            )
        try:
            with self._checked_out() as connection:
                yield connection
        finally:
            self._slots.release()

    @contextmanager
    def _checked_out(self) -> Iterator[sqlite3.Connection]:
        try:
            connection = self._idle.get_nowait()
        except queue.Empty:
            connection = self._open()
        try:
            yield connection
        finally:
            self._give_back(connection)

    def _give_back(self, connection: sqlite3.Connection) -> None:
        """Keep ``connection`` idle, or close it when the pool keeps none or is full."""
        if self._keep:
            with contextlib.suppress(queue.Full):
                self._idle.put_nowait(connection)
                return
        connection.close()

    def close(self) -> None:
        """Close the idle connections (one in use is kept when it comes back)."""
        while True:
            try:
                self._idle.get_nowait().close()
            except queue.Empty:
                return


def switch_to_wal(pool: ConnectionPool) -> None:
    """Put the database in WAL mode (outside any transaction, as the switch must be)."""
    with pool.connection() as connection:
        connection.execute(TO_WAL)


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
