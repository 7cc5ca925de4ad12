"""Reading a database this process may not write, while its owner may be writing it.

Such a connection reads the file as immutable when nothing waits beside it, else through the
owner's WAL index, read-only (:func:`memstore.store.probe.reader_uri`). The owner opening,
closing and checkpointing the store breaks such reads in two ways, which review saw as errors
calling a healthy file damaged or read-only (about 1 read in 20 beside an owner opening and
closing the store in a loop):

* The ``-wal`` a connection was decided on is gone by its first read (the owner closed the
  store, and SQLite wants a WAL index where this user may not make one), or its ``-shm``
  went between the two. So each connection reads once as it opens, and on such an error is
  opened again, decided afresh, a few times before :class:`StoreBusy`.
* A checkpoint writes the owner's pages into the file an immutable connection is reading, so
  what a unit read may mix both, or fail as malformed. :func:`watched` compares the file
  before and after each unit of work, and a change is :class:`StoreBusy`.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import NamedTuple

from memstore.errors import FileError, StoreBusy
from memstore.store import probe

ATTEMPTS = 5
FIRST_READ = "SELECT count(*) FROM sqlite_schema"
PAUSE_S = 0.01
"""The wait before the second attempt at opening; each later one waits that much longer."""
MOMENTARY = frozenset(
    {
        "SQLITE_BUSY_RECOVERY",
        "SQLITE_CANTOPEN",
        "SQLITE_READONLY_CANTINIT",
        "SQLITE_READONLY_CANTLOCK",
        "SQLITE_READONLY_DIRECTORY",
        "SQLITE_READONLY_RECOVERY",
    }
)
"""SQLite's errors for a ``-wal`` or ``-shm`` file that came or went as a reader opened."""
OWNER_WRITING = (
    "The database's owner was opening, closing or writing it while this user, who may only "
    "read it, read it; retry in a moment."
)


STUCK = (
    "its -wal holds writes SQLite reads only through a -shm file beside it, which this user "
    "may not create there; have its owner open it once, or copy the database with its -wal "
    "to a folder you can write"
)


class Reader(sqlite3.Connection):
    """A read-only connection, which knows whether it reads its file as immutable."""

    immutable = False


class FileState(NamedTuple):
    """What a writer changes in a database file: its identity, size and time of change (ns),
    and whether a ``-wal`` or ``-journal`` file is beside it."""

    inode: int
    size: int
    changed_ns: int
    settled: bool

    @property
    def written(self) -> tuple[int, int, int]:
        """What a checkpoint into the file changes: its identity, size and time of change."""
        return self.inode, self.size, self.changed_ns


def file_state(path: Path) -> FileState:
    """The state of the database file at ``path`` (see :class:`FileState`); a file gone is
    all zeros, unlike any file's."""
    try:
        status = os.stat(path)
    except OSError:
        return FileState(0, 0, 0, settled=False)
    return FileState(status.st_ino, status.st_size, status.st_mtime_ns, probe.settled(path))


def open_reader(path: Path, wait_s: float) -> Reader:
    """A read-only connection to the database at ``path`` that has read it once, waiting up
    to ``wait_s`` seconds for a lock.

    Raises:
        StoreBusy: If the owner's files came or went at every one of :data:`ATTEMPTS` opens.
        FileError: If they stayed as they were: a ``-wal`` SQLite can only read with a
            ``-shm`` beside it, which this user may not make (found by review: "retry"
            forever, on a read-only copy nobody writes).
        sqlite3.Error: For any other failure (translated by the unit of work).
    """
    first, attempt = file_state(path), 1
    while True:
        try:
            return _opened(path, wait_s)
        except sqlite3.OperationalError as error:
            if getattr(error, "sqlite_errorname", None) not in MOMENTARY:
                raise
            if attempt == ATTEMPTS:
                if file_state(path) == first:
                    raise FileError(str(path), STUCK) from error
                raise StoreBusy(OWNER_WRITING) from error
        time.sleep(PAUSE_S * attempt)
        attempt += 1


def _opened(path: Path, wait_s: float) -> Reader:
    """A read-only connection to ``path``, decided now, that has read it once."""
    uri = probe.reader_uri(path)
    connection = sqlite3.connect(
        uri, uri=True, timeout=wait_s, check_same_thread=False, factory=Reader
    )
    connection.immutable = uri.endswith("immutable=1")
    try:
        connection.execute(FIRST_READ).fetchone()
    except BaseException:
        connection.close()
        raise
    return connection


def watched(connection: sqlite3.Connection, path: Path) -> AbstractContextManager[None]:
    """A block that raises :class:`StoreBusy` when the owner changed the database file under
    a :class:`Reader` (nothing to watch on a connection that may write)."""
    if isinstance(connection, Reader):
        return _unchanged(connection, path)
    return contextlib.nullcontext()


@contextmanager
def _unchanged(connection: Reader, path: Path) -> Iterator[None]:
    """An error of SQLite in the block becomes StoreBusy when the file or its companions
    changed meanwhile (the caller's own errors pass: found by review, a bad word came back as
    StoreBusy); so does a block read as immutable whose file changed, however it ended."""
    before = file_state(path)
    try:
        yield
    except sqlite3.Error as error:  # SQLite's, not the caller's own (a word that is two)
        if file_state(path) != before:
            raise StoreBusy(OWNER_WRITING) from error
        raise
    if connection.immutable and file_state(path).written != before.written:
        raise StoreBusy(OWNER_WRITING)
