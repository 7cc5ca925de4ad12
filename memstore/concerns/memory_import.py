"""import-memories: an export read back into a new or existing database, in one write
transaction: every record in, or (on any bad record, conflict or refused credential)
nothing. Importing the same export again adds nothing. The rules of each record are in
:mod:`memstore.concerns.memory_restore`.

The export is read twice: once for everything the file alone can show (its shape, each
record's fields, the credential guard, the links between its records:
:mod:`memstore.concerns.memory_survey`), before the database is opened or created; then
into the transaction, for what needs the database (conflicts, links to its records). Into
a database that holds no store yet, every link must be to a record of the file, so that
the write pass cannot fail on the file and no new database is left behind.

What is read: a JSONL export (a file; with the whole store, its sessions, messages and
tombstones too), or a Markdown export's folder (its ``memories/``) or a folder of memory
files itself. A Markdown export's ``history/`` is for ``memstore import``.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

from memstore import files, paths
from memstore.concerns.memory_restore import Restore
from memstore.concerns.memory_survey import Survey
from memstore.errors import InvalidInput
from memstore.kinds import TransferFormat
from memstore.schemas import MemoryImportReport
from memstore.schemas.transfer import Restorable
from memstore.store import examine
from memstore.store.database import Database
from memstore.times import utc_now
from memstore.transfer import jsonl, memory_files
from memstore.transfer.problems import unlinked


def import_memories(db: Database, path: str | Path) -> MemoryImportReport:
    """Restore the records of the export at ``path``: ids, statuses, times, supersession.

    Args:
        path: A JSONL export file; a Markdown export folder (its ``memories/`` is read); a
            folder of Markdown memory files; or one such file (``*.md``).

    Returns:
        Memories imported, skipped (already there, as new or newer) and updated (the
        export's newer), the same per record type (and messages deleted by a tombstone).
    Raises:
        InvalidInput: (argument ``path``) For nothing at ``path``, or a record that cannot
            be imported (where it is and why); nothing is written.
        ImportConflict: For a record the database holds otherwise; nothing is written.
        SecretRejected: For a memory that looks like it holds a credential; nothing written.
        FileError: For a path no file system takes (NUL) or not UTF-8, a symbolic link, a
            file that is not regular or cannot be read, or a database this process has open.
    """
    paths.given(path, "path")
    paths.nameable(path)
    source = paths.expanded(path).absolute()
    now = utc_now()
    form, checked = survey(source, fresh=examine.holds_store(db.path) is False, now=now)
    _, records = read(source)
    with db.write() as connection:
        restore = Restore(connection, now, inactive=checked.inactive)
        for where, record in records:
            restore.add(where, record)
        restore.finish()
    zero = {"imported": 0, "skipped": 0, "updated": 0, "deleted": 0}
    tally = {kind: zero | dict(restore.tally[kind]) for kind in jsonl.TYPES}
    return MemoryImportReport(
        path=str(source),
        database=str(db.path),
        format=form,
        imported=tally["memory"]["imported"],
        skipped=tally["memory"]["skipped"],
        updated=tally["memory"]["updated"],
        records=tally,
    )


def survey(source: Path, *, fresh: bool, now: datetime) -> tuple[TransferFormat, Survey]:
    """The format of the export at ``source`` and what its records showed, once what the
    file alone shows is checked, before any database is touched (see :class:`Survey`).

    Raises:
        InvalidInput, FileError, SecretRejected: As :func:`import_memories` says.
    """
    checks = Survey(fresh=fresh, now=now)
    form, records = read(source)
    for where, record in records:
        checks.add(where, record)
    checks.finish()
    return form, checks


def read(source: Path) -> tuple[TransferFormat, Iterator[tuple[str, Restorable]]]:
    """What ``source`` is and its records, read as they are consumed.

    Raises:
        InvalidInput: If nothing is at ``source``.
        FileError: If it is a symbolic link, or neither a regular file nor a folder.
    """
    unlinked(source, "the export")
    if source.is_dir():
        memories = source / "memories"
        unlinked(memories, "an export's memories folder")
        if memories.is_dir():
            return "markdown", memory_files.folder_records(memories, exported=True)
        return "markdown", memory_files.folder_records(source, exported=False)
    if files.regular(source, "the export") is None:
        raise InvalidInput(
            "path",
            f"{source}: nothing is there; give a JSONL file or a folder written by "
            "memstore export.",
        )
    if source.suffix.casefold() == ".md":  # one memory file (found by review: read as JSONL)
        return "markdown", memory_files.file_records([source])
    return "jsonl", jsonl.records(source)
