"""Append records to the daily Markdown log exactly as LOGFORMAT.md pins the format.

The recorder writes each message here and stores in SQLite the very content an import of
the file would read back, under the same source reference, so that a later import recovers
any gap without duplicates. Content is made loggable first: line endings become ``\\n``,
trailing line endings go, a line that would start a record (a blank line, then ``[``, two
digits and a colon, outside code) is indented by one space, and a fence left open is closed.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from memstore import files, sources
from memstore.arguments import unprintable
from memstore.errors import InvalidInput
from memstore.logs import existing
from memstore.logs.fences import FenceTracker, starts_record
from memstore.logs.syntax import MAX_LOG_BYTES
from memstore.times import aware_utc, storable

try:
    import fcntl
except ImportError:  # Windows: appends are serialised within this process only
    fcntl = None  # type: ignore[assignment]

MAX_SPEAKER_CHARS = 100
MAX_OFFSET = timedelta(hours=14)


@dataclass(frozen=True)
class Written:
    """Where a record went: its file and the byte offset of its ``[``."""

    path: Path
    byte: int

    @property
    def source_ref(self) -> str:
        """The record's identity, as the importer computes it."""
        return sources.source_ref(str(self.path.resolve()), self.byte)


class DayLogFull(OSError):
    """An append that would take a day's log past :data:`~memstore.logs.syntax.MAX_LOG_BYTES`,
    which no import reads (found by review: the recorder went on past 16 MiB, and the
    day's earlier records could no longer be imported either)."""

    def __init__(self, path: Path) -> None:
        super().__init__(f"{path} would pass {MAX_LOG_BYTES // 2**20} MiB, which no import reads")
        self.path = path


def loggable(content: str) -> str:
    """``content`` as the log will hold it and an import will read it back.

    Args:
        content: The message as given.

    Returns:
        The content with line endings made ``\\n``, trailing line endings removed, each line
        that would start a record indented by one space, and a fence left open closed. A
        line's carriage returns at its end go too: written before ``\\n``, the importer would
        take the last of them for part of a CRLF ending, and a line ``\\r`` for a blank one
        (found by review: ``\\r\\r\\n`` before a stamp line forged a record).
    """
    lines = [line.rstrip("\r") for line in content.split("\n")]
    lines = "\n".join(lines).rstrip("\n").split("\n")
    fence = FenceTracker()
    after_blank = False
    for index, line in enumerate(lines):
        if index and after_blank and not fence.is_open and starts_record(line):
            lines[index] = line = " " + line
        fence.feed(line)
        after_blank = index > 0 and not line.strip(" \t")  # the first line follows "Name: "
    if fence.opening is not None:
        lines.append(fence.opening)
    return "\n".join(lines)


def stamp_time(when: object) -> datetime:
    """``when`` as the log's stamp will hold it: whole seconds, in its own UTC offset.

    Args:
        when: The time of the message; anything other than an aware datetime is refused.

    Raises:
        InvalidInput: If ``when`` is not an aware datetime, leaves the years 1 to 9999 in
            UTC, or has an offset a stamp cannot hold (whole minutes, at most 14 hours: the
            importer reads no other), so that no record is written that a later import
            would lose.
    """
    if not isinstance(when, datetime):
        raise InvalidInput("when", f"must be an aware datetime, not {type(when).__name__}.")
    storable(aware_utc(when, "when"), "when")
    offset = when.utcoffset()
    assert offset is not None  # aware_utc checked it
    if offset % timedelta(minutes=1) or abs(offset) > MAX_OFFSET:
        raise InvalidInput(
            "when",
            f"{when.isoformat()} has the UTC offset {offset}; a log stamp holds whole "
            "minutes up to 14 hours. Convert it to the local zone first.",
        )
    return when.replace(microsecond=0)


def heads_a_record(name: str) -> bool:
    """Whether a log record can carry ``name`` as its speaker (LOGFORMAT): 1 to 100
    characters, no colon or line ending."""
    return 1 <= len(name) <= MAX_SPEAKER_CHARS and not any(c in name for c in ":\r\n")


def check_speaker(speaker: str) -> None:
    """Raise InvalidInput (argument ``speaker``) unless memstore may write ``speaker`` at the
    head of a log record and import it back by its name: one a record can carry
    (:func:`heads_a_record`), without a control character or bidi control (found by review:
    a NUL was written into the log, and the import's hint asked for a --speaker no command
    line can carry), and no space at either end (an import's ``--speaker`` names are
    stripped)."""
    if not heads_a_record(speaker) or unprintable(speaker) or speaker != speaker.strip():
        raise InvalidInput(
            "speaker",
            f"{speaker!r} cannot head a log record; use 1-100 characters, no colon, line "
            "ending, control character or bidi control, no space at either end.",
        )


def render(when: datetime, speaker: str, content: str) -> str:
    """One record: blank line, stamp line, ``Speaker: content`` (no final line ending).

    Args:
        when: The aware time of the record (its stamp shows whole seconds and the offset).
        speaker: The name to write before ``": "``, 1 to 100 characters.
        content: The message, already :func:`loggable`.

    Raises:
        InvalidInput: For a naive ``when`` (argument ``when``), or a speaker name
            :func:`check_speaker` refuses (``speaker``).
    """
    if when.utcoffset() is None:
        raise InvalidInput("when", "a log record needs an aware time; give it a UTC offset.")
    check_speaker(speaker)
    return f"\n\n{when.strftime('[%H:%M:%S %z]')} \n{speaker}: {content}"


class LogWriter:
    """Appends records to ``<log_dir>/YYYY-MM-DD.md`` (the record's local date).

    Each append writes the whole record or nothing: should a write fail midway (a full disk),
    the file is truncated back to its size before the append, so no record is left cut in
    the middle of a character for a later import to stumble on. New files are 0600 and new
    folders 0700; a log or log folder that is not a regular file or folder is refused.

    Args:
        log_dir: The folder of the daily logs (created when missing).
        assistant_name: The name in each new file's header (``<Name> Log — <date>``).
    """

    def __init__(self, log_dir: Path, assistant_name: str) -> None:
        self.log_dir = log_dir
        self.assistant_name = assistant_name
        self._lock = threading.Lock()
        self._read: set[Path] = set()  # the logs read at their first append (see existing)

    def append(self, when: datetime, speaker: str, content: str) -> Written:
        """Append one record to the log of its local date, creating the file (with its
        header) and the folder when missing; a day's log this writer did not start is
        mended first where an import would not read the record (see
        :mod:`~memstore.logs.existing`).

        Args:
            when: The aware time of the record; its local date names the file.
            speaker, content: The name written before ``": "``; the message, :func:`loggable`.

        Returns:
            The file and the byte offset of the record's ``[``.

        Raises:
            InvalidInput: See :func:`render`.
            FileError: When the log folder is not a folder, the day's log not a regular file,
                or one no import could read (see :mod:`~memstore.logs.existing`).
            OSError: When the file cannot be written; it is then as it was before (a file
                this append created is removed).
            DayLogFull: When the record would take the day's log past 16 MiB (left as is).
        """
        record, day = render(when, speaker, content).encode("utf-8"), when.date().isoformat()
        path = self.log_dir / f"{day}.md"
        with self._lock:
            if not files.folder(self.log_dir, "the log folder"):
                files.make_folders(self.log_dir)
            created = not path.exists()
            try:
                with appending(path) as (descriptor, size):
                    size, lead = self._lead(path, descriptor, size, day)
                    if size + len(lead) + len(record) > MAX_LOG_BYTES:
                        raise DayLogFull(path)
                    write_whole(descriptor, lead + record, size)
                    self._read.add(path)  # once written: a failed write leaves it to mend
            except OSError:  # DayLogFull too
                if created:  # found by review: an empty log no import reads stayed behind
                    remove_if_empty(path)
                raise
        return Written(path, size + len(lead) + 2)  # after the blank line before the stamp

    def _lead(self, path: Path, descriptor: int, size: int, day: str) -> tuple[int, bytes]:
        """The size the day's log keeps and what goes before the record: the header of an
        empty file, what a file this writer reads for the first time needs (see
        :func:`existing.before_records`), else nothing."""
        lead = b""
        if path not in self._read:
            size, lead = existing.before_records(path, descriptor, size)
        return size, (b"" if size else f"{self.assistant_name} Log — {day}".encode()) + lead


def remove_if_empty(path: Path) -> None:
    """Remove the file at ``path`` if it is empty (a log this append created and could not
    write a byte of), leaving it as it was: not there."""
    with suppress(OSError):
        if path.stat().st_size == 0:
            path.unlink()


@contextmanager
def appending(path: Path) -> Iterator[tuple[int, int]]:
    """An append descriptor of ``path`` and its size, with an exclusive lock on the file
    (where the platform has ``flock``) so that other processes append after this one."""
    descriptor = files.open_append(path)
    try:
        if fcntl is not None:
            fcntl.flock(descriptor, fcntl.LOCK_EX)
        yield descriptor, os.fstat(descriptor).st_size
    finally:
        os.close(descriptor)  # releases the lock


def write_whole(descriptor: int, data: bytes, size: int) -> None:
    """Write ``data`` at the end of the file whose size was ``size``; on any error, cut the
    file back to ``size`` and re-raise.

    Raises:
        OSError: When a write fails (ENOSPC, EIO, ...).
    """
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(descriptor, view) :]
    except BaseException:
        with suppress(OSError):
            os.ftruncate(descriptor, size)
        raise
