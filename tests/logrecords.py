"""Parsed daily logs seen as whole records, for the tests to compare: the parser itself keeps
records as byte spans and decodes a content only when the importer stores it."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from memstore.logs.parse import ParsedLog
from memstore.logs.records import LogWarning, RecordSpan


@dataclass(frozen=True)
class LogRecord:
    """One message read from a log.

    Attributes:
        byte: Offset in bytes, in the raw file, of the ``[`` that starts the record's stamp.
        speaker: The name exactly as written before ``": "``.
        created_at: Timezone-aware time in UTC.
        content: As :meth:`RecordSpan.content` decodes it.
    """

    byte: int
    speaker: str
    created_at: datetime
    content: str


def record_of(span: RecordSpan, data: bytes | bytearray) -> LogRecord:
    """The record ``span`` locates, its content decoded from the file's bytes."""
    return LogRecord(span.byte, span.speaker, span.created_at, span.content(data))


def records_of(log: ParsedLog) -> tuple[LogRecord, ...]:
    """The valid records of ``log`` in file order, their contents decoded."""
    return tuple(record_of(span, log.data) for span in log.spans)


def warnings_of(log: ParsedLog) -> tuple[LogWarning, ...]:
    """The listed warnings of ``log``, with one ``more_warnings`` entry counting any others."""
    return tuple(log.found.shown())
