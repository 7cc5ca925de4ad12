"""Export: the whole store, or its memories only, as JSONL or as Markdown, into a new file
or folder, from one consistent snapshot (one read transaction; writers go on meanwhile).

- JSONL (a file): a header, then every session, message, memory, memory source link and
  tombstone as one record a line (:mod:`memstore.schemas.transfer`), then an end line
  counting them. Nothing is lost: ids, sequences, statuses, speakers, times, links.
- Markdown (a folder): ``memories/<id>.md``, each memory with YAML front matter
  (:mod:`memstore.transfer.memory_files`), and for the whole store ``history/YYYY-MM-DD.md``,
  daily logs in the LOGFORMAT that ``memstore import`` reads back
  (:mod:`memstore.transfer.daily_logs`): message ids, statuses and sessions are not kept.

``import-memories`` reads either back (:mod:`memstore.concerns.memory_import`).
"""

from __future__ import annotations

import sqlite3
from collections import Counter, defaultdict
from collections.abc import Iterator
from datetime import datetime, tzinfo
from pathlib import Path
from typing import Any

from memstore import open_stores
from memstore.errors import FileError
from memstore.kinds import TransferFormat, TransferScope
from memstore.repository import transfer as rows
from memstore.repository.memories import StoredMemory
from memstore.schemas import ExportReport
from memstore.schemas.transfer import (
    FORMAT_VERSION,
    DeletedSourceRecord,
    ExportEnd,
    ExportHeader,
    MemoryRecord,
    MemorySourceRecord,
    MessageRecord,
    Restorable,
    SessionRecord,
    SourceLink,
)
from memstore.store.database import Database
from memstore.times import utc_now
from memstore.transfer import destination, jsonl, memory_files
from memstore.transfer.daily_logs import DailyLogFiles
from memstore.zones import zone

DEFAULT_ASSISTANT = "Assistant"


def export(
    db: Database,
    to: str | Path,
    form: TransferFormat,
    scope: TransferScope,
    tz: str | tzinfo | None,
) -> ExportReport:
    """Write the store (``scope="all"``) or its memories into the new ``to``.

    Args:
        to: A new file (JSONL) or folder (Markdown); missing parent folders are created.
        form: ``jsonl`` or ``markdown``.
        scope: ``all`` or ``memories``.
        tz: The IANA zone of the daily logs' days and stamps (Markdown; a JSONL export
            has no days, but refuses an unknown zone all the same); the machine's by
            default.

    Returns:
        Where it went and how many records of each type; for the Markdown history, the
        speaker names with their roles (the import's ``--speaker`` options), the messages
        the log form reshaped, and what could not be kept.

    Raises:
        ExportExists: If ``to`` exists; nothing is written.
        InvalidInput: For an unknown ``tz``, or a folder that cannot be written.
        FileError: If writing fails midway (a full disk; nothing is left at ``to``),
            ``to`` is where SQLite keeps a file beside a database, or, for JSONL, ends in
            a path separator (a folder's name).
    """
    target = destination.target(to, folder=form == "markdown")
    open_stores.not_a_companion(target, db.path)
    place = zone(tz) if form == "markdown" else None
    if tz is not None:  # a given zone is checked for JSONL too, as the CLI checks --tz
        zone(tz)  # (found by review); without one, a JSONL export needs no machine zone
    db.ensure_schema()
    written = write(db, target, form, scope, place)
    return ExportReport(
        export=str(target), database=str(db.path), format=form, scope=scope, **written
    )


def write(
    db: Database, target: Path, form: TransferFormat, scope: TransferScope, place: tzinfo | None
) -> dict[str, Any]:
    """Write the export into ``target`` from one snapshot, staged and put in place whole
    (JSONL without ``place``, else Markdown in that zone); what it wrote, by kind.

    Raises:
        FileError: If writing fails midway; nothing is left at ``target``.
    """
    now = utc_now()
    header = ExportHeader(
        format_version=FORMAT_VERSION,
        scope=scope,
        exported_at=now,
        schema_version=db.code_version(),
    )
    try:
        with destination.staged(target, folder=form == "markdown") as staging, db.read() as c:
            if place is None:
                return write_jsonl(c, staging, header)
            return write_markdown(c, staging, scope, place, now)
    except OSError as error:
        raise unwritten(target, error) from error


