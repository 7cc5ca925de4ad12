"""Append records to the daily Markdown log exactly as LOGFORMAT.md pins the format.

The recorder writes each message here and stores in SQLite the very content an import of
the file would read back, under the same source reference, so that a later import recovers
any gap without duplicates. Content is made loggable first: line endings become ``\\n``,
trailing line endings go, a line that would start a record (a blank line, then ``[``, two
digits and a colon, outside code) is indented by one space, and a fence left open is closed.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from memstore.logs.parse import FenceTracker, starts_record

MAX_SPEAKER_CHARS = 100


@dataclass(frozen=True)
class Written:
    """Where a record went: its file and the byte offset of its ``[``."""

    path: Path
    byte: int

    @property
    def source_ref(self) -> str:
        """The record's identity, as the importer computes it."""
        return f"{self.path.resolve()}#byte={self.byte}"


def loggable(content: str) -> str:
    """``content`` as the log will hold it and an import will read it back."""
    lines = content.replace("\r\n", "\n").rstrip("\r\n").split("\n")
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


def render(when: datetime, speaker: str, content: str) -> str:
    """One record: blank line, stamp line, ``Speaker: content`` (no final line ending).

    Raises:
        ValueError: For a naive time, a speaker name that is empty, over 100 characters or
            holds a colon or a line ending.
    """
    if when.utcoffset() is None:
        raise ValueError("a log record needs an aware time")
    if not 1 <= len(speaker) <= MAX_SPEAKER_CHARS or any(c in speaker for c in ":\r\n"):
        raise ValueError(f"speaker {speaker!r}: 1-100 characters, no colon or line ending")
    return f"\n\n{when.strftime('[%H:%M:%S %z]')} \n{speaker}: {content}"


class LogWriter:
    """Appends records to ``<log_dir>/YYYY-MM-DD.md`` (the record's local date).

    Args:
        log_dir: The folder of the daily logs (created when missing).
        assistant_name: The name in each new file's header (``<Name> Log — <date>``).
    """

    def __init__(self, log_dir: Path, assistant_name: str) -> None:
        self.log_dir = log_dir
        self.assistant_name = assistant_name
        self._lock = threading.Lock()

    def append(self, when: datetime, speaker: str, content: str) -> Written:
        """Append one record (content already :func:`loggable`) and return where it went.

        Raises:
            ValueError: See :func:`render`.
            OSError: When the file cannot be written.
        """
        record = render(when, speaker, content).encode("utf-8")
        path = self.log_dir / f"{when.date().isoformat()}.md"
        with self._lock:
            self.log_dir.mkdir(parents=True, exist_ok=True)
            with path.open("ab") as log:
                if log.tell() == 0:
                    header = f"{self.assistant_name} Log — {when.date().isoformat()}"
                    log.write(header.encode("utf-8"))
                offset = log.tell() + 2  # the blank line before the stamp
                log.write(record)
        return Written(path, offset)
