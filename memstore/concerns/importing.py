"""Importing daily Markdown logs (LOGFORMAT.md, "Import rules").

A file is read and parsed outside any transaction, then stored in one write transaction of
its own: either every new sealed record of the file lands, or none does. Within it the new
records are inserted one multi-row statement at a time as they are sorted, each content
decoded from the file's bytes only then, so a large file's rows never all exist at once.
Each record's identity is its source reference ``<resolved absolute path>#byte=<offset>``;
the sealed prefix of every path (its size and SHA-256) is remembered so that a rewritten or
truncated file is reported for manual review instead of silently replacing history.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from sqlalchemy.orm import Session

from memstore import files
from memstore.arguments import valid_unicode
from memstore.errors import FileError
from memstore.logs.parse import LogFormatError, ParsedLog, RecordSpan, parse_log
from memstore.logs.records import MAX_LISTED, LogWarning, Warnings
from memstore.repository import messages as history
from memstore.schemas import FileImport, ImportWarning
from memstore.store.database import driver_connection
from memstore.store.models import ImportRow, SessionRow, new_id

MAX_LOG_BYTES = 16 * 1024 * 1024


class FileRejected(Exception):
    """A file-level problem: nothing is imported from that file."""


@dataclass(frozen=True)
class LoadedLog:
    """A daily log read and parsed, ready to store. ``data`` is a bytearray so that storing
    can empty it, for every holder at once, before writing the log's longest messages (see
    :func:`store`)."""

    path: str
    data: bytearray
    parsed: ParsedLog


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
        if record.speaker in self.unknown or len(self.unknown) < MAX_LISTED:
            self.unknown[record.speaker] += 1
        self.found.add(unknown_speaker(record))


def expand_paths(paths: Iterable[str | Path]) -> list[Path]:
    """Files to import: each file as given, each directory's ``*.md`` files sorted, not
    recursively. Paths are made absolute but symbolic links are not followed."""
    files: list[Path] = []
    for given in paths:
        path = Path(given).expanduser().absolute()
        if is_real_directory(path):
            files.extend(sorted(p for p in path.glob("*.md")))
        else:
            files.append(path)
    return files


def empty_folders(paths: Iterable[str | Path]) -> list[Path]:
    """The folders among ``paths`` that hold no ``*.md`` file directly (their subfolders are
    not searched)."""
    folders = [Path(given).expanduser().absolute() for given in paths]
    return [path for path in folders if is_real_directory(path) and not any(path.glob("*.md"))]


def empty_folder(path: Path) -> FileImport:
    """The report of a folder given to import that holds no daily log."""
    return rejected(
        path,
        "holds no daily log (YYYY-MM-DD.md); folders are not searched recursively, so give "
        "the folders that hold the logs themselves",
    )


def is_real_directory(path: Path) -> bool:
    """Whether ``path`` is a directory and not a symbolic link; False when it cannot be
    inspected (a name too long, no permission): :func:`load` then reports why."""
    try:
        return path.is_dir() and not path.is_symlink()
    except OSError:
        return False


def session_id_for(path: str) -> str:
    """The stable synthetic session id of a daily log path."""
    return "log_" + hashlib.sha256(path.encode()).hexdigest()[:24]


def load(path: Path) -> LoadedLog:
    """Read and parse one daily log.

    Raises:
        FileRejected: For a missing or unreadable file, a symbolic link, a non-file, a file
            over 16 MiB, a path that is not valid UTF-8, or a file-level format error.
    """
    try:
        resolved, data = read(path)
    except OSError as error:
        raise FileRejected(f"cannot be read ({error.strerror or error}); check the path") from error
    try:
        parsed = parse_log(data, path.name)
    except LogFormatError as error:
        raise FileRejected(str(error)) from error
    return LoadedLog(path=resolved, data=data, parsed=parsed)


def loaded(paths: Sequence[Path]) -> Iterator[tuple[Path, LoadedLog | FileRejected]]:
    """Each path with its loaded log, or why it was rejected, in order, one file in memory at
    a time. (Parsing the next file in a thread while SQLite stores the current one was
    measured: about 30% slower on two cores, so it is not done.)"""
    for path in paths:
        try:
            yield path, load(path)
        except FileRejected as rejection:
            yield path, rejection


def read(path: Path) -> tuple[str, bytearray]:
    """The resolved path (the base of source references) and the bytes of one log file.

    Raises:
        FileRejected: For a symbolic link, a missing file or one that is not a regular file
            (a FIFO is refused without blocking), a file over 16 MiB or a path that is not
            valid UTF-8 (source references are UTF-8 text).
        OSError: When the file system refuses to inspect or read the file.
    """
    if path.is_symlink():
        raise FileRejected("is a symbolic link; import the file it points to instead")
    resolved = str(path.resolve())
    if not valid_unicode(resolved):  # a name that is not UTF-8 decodes to lone surrogates
        raise FileRejected("has a path that is not valid UTF-8; rename it or its folder")
    try:
        data = files.read_regular(path, MAX_LOG_BYTES, "a daily log")  # one over: caught
    except FileNotFoundError as error:
        raise FileRejected("does not exist; check the path") from error
    except FileError as error:
        raise FileRejected(error.reason.replace("a daily log must", "must")) from error
    if len(data) > MAX_LOG_BYTES:
        raise FileRejected(f"is over {MAX_LOG_BYTES // (1024 * 1024)} MiB; split it first")
    return resolved, data


def sealed_size(log: LoadedLog, include_tail: bool, previous: ImportRow | None) -> int:
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
    return max(size, previous.sealed_size if previous else 0)


def check_prefix(log: LoadedLog, previous: ImportRow | None) -> None:
    """Raise FileRejected when the bytes accepted last time are gone or changed."""
    if previous is None:
        return
    if len(log.data) < previous.sealed_size:
        raise FileRejected(
            f"is shorter ({len(log.data)} bytes) than the {previous.sealed_size} bytes already "
            "imported; nothing was imported, review the file manually"
        )
    if prefix_sha256(log, previous.sealed_size) != previous.sealed_sha256:
        raise FileRejected(
            f"changed within the first {previous.sealed_size} bytes already imported; "
            "nothing was imported, review the file manually"
        )


def prefix_sha256(log: LoadedLog, size: int) -> str:
    """The SHA-256 (hex) of the first ``size`` bytes of the file, hashed without a copy."""
    return hashlib.sha256(memoryview(log.data)[:size]).hexdigest()


def classify(
    db: Session, log: LoadedLog, speakers: Mapping[str, str], sealed: int, tally: Tally
) -> Iterator[tuple[RecordSpan, str, str]]:
    """Each new record with its role and source reference, in file order, as it is reached;
    counts the skipped and deferred records in ``tally`` and adds a warning for each record
    of an unknown speaker.

    Raises:
        FileRejected: When a record differs from the message already imported under its
            source reference (the records before it have been handed out by then).
    """
    stored, deleted = history.refs_with_prefix(db, f"{log.path}#byte=")
    tally.last_stored = max((byte_offset(ref) for ref in stored), default=-1)
    for record in log.parsed.spans:
        ref = f"{log.path}#byte={record.byte}"
        role = speakers.get(record.speaker.casefold())
        if record.byte >= sealed:
            tally.deferred += 1
        elif role is None:
            tally.unknown_speaker(record)
        elif ref in deleted:
            tally.skipped += 1
        elif ref in stored:
            if stored[ref] != record.content(log.data):
                raise FileRejected(
                    f"record at byte {record.byte} differs from the message already imported; "
                    "nothing was imported, review the file manually"
                )
            tally.skipped += 1
        else:
            if tally.first_new < 0:
                tally.first_new = record.byte
            yield record, role, ref


def byte_offset(source_ref: str) -> int:
    """The byte offset of a ``<path>#byte=<offset>`` source reference."""
    return int(source_ref.rpartition("#byte=")[2])


