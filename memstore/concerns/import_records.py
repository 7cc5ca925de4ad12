"""Storing one loaded daily log (LOGFORMAT.md, "Import rules"), inside the caller's write
transaction: either every new sealed record of the file lands, or none does.

The new records are inserted one multi-row statement at a time as they are sorted, each
content decoded from the file's bytes only then, so a large file's rows never all exist at
once. Each record's identity is its source reference (:mod:`memstore.sources`); the sealed
prefix of every path (its size and SHA-256) is remembered so that a rewritten or truncated
file is reported for manual review instead of silently replacing history.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from contextlib import suppress
from dataclasses import dataclass, field
from datetime import UTC, datetime, time, timedelta
from typing import Any

from memstore.concerns.import_files import CHANGED, LARGE_TEXT_BYTES, FileText, LoadedLog
from memstore.errors import FileError, ImportRejected
from memstore.ids import new_id
from memstore.logs.records import MAX_LISTED, LogWarning, RecordSpan, Warnings
from memstore.repository import imports, messages, sessions
from memstore.repository.bulk_index import Deferral
from memstore.repository.imports import Sealed
from memstore.repository.sessions import StoredSession
from memstore.schemas import FileImport, ImportWarning
from memstore.sources import byte_of, log_prefix, source_ref
from memstore.speakers import speaker_key
from memstore.times import STORED_BEFORE, STORED_FROM

DAILY_LOG = "daily_log"  # the metadata "source" of the session of an imported daily log


@dataclass
class Tally:
    """What storing one file did, record by record."""

    imported: int = 0
    skipped: int = 0
    deferred: int = 0
    last_stored: int = -1
    """The byte offset of the last record of the file already stored (-1 for none)."""
    first_new: int = -1
    """The byte offset of the first new record (-1 for none)."""
    found: Warnings = field(default_factory=Warnings)
    unknown: Counter[str] = field(default_factory=Counter)
    """Records by unmapped speaker name (the first :data:`MAX_LISTED` names)."""

    def unknown_speaker(self, record: RecordSpan) -> None:
        """Note a record whose speaker no --speaker option maps."""
        name = speaker_name(record)
        if name in self.unknown or len(self.unknown) < MAX_LISTED:
            self.unknown[name] += 1
        self.found.add(unknown_speaker(record))


def session_id_for(path: str) -> str:
    """The stable synthetic session id of a daily log path."""
    return "log_" + hashlib.sha256(path.encode()).hexdigest()[:24]


def sealed_size(log: LoadedLog, include_tail: bool, previous: Sealed | None) -> int:
    """Bytes accepted after this import: up to the final record, or everything with
    ``include_tail`` unless a fence is still open; never less than before.

    A file without any record boundary yet is accepted only up to its last line ending: its
    unfinished last line (``[0`` say) may still become the ``[`` of the first record.
    """
    parsed = log.parsed
    if include_tail and not parsed.open_fence:
        size = len(log.data)
    elif parsed.tail_start is not None:
        size = parsed.tail_start
    else:
        size = log.data.rfind(b"\n") + 1
    return max(size, previous.size if previous else 0)


def check_prefix(log: LoadedLog, previous: Sealed | None) -> None:
    """Raise ImportRejected when the bytes accepted last time are gone or changed."""
    if previous is None:
        return
    if len(log.data) < previous.size:
        raise ImportRejected(
            f"is shorter ({len(log.data)} bytes) than the {previous.size} bytes already "
            "imported; nothing was imported, review the file manually"
        )
    if prefix_sha256(log, previous.size) != previous.sha256:
        raise ImportRejected(
            f"changed within the first {previous.size} bytes already imported; "
            "nothing was imported, review the file manually"
        )


def prefix_sha256(log: LoadedLog, size: int) -> str:
    """The SHA-256 (hex) of the first ``size`` bytes of the file, hashed without a copy."""
    return hashlib.sha256(memoryview(log.data)[:size]).hexdigest()


def classify(
    connection: sqlite3.Connection,
    log: LoadedLog,
    speakers: Mapping[str, str],
    sealed: int,
    tally: Tally,
) -> Iterator[tuple[RecordSpan, str, str]]:
    """Each new record with its role and source reference, in file order, as it is reached;
    counts the skipped and deferred records in ``tally`` and adds a warning for each record
    of an unknown speaker, deferred ones included.

    Raises:
        ImportRejected: When a record differs from the message already imported under its
            source reference (the records before it have been handed out by then).
    """
    stored, deleted = messages.refs_with_prefix(connection, log_prefix(log.path))
    tally.last_stored = max((byte_of(ref) for ref in stored), default=-1)
    for record in log.parsed.spans:
        ref = source_ref(log.path, record.byte)
        role = speakers.get(speaker_key(speaker_name(record)))
        if record.byte >= sealed:
            tally.deferred += 1
            if role is None:  # never imported under these speakers (found by review: exit 0)
                tally.unknown_speaker(record)
        elif ref in deleted:
            tally.skipped += 1
        elif ref in stored:
            if stored[ref] != record.content(log.data):
                raise ImportRejected(
                    f"record at byte {record.byte} differs from the message already imported; "
                    "nothing was imported, review the file manually"
                )
            tally.skipped += 1
        elif role is None:  # after the stored ones (found by review: called not imported)
            tally.unknown_speaker(record)
        else:
            if tally.first_new < 0:
                tally.first_new = record.byte
            yield record, role, ref


def speaker_name(record: RecordSpan) -> str:
    """The record's speaker name without spaces at either end, as ``--speaker`` names are
    matched and stored (found by review: " Diego: ..." asked for a --speaker " Diego=user"
    that, stripped, never matched it)."""
    return record.speaker.strip()


def unknown_speaker(record: RecordSpan) -> LogWarning:
    """The warning for a record whose speaker no --speaker option maps."""
    name = speaker_name(record)
    return LogWarning(
        "unknown_speaker",
        record.byte,
        f'speaker {name!r} has no role; add --speaker "{name}=user|assistant|system" to import it',
    )


def new_rows(
    new: Iterable[tuple[RecordSpan, str, str]],
    log: LoadedLog,
    session_id: str,
    first: int,
    large: list[tuple[Any, ...]],
) -> Iterator[tuple[Any, ...]]:
    """The messages rows (in ``messages.MESSAGE_COLUMNS`` order) of new records with their
    roles and source references, numbered from sequence ``first``, each record's content
    taken from the log's bytes as it is reached. A record of over a MiB is put in ``large``
    instead, its text left in the file (a ``imports.FileText``)."""
    data = log.data
    for sequence, (record, role, ref) in enumerate(new, start=first):
        end = record.content_end(data)
        when, speaker = record.created_at, speaker_name(record)
        row = (new_id("msg"), session_id, sequence, role, None, when, "completed", ref, speaker)
        if end - record.text_start > LARGE_TEXT_BYTES:
            text = FileText.of(log.path, data, record.text_start, end)
            large.append((*row[:4], text, *row[5:]))
        else:
            yield (*row[:4], record.stored(data), *row[5:])


def release(log: LoadedLog) -> None:
    """Empty the log's bytes, for the parsed log and its records too (they share them), so
    that SQLite's work on a long message does not come on top of the whole file. Where a
    view of the bytes is still alive they stay."""
    with suppress(BufferError):
        log.data.clear()


def store(
    deferral: Deferral,
    log: LoadedLog,
    speakers: Mapping[str, str],
    include_tail: bool,
    now: datetime,
) -> FileImport:
    """Store the new sealed records of one loaded log in the caller's transaction, a multi-row
    INSERT at a time. Messages of over a MiB go in last, after the log's bytes are emptied
    (:func:`release`), their text read again from the file and checked against what was
    parsed.

    Args:
        deferral: The caller's transaction, whose new messages are indexed at its end.
        speakers: Case-folded speaker name -> role.

    Raises:
        ImportRejected: When the already imported prefix or an accepted record changed, or
            the file changed while its long messages were read again.
    """
    connection = deferral.connection
    previous = imports.sealed(connection, log.path)
    check_prefix(log, previous)
    sealed = sealed_size(log, include_tail, previous)
    # Hashed now: storing a message of over a MiB empties the log's bytes (release).
    prefix = Sealed(sealed, prefix_sha256(log, sealed))
    session_id = ensure_session(connection, log)
    # the final record may be half written, unless the whole file is accepted (review)
    whole = sealed >= len(log.data)
    found, writing = (log.parsed.found, 0) if whole else log.parsed.found.within(sealed)
    tally = Tally(deferred=writing)
    tally.found.extend(found)
    insert_records(
        deferral, log, session_id, classify(connection, log, speakers, sealed, tally), tally
    )
    if tally.imported and tally.first_new < tally.last_stored:
        messages.renumber_by_source(connection, session_id)
    imports.seal(connection, log.path, session_id, prefix, now)
    return report(log.path, session_id, sealed, tally)


def report(path: str, session_id: str, sealed: int, tally: Tally) -> FileImport:
    """The report of a stored file: what ``tally`` counted, and where the sealed prefix ends."""
    return FileImport(
        path=path,
        session_id=session_id,
        imported=tally.imported,
        skipped=tally.skipped,
        deferred=tally.deferred,
        sealed_size=sealed,
        warnings=[ImportWarning.model_validate(w) for w in tally.found.shown()],
        warning_counts=dict(tally.found.counts),
        unknown_speakers=dict(tally.unknown),
        error=None,
    )


def insert_records(
    deferral: Deferral,
    log: LoadedLog,
    session_id: str,
    new: Iterable[tuple[RecordSpan, str, str]],
    tally: Tally,
) -> None:
    """Insert the ``new`` records, the long ones last (see :func:`store`), counting them in
    ``tally``.

    Raises:
        ImportRejected: When the file changed while its long messages were read again.
    """
    sequence = messages.next_sequence(deferral.connection, session_id)
    assert sequence is not None  # ensure_session made the session
    large: list[tuple[Any, ...]] = []
    rows = new_rows(new, log, session_id, sequence, large)
    tally.imported = imports.add_messages(deferral, rows)
    if large:
        release(log)
        try:
            tally.imported += imports.add_messages(deferral, large)
        except (OSError, FileError) as error:
            raise ImportRejected(CHANGED) from error


def ensure_session(connection: sqlite3.Connection, log: LoadedLog) -> str:
    """The synthetic session of this path, created on its first import, started when its
    first record was written; a log with no valid record yet starts at its day's midnight,
    UTC (no record gives the offset it was written at), not at the time of the import, until
    an import finds a record in it: an empty session then starts at that record, as it would
    had the log been imported whole at once."""
    session_id = session_id_for(log.path)
    spans = log.parsed.spans
    if sessions.get(connection, session_id) is None:
        metadata = {"source": DAILY_LOG, "path": log.path, "boundaries": "unknown"}
        midnight = datetime.combine(log.parsed.day, time(), UTC)
        # a log of the calendar's first or last day: its session starts within the range
        midnight = min(max(midnight, STORED_FROM), STORED_BEFORE - timedelta(microseconds=1))
        started = spans[0].created_at if spans else midnight
        sessions.add(connection, StoredSession(session_id, started, None, metadata))
    elif spans:
        sessions.restart_empty(connection, session_id, spans[0].created_at)
    return session_id
