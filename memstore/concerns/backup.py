"""Backup: a verified, self-contained copy of the database in a new file, never overwriting
anything. The file mechanics (staging, SQLite's online backup API, the exclusive link into
place) are in :mod:`memstore.store.backups`."""

from __future__ import annotations

from pathlib import Path

from memstore import open_stores
from memstore.concerns.health import health
from memstore.errors import FileError
from memstore.schemas import BackupReport, HealthReport
from memstore.store import backups
from memstore.store.database import Database


def backup(db: Database, destination: str | Path) -> BackupReport:
    """Copy the database to a new file with SQLite's online backup API, then check the copy.

    The copy holds every committed write, those in the ``-wal`` file included, as of one
    moment, without blocking writers. It is one self-contained file (rollback journal) that
    memstore opens like any database. An existing destination is never overwritten.

    Args:
        destination: The new file; missing folders are created.

    Returns:
        Where the copy is, its size in bytes and the check of the copy on its own: ``ok``,
        schema version, row counts, problems. A copy that fails its check is kept, for
        investigation, with ``ok`` False.

    Raises:
        BackupExists: If ``destination`` exists; nothing is written.
        FileError: If ``destination`` is where SQLite keeps a file beside the database, or
            the copy cannot be put there (a name too long, a full disk).
        InvalidInput: If the destination folder cannot be created or written.
        StoreError: If SQLite fails while reading the database or writing the copy.
    """
    target = backups.target(destination)
    open_stores.not_a_companion(target, db.path)
    db.ensure_schema()
    checked = copied(db, target)
    return BackupReport(
        backup=str(target),
        database=str(db.path),
        bytes=target.stat().st_size,
        ok=checked.ok,
        schema_version=checked.schema_version,
        counts=checked.counts,
        problems=checked.problems,
    )


def copied(db: Database, target: Path) -> HealthReport:
    """Copy the database to ``target`` through a staged file; the copy's check.

    Raises:
        FileError: If the copy cannot be put there (a name too long, a full disk: found by
            review, a bare OSError); nothing is left there.
    """
    try:
        with backups.staging(target) as staged:
            backups.copy(db.path, staged, read_only=db.read_only is not None)
            with backups.full_disk_as_os_error():
                checked = checked_copy(staged)
                backups.seal(staged)
            backups.place(staged, target)
    except OSError as error:
        raise FileError(
            str(target),
            f"the backup could not be written ({error.strerror or error}); nothing was left "
            "there. Free some space, or choose another place or a shorter name.",
        ) from error
    return checked


def checked_copy(staged: Path) -> HealthReport:
    """The check of the copy at ``staged`` on its own, its connections closed after."""
    copied = Database(staged)
    try:
        return health(copied)
    finally:
        copied.dispose()