def unknown_speaker(record: RecordSpan) -> LogWarning:
    """The warning for a record whose speaker no --speaker option maps."""
    return LogWarning(
        "unknown_speaker",
        record.byte,
        f"speaker {record.speaker!r} has no role; add --speaker "
        f'"{record.speaker}=user|assistant|system" to import it',
    )


def new_rows(
    new: Iterable[tuple[RecordSpan, str, str]],
    log: LoadedLog,
    session_id: str,
    first: int,
    large: list[tuple[Any, ...]],
) -> Iterator[tuple[Any, ...]]:
    """The messages rows (in ``history.MESSAGE_COLUMNS`` order) of new records with their
    roles and source references, numbered from sequence ``first``, each record's content
    taken from the log's bytes as it is reached. A record of over a MiB is put in ``large``
    instead, its text left in the file (a ``history.FileText``)."""
    data = log.data
    for sequence, (record, role, ref) in enumerate(new, start=first):
        end = record.content_end(data)
        row = (new_id("msg"), session_id, sequence, role, None, record.created_at, "completed", ref)
        if end - record.text_start > history.LARGE_TEXT_BYTES:
            text = history.FileText.of(log.path, data, record.text_start, end)
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
    db: Session, log: LoadedLog, speakers: Mapping[str, str], include_tail: bool, now: datetime
) -> FileImport:
    """Store the new sealed records of one loaded log in the caller's transaction, a multi-row
    INSERT at a time. Messages of over a MiB go in last, after the log's bytes are emptied
    (:func:`release`), their text read again from the file and checked against what was
    parsed.

    Args:
        speakers: Case-folded speaker name -> role.

    Raises:
        FileRejected: When the already imported prefix or an accepted record changed, or the
            file changed while its long messages were read again.
    """
    previous = db.get(ImportRow, log.path)
    check_prefix(log, previous)
    sealed = sealed_size(log, include_tail, previous)
    session_id = ensure_session(db, log, now)
    sequence = history.next_sequence(driver_connection(db), session_id)
    assert sequence is not None  # ensure_session made the session
    tally = Tally()
    tally.found.extend(log.parsed.found)
    new = classify(db, log, speakers, sealed, tally)
    large: list[tuple[Any, ...]] = []
    tally.imported = history.add_messages(db, new_rows(new, log, session_id, sequence, large))
    digest = prefix_sha256(log, sealed)
    if large:
        release(log)
        try:
            tally.imported += history.add_messages(db, large)
        except (history.TextChanged, OSError, FileError) as error:
            raise FileRejected(
                "changed while its long messages were read again; nothing was imported, "
                "import it again"
            ) from error
    if tally.imported and tally.first_new < tally.last_stored:
        history.renumber_by_source(db, session_id)
    remember_prefix(db, log.path, previous, (sealed, digest), session_id, now)
    return FileImport(
        path=log.path,
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


def ensure_session(db: Session, log: LoadedLog, now: datetime) -> str:
    """The synthetic session of this path, created on its first import."""
    session_id = session_id_for(log.path)
    if history.get_session(db, session_id) is None:
        spans = log.parsed.spans
        history.add_session(
            db,
            SessionRow(
                id=session_id,
                started_at=spans[0].created_at if spans else now,
                ended_at=None,
                session_metadata={
                    "source": "daily_log",
                    "path": log.path,
                    "boundaries": "unknown",
                },
            ),
        )
    return session_id


def remember_prefix(
    db: Session,
    path: str,
    previous: ImportRow | None,
    prefix: tuple[int, str],
    session_id: str,
    now: datetime,
) -> None:
    """Record the sealed prefix's size and SHA-256 (``prefix``) for the next import's check."""
    sealed, digest = prefix
    row = previous or ImportRow(path=path, session_id=session_id)
    row.sealed_size, row.sealed_sha256, row.imported_at = sealed, digest, now
    db.add(row)
    db.flush()


def rejected(path: Path | str, reason: str) -> FileImport:
    """The report of a file that imported nothing because of a file-level problem."""
    shown = printable(str(path))
    return FileImport(
        path=shown,
        session_id=None,
        imported=0,
        skipped=0,
        deferred=0,
        sealed_size=0,
        warnings=[],
        error=f"{shown}: {reason}",
    )


def printable(path: str) -> str:
    """A path as UTF-8 text: bytes of a name that is not UTF-8 become ``\\xNN`` escapes."""
    return path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
