"""The one place where SQLite's exceptions become memstore's error tree.

Every unit of work of :class:`memstore.store.database.Database` runs inside
:func:`translate_errors`, so nothing above the store ever sees a ``sqlite3`` or SQLAlchemy
exception: adapters catch :class:`memstore.errors.MemstoreError` alone.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from memstore.errors import MemstoreError, StoreBusy, StoreDamaged, StoreError, StoreReadOnly
from memstore.store.connections import BUSY_TIMEOUT_MS

PASSING = (sqlite3.SQLITE_READONLY_RECOVERY, sqlite3.SQLITE_READONLY_CANTINIT)
"""The read-only errors of a reader that met the WAL mid-recovery or mid-setup by its owner:
passing, not a refused write (found by review: 1 read in 3,500 beside an owner opening and
closing the store was StoreReadOnly)."""


@contextmanager
def translate_errors(path: Path | None = None) -> Iterator[None]:
    """Turn SQLite's lock timeout, and a snapshot gone stale under a read that writes, into
    StoreBusy, a refused write to a read-only file into StoreReadOnly, other operational
    errors into StoreError, constraint and other statement errors (bugs or races) into
    StoreError, and a file that is not a database (or is damaged) into StoreDamaged, whether
    SQLite's error comes wrapped by SQLAlchemy or straight from ``sqlite3`` (or as the
    UnicodeDecodeError of its message quoting damaged text); any other exception passes
    unchanged."""
    try:
        yield
    except UnicodeDecodeError as error:
        # Python's sqlite3 module decodes SQLite's own error message, which quotes the
        # schema text it failed to parse: a damaged byte there failed every command with
        # this traceback (found by review).
        raise damaged("its error message quotes schema text that is not UTF-8") from error
    except Exception as error:
        cause = sqlite_cause(error)
        if cause is None:
            raise
        raise translated(cause, path) from error


def sqlite_cause(error: BaseException | None) -> sqlite3.DatabaseError | None:
    """SQLite's own exception in ``error``: the error itself, or the one SQLAlchemy wraps as
    its ``orig`` (found by that attribute, so that this module never imports SQLAlchemy:
    it runs only for migrations and ORM sessions); None for any other error."""
    for candidate in (error, getattr(error, "orig", None)):
        if isinstance(candidate, sqlite3.DatabaseError):
            return candidate
    return None


def translated(cause: sqlite3.DatabaseError, path: Path | None) -> MemstoreError:
    """The memstore error standing for SQLite's error ``cause`` on the file at ``path``."""
    if is_undecodable(cause):
        return damaged(cause)
    if isinstance(cause, sqlite3.OperationalError):
        if code_of(cause) == sqlite3.SQLITE_BUSY_SNAPSHOT:  # a write from a stale read
            return StoreBusy(
                "Another writer changed the database while this read it, so what it read can "
                "no longer be written from (`check`'s FTS5 integrity-checks write); retry once "
                "the other writes are done."
            )
        if code_of(cause) in PASSING:
            return StoreBusy(
                "Another process was opening or recovering the database's write-ahead log as "
                "this read began (a reader may not); retry in a moment."
            )
        if is_busy(cause):
            return StoreBusy(
                f"The database stayed locked by another writer for over {BUSY_TIMEOUT_MS} "
                "ms; retry in a moment."
            )
        if is_refused_write(cause) and path is not None:
            return StoreReadOnly(str(path), f"SQLite says: {cause}")
        return StoreError(f"SQLite failed: {cause}; run `memstore check`.")
    if type(cause) is not sqlite3.DatabaseError:
        return StoreError(
            f"SQLite refused the statement ({type(cause).__name__}: {cause}); nothing "
            "was written. Please report it if it happens again."
        )
    return damaged(cause)


def damaged(cause: object) -> StoreDamaged:
    """The StoreDamaged of a file SQLite (or Python's reading of its text) cannot read;
    ``cause`` says why (an exception, or its words). A file that is no database at all is
    most often the wrong one (found by review: ``--database`` given a daily log was told to
    restore a backup): the message says to check the path first."""
    wrong_file = "file is not a database" in str(cause)
    check = "If it is not your memory database, check --database or the configuration's "
    return StoreDamaged(
        f"SQLite cannot read the database file ({cause}): it is not a SQLite "
        "database or it is damaged. "
        + (check + "database setting; if it is, keep" if wrong_file else "Keep")
        + " it and its -wal/-shm files for investigation and restore a verified backup "
        "(README, Backup and recovery)."
    )


def code_of(error: sqlite3.Error) -> int | None:
    """SQLite's extended error code of ``error``; None for an error Python's sqlite3 module
    raised itself, which carries none (found by review: reading it failed as an
    AttributeError traceback)."""
    return getattr(error, "sqlite_errorcode", None)


def is_undecodable(error: sqlite3.Error) -> bool:
    """Whether ``error`` is Python's failure to read stored text as UTF-8: only a damaged
    file (or one written around memstore) holds such text."""
    return isinstance(error, sqlite3.OperationalError) and str(error).startswith(
        "Could not decode to UTF-8"
    )


def is_refused_write(error: sqlite3.DatabaseError) -> bool:
    """Whether SQLite refused a write to a file it opened read-only or may not write."""
    return isinstance(error, sqlite3.OperationalError) and "readonly" in str(error)


def is_busy(error: sqlite3.DatabaseError) -> bool:
    """Whether SQLite gave up waiting for a lock ("database is locked" / "busy")."""
    message = str(error)
    return isinstance(error, sqlite3.OperationalError) and (
        "locked" in message or "busy" in message
    )
