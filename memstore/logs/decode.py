"""Each record segment of a daily log read as a record, or as the warning that leaves it out.

A segment is a record when its bytes are UTF-8, its stamp is valid, a speaker line follows
and its message holds some text; the first rule it breaks gives its one warning. Nothing
here raises: a bad record never stops the rest of the file.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from datetime import date

from memstore.logs.records import LogWarning, RecordSpan, Warnings
from memstore.logs.segments import Line, Segment
from memstore.logs.syntax import quote, read_speaker, read_stamp

_UTF8_BLOCK = 64 * 1024  # bytes decoded at once when checking that a record is UTF-8


def read_segments(
    segments: Iterable[Segment], data: bytes | bytearray, day: date, found: Warnings
) -> Iterator[RecordSpan]:
    """The records among segments, in order.

    Args:
        segments: The body's record segments, in file order.
        data: The raw file the segments' offsets refer to.
        day: The local date of the file.
        found: Where the warning of each segment that is not a record is added.

    Returns:
        Each valid record, located in ``data`` (its content not decoded).
    """
    for segment in segments:
        record = read_record(segment, data, day)
        if isinstance(record, LogWarning):
            found.add(record)
        else:
            yield record


def read_record(segment: Segment, data: bytes | bytearray, day: date) -> RecordSpan | LogWarning:
    """One segment read as a record.

    Args:
        segment: The record boundary line and what follows it, up to the next one.
        data: The raw file the segment's offsets refer to.
        day: The local date of the file.

    Returns:
        The record, or the warning saying why the segment is not one (``invalid_utf8``,
        ``malformed_stamp``, ``time_out_of_range``, ``malformed_speaker``,
        ``empty_content``).
    """
    stamp = segment.stamp
    bad = first_invalid_utf8(data, stamp.byte, segment.end)
    if bad is not None:
        return _invalid_utf8(stamp.byte, bad)
    created_at = read_stamp(stamp.text, stamp.byte, day)
    if isinstance(created_at, LogWarning):
        return created_at
    line = segment.speaker
    if line is None:
        message = "The file ends right after this stamp, before its speaker line 'Name: text'."
        return LogWarning("malformed_speaker", stamp.end, message)
    speaker = read_speaker(line.text, line.byte)
    if isinstance(speaker, LogWarning):
        return speaker
    name = speaker["name"]
    if not speaker["text"].strip() and not segment.has_text:
        return _empty_content(name, stamp.byte)
    text_start = line.byte + len(f"{name}: ".encode())
    return RecordSpan(stamp.byte, name, created_at, text_start, segment.end)


def first_invalid_utf8(data: bytes | bytearray, start: int, end: int) -> int | None:
    """The offset of the first byte in ``data[start:end]`` that is not valid UTF-8.

    The bytes are decoded a block of whole lines at a time, so that the text of a large
    record is never held at once; a ``\\n`` byte is never part of a multi-byte sequence, so
    cutting after one moves no error.

    Args:
        data: The raw file.
        start: Offset in bytes where the check begins.
        end: Offset in bytes just past where it ends.

    Returns:
        The offset in bytes of the first invalid byte, or None when all are valid.
    """
    view = memoryview(data)
    while start < end:
        stop = min(data.find(b"\n", min(start + _UTF8_BLOCK, end)) + 1 or end, end)
        try:
            str(view[start:stop], "utf-8")
        except UnicodeDecodeError as error:
            return start + error.start
        start = stop
    return None


def in_file_order(stray: Line | None, records: Warnings) -> Warnings:
    """The warnings of the body in file order: an ``unexpected_text`` one for the first
    non-blank line between the header and the first record boundary, if there is one (the
    rest of that text goes unreported), then those of the records.

    Args:
        stray: That first non-blank line, or None.
        records: The warnings of the record segments, in file order.
    """
    found = Warnings()
    if stray is not None:
        message = (
            f"Text {quote(stray.text)} between the header and the first record belongs to no"
            " record and is not imported."
        )
        found.add(LogWarning("unexpected_text", stray.byte, message))
    found.extend(records)
    return found


def _invalid_utf8(record: int, bad: int) -> LogWarning:
    """The warning for the record at byte ``record`` holding a non-UTF-8 byte at ``bad``."""
    message = (
        f"The record at byte {record} holds bytes that are not UTF-8 from byte"
        f" {bad} (a write cut short?), so it is not imported; the rest of the file is."
    )
    return LogWarning("invalid_utf8", bad, message)


def _empty_content(name: str, record: int) -> LogWarning:
    """The warning for the record of ``name`` at byte ``record`` whose message is blank."""
    message = (
        f"The message of {name!r} at byte {record} is empty or only"
        " white space, so it is not imported."
    )
    return LogWarning("empty_content", record, message)
