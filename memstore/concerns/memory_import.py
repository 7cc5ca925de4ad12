"""import-memories: an export read back into a new or existing database, in one write
transaction: every record in, or (on any bad record, conflict or refused credential)
nothing. Importing the same export again adds nothing. The rules of each record are in
:mod:`memstore.concerns.memory_restore`.

The export is read twice: once for everything the file alone can show (its shape, each
record's fields, the credential guard), before the database is opened or created; then
into the transaction, for what needs the database (conflicts, links).

What is read: a JSONL export (a file; with the whole store, its sessions, messages and
tombstones too), or a Markdown export's folder (its ``memories/``) or a folder of memory
files itself. A Markdown export's ``history/`` is for ``memstore import``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from memstore import files
from memstore.concerns.memory_restore import Restore, check
from memstore.errors import InvalidInput
from memstore.kinds import TransferFormat
from memstore.schemas import MemoryImportReport
from memstore.schemas.transfer import Restorable
from memstore.store.database import Database
from memstore.times import utc_now
from memstore.transfer import jsonl, memory_files

TYPES = ("session", "message", "memory", "memory_source", "deleted_source")


def import_memories(db: Database, path: str | Path) -> MemoryImportReport:
    """Restore the records of the export at ``path`` with their ids, statuses, times and
    supersession links.

    Args:
        path: A JSONL export file; a Markdown export folder (its ``memories/`` is read); or
            a folder of Markdown memory files.

    Returns:
        Memories imported and skipped (already there, same content), and per record type.

    Raises:
        InvalidInput: (argument ``path``) For nothing at ``path``, or a record that cannot
            be imported (where it is and why); nothing is written.
        ImportConflict: For a record the database holds otherwise; nothing is written.
        SecretRejected: For a memory that looks like it holds a credential; nothing is
            written.
        FileError: For a file that is not a regular file or cannot be read.
    """
    source = Path(path).expanduser().absolute()
    form, records = read(source)
    for where, record in records:  # first what the file alone shows, before any database
        check(where, record)
    _, records = read(source)
    with db.write() as connection:
        restore = Restore(connection, utc_now())
        for where, record in records:
            restore.add(where, record)
        restore.finish()
    tally = {kind: {"imported": 0, "skipped": 0} | dict(restore.tally[kind]) for kind in TYPES}
    return MemoryImportReport(
        path=str(source),
        database=str(db.path),
        format=form,
        imported=tally["memory"]["imported"],
        skipped=tally["memory"]["skipped"],
        records=tally,
    )


def read(source: Path) -> tuple[TransferFormat, Iterator[tuple[str, Restorable]]]:
    """What ``source`` is and its records, read as they are consumed.

    Raises:
        InvalidInput: If nothing is at ``source``.
        FileError: If it is neither a regular file nor a folder.
    """
    if source.is_dir():
        memories = source / "memories"
        folder = memories if memories.is_dir() else source
        return "markdown", memory_files.folder_records(folder)
    if files.regular(source, "the export") is None:
        raise InvalidInput(
            "path",
            f"{source}: nothing is there; give a JSONL file or a folder written by "
            "memstore export.",
        )
    return "jsonl", jsonl.records(source)
