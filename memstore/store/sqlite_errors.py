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

from sqlalchemy.exc import DatabaseError

from memstore.errors import MemstoreError, StoreBusy, StoreDamaged, StoreError, StoreReadOnly
from memstore.store.engine import BUSY_TIMEOUT_MS


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
        raise translated(error, path) from error


def translated(error: DatabaseError | sqlite3.DatabaseError, path: Path | None) -> MemstoreError:
    """The memstore error standing for SQLite's ``error`` on the file at ``path``."""
    cause = error.orig if isinstance(error, DatabaseError) else error
    if isinstance(cause, sqlite3.OperationalError):
        if is_busy(error):
            return StoreBusy(
                f"The database stayed locked by another writer for over {BUSY_TIMEOUT_MS} "
                "ms; retry in a moment."
            )
        if "readonly" in str(cause) and path is not None:
            return StoreReadOnly(str(path), f"SQLite says: {cause}")
        return StoreError(f"SQLite failed: {cause}; run `memstore check`.")
    if type(cause) is not sqlite3.DatabaseError:
        return StoreError(
            f"SQLite refused the statement ({type(cause).__name__}: {cause}); nothing "
            "was written. Please report it if it happens again."
        )
    return StoreDamaged(
        f"SQLite cannot read the database file ({cause}): it is not a SQLite "
        "database or it is damaged. Keep it and its -wal/-shm files for investigation and "
        "restore a verified backup (README, Backup and recovery)."
    )


def is_busy(error: DatabaseError | sqlite3.DatabaseError) -> bool:
    """Whether SQLite gave up waiting for a lock ("database is locked" / "busy")."""
    cause = error.orig if isinstance(error, DatabaseError) else error
    message = str(cause)
    return isinstance(cause, sqlite3.OperationalError) and (
        "locked" in message or "busy" in message
    )