def unwritten(target: Path, error: OSError) -> FileError:
    """The error of an export that failed midway (a full disk): nothing is left at ``target``."""
    return FileError(
        str(target),
        f"the export could not be written ({error.strerror or error}); nothing was left "
        "there. Free some space, or choose another place.",
    )


def write_jsonl(connection: sqlite3.Connection, path: Path, header: ExportHeader) -> dict[str, Any]:
    """Write the header, every record of its scope and the end line into the file ``path``.

    Returns:
        The report's ``counts``: every type of the scope, 0 included.
    """
    kinds = jsonl.TYPES if header.scope == "all" else jsonl.MEMORY_TYPES
    counts: Counter[str] = Counter(dict.fromkeys(kinds, 0))
    with path.open("wb") as out:
        out.write(jsonl.line(header))
        for record in stored_records(connection, header.scope, header.exported_at):
            out.write(jsonl.line(record))
            counts[record.type] += 1
        out.write(jsonl.line(ExportEnd(counts=dict(counts))))
    return {"counts": dict(counts)}


def stored_records(
    connection: sqlite3.Connection, scope: TransferScope, now: datetime
) -> Iterator[Restorable]:
    """Every record of ``scope`` in the order an import needs them: sessions, messages,
    memories, source links, tombstones."""
    if scope == "all":
        yield from (SessionRecord.model_validate(row) for row in rows.sessions(connection))
        yield from (MessageRecord.model_validate(row) for row in rows.messages(connection))
    yield from (memory_record(row, now) for row in rows.memories(connection))
    yield from (MemorySourceRecord.model_validate(row) for row in rows.sources(connection))
    if scope == "all":
        yield from (DeletedSourceRecord.model_validate(row) for row in rows.tombstones(connection))


def memory_record(memory: StoredMemory, now: datetime) -> MemoryRecord:
    """The record of a stored memory, its status as shown (``expired`` past its expiry)."""
    record = MemoryRecord.model_validate(memory)
    return record.model_copy(update={"status": memory.shown_status(now)})


def write_markdown(
    connection: sqlite3.Connection,
    folder: Path,
    scope: TransferScope,
    place: tzinfo,
    now: datetime,
) -> dict[str, Any]:
    """Write ``memories/<id>.md`` and, for the whole store, ``history/YYYY-MM-DD.md`` into
    the new ``folder``.

    Returns:
        The report's ``counts``, ``speakers``, ``reshaped`` and ``warnings``.
    """
    counts = {"memory": write_memory_files(connection, folder / "memories", now)}
    if scope == "memories":
        return {"counts": counts}
    name = rows.assistant_name(connection) or DEFAULT_ASSISTANT
    logs = DailyLogFiles(folder / "history", name, place)
    try:
        for message in rows.messages(connection):
            logs.add(MessageRecord.model_validate(message))
    finally:
        logs.close()
    return {
        "counts": counts | {"message": logs.messages, "day": logs.days},
        "speakers": logs.speakers.roles,
        "reshaped": logs.reshaped,
        "warnings": logs.speakers.warnings(),
    }


def write_memory_files(connection: sqlite3.Connection, folder: Path, now: datetime) -> int:
    """Write every memory as ``<folder>/<id>.md`` (a new folder); returns how many."""
    links: defaultdict[str, list[SourceLink]] = defaultdict(list)
    for link in rows.sources(connection):
        links[link.memory_id].append(SourceLink.model_validate(link))
    destination.make_folder(folder)
    written = 0
    for stored in rows.memories(connection):
        memory = memory_record(stored, now)
        with destination.create(folder / f"{memory.id}.md") as out:
            out.write(memory_files.render(memory, links[memory.id]).encode("utf-8"))
        written += 1
    return written
