"""Backup: a verified, self-contained copy of the database in a new file, never overwriting
anything. The file mechanics (staging, SQLite's online backup API, the exclusive link into
place) are in :mod:`memstore.store.backups`."""

from __future__ import annotations

from contextlib import closing
from pathlib import Path

from memstore import open_stores
from memstore.concerns.health import health
from memstore.errors import FileError
from memstore.repository import health as health_rows
from memstore.schemas import BackupReport, HealthReport
from memstore.store import backups, examine
from memstore.store.connections import connect
from memstore.store.database import Database
from memstore.store.sqlite_errors import translate_errors


def backup(db: Database, destination: str | Path) -> BackupReport:
    """Copy the database to a new file with SQLite's online backup API, then check the copy.

    The copy holds every committed write, those in the ``-wal`` file included, as of one
    moment, without blocking writers. It is one self-contained file (rollback journal) that
    memstore opens like any database. An existing destination is never overwritten. A store
    at an older schema is copied as it is, not upgraded (the README asks for a backup before
    an upgrade; found by review: backup upgraded it first); see :func:`checked_as_is`.

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
    older = examine.older_version(db.path, db.migrations)
    if older is None:
        db.ensure_schema()
    checked = copied(db, target, older)
    return BackupReport(
        backup=str(target),
        database=str(db.path),
        bytes=target.stat().st_size,
        ok=checked.ok,
        schema_version=checked.schema_version,
        counts=checked.counts,
        problems=checked.problems,
    )


def copied(db: Database, target: Path, older: int | None) -> HealthReport:
    """Copy the database to ``target`` through a staged file; the copy's check (of a store
    at the ``older`` schema version, when it is not this code's).

    Raises:
        FileError: If the copy cannot be put there (a name too long, a full disk: found by
            review, a bare OSError); nothing is left there.
    """
    try:
        with backups.staging(target) as staged:
            read_only = db.read_only is not None or older is not None  # nothing written there
            backups.copy(db.path, staged, read_only=read_only)
            with backups.full_disk_as_os_error():
                checked = (
                    checked_copy(staged)
                    if older is None
                    else checked_as_is(staged, older, db.code_version())
                )
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


def checked_as_is(staged: Path, version: int, code: int) -> HealthReport:
    """The check of a copy at the older schema ``version`` (``code`` is the code's), left as
    it is: SQLite's integrity_check and foreign keys, and the row counts of the tables it
    has."""
    with translate_errors(staged), closing(connect(staged, read_only=True)) as copy:
        integrity = health_rows.integrity(copy)
        orphans = health_rows.foreign_key_errors(copy)
        tables = set(health_rows.table_names(copy))
        counted = [table for table in health_rows.COUNTED_TABLES if table in tables]
        counts = {table: health_rows.count(copy, table) for table in counted}
    problems = [] if integrity == "ok" else [f"integrity_check: {integrity}"]
    problems += [f"{len(orphans)} rows whose foreign keys point nowhere"] if orphans else []
    return HealthReport(
        ok=not problems,
        database=str(staged),
        integrity=integrity,
        foreign_key_errors=orphans,
        fts=[],
        schema_version=version,
        code_version=code,
        counts=counts,
        problems=problems,
    )
