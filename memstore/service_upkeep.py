"""The upkeep methods of :class:`memstore.MemoryService`: one local day, backup, check,
export and import-memories, each handed to the concern that holds it (see
:mod:`memstore.service`)."""

from __future__ import annotations

from datetime import date, tzinfo
from pathlib import Path
from typing import TYPE_CHECKING

from memstore import schemas
from memstore.arguments import checked
from memstore.handle import StoreHandle
from memstore.kinds import TransferFormat, TransferScope

CONCERNS = ("backup", "diary", "export", "health", "memories", "memory_import")
"""The concern modules the methods call, each imported when a method first calls it."""
if TYPE_CHECKING:
    from memstore.concerns import backup, diary, export, health, memories, memory_import
else:
    from memstore.lazy_modules import LazyModule

    globals().update({name: LazyModule(f"memstore.concerns.{name}") for name in CONCERNS})


class UpkeepMethods(StoreHandle):
    """The diary, backup, check, export and import-memories of a store."""

    # Diary, backup, health: memstore.concerns.diary, .backup, .health

    @checked
    def diary(
        self, day: date | str | None = None, *, tz: str | tzinfo | None = None
    ) -> schemas.Diary:
        """One local calendar day (today by default) in the zone ``tz`` (an IANA name, a
        ``ZoneInfo`` or a ``datetime.timezone``; the machine's by default), for reading only.
        Raises InvalidInput for a bad day or zone."""
        return diary.diary(self._db, self.log_dir, day, tz)

    @checked
    def backup(self, destination: str | Path) -> schemas.BackupReport:
        """Copy the database with SQLite's online backup API to a new file, then check the
        copy. Raises BackupExists, InvalidInput or StoreError."""
        return backup.backup(self._db, destination)

    def health(self) -> schemas.HealthReport:
        """Integrity, foreign keys, each FTS5 index, schema version and row counts; ``ok``
        only when every check passes. A file that exists but holds nothing yet (empty, or
        what a first import killed before its tables leaves) is ``ok`` at schema version 0,
        and left as it is; a missing one is created, as by any call. Raises StoreBusy,
        SchemaError or StoreError."""
        return health.health(self._db)

    # Export and import-memories: memstore.concerns.export, .memory_import

    @checked
    def export(
        self,
        destination: str | Path,
        *,
        format: TransferFormat = "jsonl",
        scope: TransferScope = "all",
        tz: str | tzinfo | None = None,
    ) -> schemas.ExportReport:
        """Write the store (``scope="all"``) or its memories (``"memories"``) from one
        snapshot into a new file (``jsonl``: every record, ids and links kept) or folder
        (``markdown``: ``memories/<id>.md`` with YAML front matter, and daily logs
        ``history/YYYY-MM-DD.md`` in the zone ``tz``, as :meth:`diary` takes it). Raises
        ExportExists (nothing written), InvalidInput or FileError."""
        return export.export(self._db, destination, format, scope, tz)

    @checked
    def import_memories(self, path: str | Path) -> schemas.MemoryImportReport:
        """Read an export back (a JSONL file, a Markdown export folder or a folder of memory
        files) in one transaction, keeping ids, statuses, times and supersession links; what
        the database already holds is skipped. Raises MemoryDisabled, InvalidInput,
        ImportConflict, SecretRejected or FileError, with nothing written."""
        memories.require_enabled(self.config)
        return memory_import.import_memories(self._db, path)
