"""Read one daily log into records, without touching a database.

The format is pinned in LOGFORMAT.md; in short::

    Morgan Log — 2026-10-05
    (blank line)
    [09:15:02 +0200]
    Diego: first line of the message
    more lines of the message

The parser works on the raw bytes so that every offset it reports is exact: a leading BOM and
both bytes of a CRLF count (:mod:`memstore.logs.segments` cuts the lines and the record
segments, :mod:`memstore.logs.syntax` reads the header and stamp lines,
:mod:`memstore.logs.decode` each record).

Records are kept as :class:`RecordSpan` offsets into the bytes, and their content is decoded
only when asked for, so that a large log's text is not held twice (bytes and decoded) while
it is imported.

It never guesses. A problem with the whole file (its name, its header, its encoding) raises
:class:`~memstore.errors.ImportRejected`; any part of the body it cannot read as a record
becomes a :class:`LogWarning` and is left out. Which records are sealed is the importer's
decision (the last one may still be being written); :attr:`ParsedLog.tail_start` and
:attr:`ParsedLog.open_fence` give it what it needs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date

from memstore.logs.decode import in_file_order, read_segments
from memstore.logs.records import RecordSpan, Spans, Warnings
from memstore.logs.segments import Segmenter, lines
from memstore.logs.syntax import day_from_file_name, read_header


@dataclass(frozen=True)
class ParsedLog:
    """Everything read from one daily log.

    Attributes:
        day: The local date of the log, from its file name.
        assistant_name: The name in the header line, as written.
        spans: The valid records in file order, their content not decoded yet (records with
            empty content are left out).
        tail_start: Offset in bytes of the ``[`` that starts the last record boundary of the
            file, valid or not; None when the file has no record boundary. The text from here
            to the end may still be being written.
        open_fence: True when the file ends inside a fenced code block that was never closed.
        fence_opening: The run of backticks or tildes that opened that block, or None.
        found: What was left out of the body, in file order: the first 100 warnings, then
            how many more of each kind (``found.shown()`` lists them).
        data: The raw file the offsets refer to.
    """

    day: date
    assistant_name: str
    spans: Sequence[RecordSpan]
    tail_start: int | None
    open_fence: bool
    fence_opening: str | None
    found: Warnings = field(repr=False)
    data: bytes | bytearray = field(repr=False)


def parse_log(data: bytes | bytearray, file_name: str) -> ParsedLog:
    """Parse the raw bytes of one daily log.

    A record holding bytes that are not UTF-8 (a write cut short inside a character, say) is
    reported with an ``invalid_utf8`` warning at the first such byte and left out; the rest
    of the file is read as usual.

    Args:
        data: The whole file, as read from disk.
        file_name: The file's base name, ``YYYY-MM-DD.md``; it gives the date of every record.

    Returns:
        The header's assistant name, the valid records (located, not decoded), the warnings,
        and where the last (possibly unfinished) record boundary starts.

    Raises:
        ImportRejected: The file name is not a real date followed by ``.md`` (``byte`` None),
            or the first line is not valid UTF-8 or not the header ``<Name> Log — <date of
            the file>`` (``byte`` says where).
    """
    day = day_from_file_name(file_name)
    body = lines(data)
    header = next(body)
    assistant_name = read_header(header.raw, header.byte, day)
    segmenter = Segmenter()
    records = Warnings()
    spans = Spans(data)
    for span in read_segments(segmenter.segments(body), data, day, records):
        spans.append(span)
    return ParsedLog(
        day=day,
        assistant_name=assistant_name,
        spans=spans,
        tail_start=segmenter.tail_start,
        open_fence=segmenter.open_fence,
        fence_opening=segmenter.fence_opening,
        found=in_file_order(segmenter.stray, records),
        data=data,
    )
