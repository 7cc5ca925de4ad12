"""Backup: a verified, self-contained copy of the database in a new file, never overwriting
anything. The file mechanics (staging, SQLite's online backup API, the exclusive link into
place) are in :mod:`memstore.store.backups`."""

from __future__ import annotations

from pathlib import Path

from memstore.concerns.health import health
from memstore.schemas import BackupReport
from memstore.store import backups
from memstore.store.database import Database


def backup(db: Database, destination: str | Path) -> BackupReport:
    """Copy the database to ``destination`` and check the copy on its own (see
    :meth:`memstore.MemoryService.backup`).

    Raises:
        BackupExists: If ``destination`` exists; nothing is written.
        InvalidInput: If the destination folder cannot be created or written.
        StoreError: If SQLite fails while reading the database or writing the copy.
    """
    target = backups.target(destination)
    db.ensure_schema()
    with backups.staging(target) as staged:
        backups.copy(db.path, staged, read_only=db.read_only is not None)
        copied = Database(staged)
        try:
            checked = health(copied)
        finally:
            copied.dispose()
        backups.seal(staged)
        backups.place(staged, target)
    return BackupReport(
        backup=str(target),
        database=str(db.path),
        bytes=target.stat().st_size,
        ok=checked.ok,
        schema_version=checked.schema_version,
        counts=checked.counts,
        problems=checked.problems,
    )
