"""Read one daily Markdown log into records, without touching a database.

The format is pinned in LOGFORMAT.md; in short::

    Morgan Log — 2026-10-05
    (blank line)
    [09:15:02 +0200]
    Diego: first line of the message
    more lines of the message

The parser works on the raw bytes so that every offset it reports is exact: a leading BOM and
both bytes of a CRLF count. Only ``\\n``, optionally preceded by ``\\r``, ends a line; U+2028,
form feed, vertical tab, U+0085 and a lone ``\\r`` are ordinary text.

Records are kept as :class:`RecordSpan` offsets into the bytes, and their content is decoded
only when asked for, so that a large log's text is not held twice (bytes and decoded) while
it is imported.

It never guesses. A problem with the whole file (its name, its header, its encoding) raises
:class:`LogFormatError`; any part of the body it cannot read as a record becomes a
:class:`LogWarning` and is left out. Which records are sealed is the importer's decision (the
last one may still be being written); :attr:`ParsedLog.tail_start` and
:attr:`ParsedLog.open_fence` give it what it needs.
"""

from __future__ import annotations

import contextlib
import functools
import re
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta, timezone
from typing import NamedTuple

_BOM = b"\xef\xbb\xbf"
_DATE = r"[0-9]{4}-[0-9]{2}-[0-9]{2}"
_FILE_NAME = re.compile(rf"(?P<day>{_DATE})\.md")
_HEADER = re.compile(rf"(?:# )?(?P<name>.+) Log \u2014 (?P<day>{_DATE})")
_STAMP = re.compile(
    r"\[(?P<hour>[0-9]{2}):(?P<minute>[0-9]{2}):(?P<second>[0-9]{2})"
    r" (?P<sign>[+-])(?P<offset_hours>[0-9]{2})(?P<offset_minutes>[0-9]{2})\][ \t]*"
)
_BOUNDARY = re.compile(r"\[[0-9]{2}:")
_SPEAKER = re.compile(r"(?P<name>[^:]{1,100}): (?P<text>.*)")
_FENCE = re.compile(r" {0,3}(?P<marker>`{3,}|~{3,})(?P<rest>.*)")
_MAX_OFFSET_HOURS = 14
_QUOTE_CHARS = 40
_UTF8_BLOCK = 64 * 1024  # bytes decoded at once when checking that a file is UTF-8


@dataclass(frozen=True)
class LogRecord:
    """One message read from a log.

    Attributes:
        byte: Offset in bytes, in the raw file, of the ``[`` that starts the record's stamp
            (counting a BOM and both bytes of each CRLF). It is the record's identity.
        speaker: The name exactly as written before ``": "``; mapping it to a role is the
            importer's job.
        created_at: Timezone-aware time in UTC: the file's date with the stamp's time and offset.
        content: The text after ``"Name: "`` plus the continuation lines, with line endings
            normalised to ``\\n`` and trailing line endings removed. Never only white space.
    """

    byte: int
    speaker: str
    created_at: datetime
    content: str


@dataclass(frozen=True, slots=True)
class RecordSpan:
    """Where a valid record lies in the raw file: a :class:`LogRecord` whose content is left
    in the bytes until :meth:`content` decodes it.

    Attributes:
        byte: As :attr:`LogRecord.byte`.
        speaker: As :attr:`LogRecord.speaker`.
        created_at: As :attr:`LogRecord.created_at`.
        text_start: Offset in bytes of the text after ``"Name: "``.
        end: Offset in bytes just past the record's last line (the next record boundary, or
            the end of the file).
    """

    byte: int
    speaker: str
    created_at: datetime
    text_start: int
    end: int

    def content(self, data: bytes) -> str:
        """The record's content (as :attr:`LogRecord.content`), decoded from the file's bytes.

        Each ``\\n`` byte ends a line and drops the one ``\\r`` before it, so replacing each
        ``\\r\\n`` gives the lines joined by ``\\n``.
        """
        text = data[self.text_start : self.end].decode("utf-8")
        return text.replace("\r\n", "\n").rstrip("\n")

    def record(self, data: bytes) -> LogRecord:
        """The record with its content decoded from the file's bytes."""
        return LogRecord(self.byte, self.speaker, self.created_at, self.content(data))


@dataclass(frozen=True)
class LogWarning:
    """A part of a log body that is not imported, and why.

    Attributes:
        kind: Short snake_case category: ``unexpected_text``, ``malformed_stamp``,
            ``time_out_of_range``, ``malformed_speaker`` or ``empty_content``.
        byte: Offset in bytes, in the raw file, where the problem starts.
        message: One sentence for a person: what is wrong and what happens to the text.
    """

    kind: str
    byte: int
    message: str


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
        warnings: What was left out of the body, in file order.
        data: The raw file the offsets refer to.
    """

    day: date
    assistant_name: str
    spans: tuple[RecordSpan, ...]
    tail_start: int | None
    open_fence: bool
    warnings: tuple[LogWarning, ...]
    data: bytes = field(repr=False)

    @functools.cached_property
    def records(self) -> tuple[LogRecord, ...]:
        """The valid records in file order, their content decoded on first use."""
        return tuple(span.record(self.data) for span in self.spans)


class LogFormatError(ValueError):
    """The file as a whole is not a daily log: bad file name, bad header or invalid UTF-8.

    The message says what is wrong, where (a byte offset when one applies) and what is allowed.

    Attributes:
        byte: Offset in bytes of the problem in the raw file, or None for a bad file name.
    """

    def __init__(self, message: str, *, byte: int | None = None) -> None:
        super().__init__(message)
        self.byte = byte


def parse_log(data: bytes, file_name: str) -> ParsedLog:
    """Parse the raw bytes of one daily log.

    Args:
        data: The whole file, as read from disk.
        file_name: The file's base name, ``YYYY-MM-DD.md``; it gives the date of every record.

    Returns:
        The header's assistant name, the valid records (located; decoded on first use of
        :attr:`ParsedLog.records`), the warnings, and where the last (possibly unfinished)
        record boundary starts.

    Raises:
        LogFormatError: The file name is not a real date followed by ``.md``, the data is not
            UTF-8, or the first line is not the header ``<Name> Log — <date of the file>``.
    """
    day = _day_from_file_name(file_name)
    _check_utf8(data)
    lines = _lines(data)
    assistant_name = _read_header(next(lines), day)
    segmenter = _Segmenter()
    warnings: list[LogWarning] = []
    spans = tuple(_read_segments(segmenter.segments(lines), day, warnings))
    return ParsedLog(
        day=day,
        assistant_name=assistant_name,
        spans=spans,
        tail_start=segmenter.tail_start,
        open_fence=segmenter.open_fence,
        warnings=(*_preamble_warnings(segmenter.stray), *warnings),
        data=data,
    )


class _Line(NamedTuple):
    """One line of the raw file: where it starts and ends in bytes, and its text."""

    byte: int
    end: int  # offset just past the line ending (or the end of the file)
    text: str  # decoded, without the line ending


_Segment = list[_Line]  # a record boundary line and every line up to the next boundary


class _Rejected(Exception):
    """A segment that is not a record; carries the warning to report instead."""

    def __init__(self, warning: LogWarning) -> None:
        super().__init__(warning.message)
        self.warning = warning


def _day_from_file_name(file_name: str) -> date:
    """Return the date a log file name stands for, or raise LogFormatError."""
    match = _FILE_NAME.fullmatch(file_name)
    if match is not None:
        with contextlib.suppress(ValueError):
            return date.fromisoformat(match["day"])
    raise LogFormatError(
        f"File name {file_name!r} is not a daily log name: it must be YYYY-MM-DD.md with a real"
        " calendar date, such as 2026-10-05.md."
    )


def _check_utf8(data: bytes) -> None:
    """Raise LogFormatError at the first byte that is not valid UTF-8.

    The bytes are decoded a block of whole lines at a time, so that the text of the whole
    file (four bytes a character if one character needs it) is never held at once. A ``\\n``
    byte is never part of a multi-byte sequence, so cutting after one moves no error.
    """
    view = memoryview(data)
    start = 0
    while start < len(data):
        end = data.find(b"\n", start + _UTF8_BLOCK) + 1 or len(data)
        try:
            str(view[start:end], "utf-8")
        except UnicodeDecodeError as error:
            raise LogFormatError(
                f"Invalid UTF-8 at byte {start + error.start}: a log must be UTF-8 text (a BOM"
                " is allowed).",
                byte=start + error.start,
            ) from None
        start = end


def _lines(data: bytes) -> Iterator[_Line]:
    """The lines of valid UTF-8 bytes, one at a time, split at ``\\n`` (dropping a ``\\r``
    before it), after a BOM."""
    start = len(_BOM) if data.startswith(_BOM) else 0
    while (newline := data.find(b"\n", start)) >= 0:
        end = newline + 1  # also the next line's start: one int for both
        yield _Line(start, end, data[start:newline].removesuffix(b"\r").decode("utf-8"))
        start = end
    yield _Line(start, len(data), data[start:].decode("utf-8"))


def _read_header(line: _Line, day: date) -> str:
    """Return the assistant name of a header line, or raise LogFormatError."""
    match = _HEADER.fullmatch(line.text)
    if match is None or not match["name"].strip():
        raise LogFormatError(
            f"The first line (byte {line.byte}) is {_quote(line.text)}; it must be the header"
            f" '<Name> Log \u2014 {day}' (an em dash, optionally after '# ').",
            byte=line.byte,
        )
    if match["day"] != day.isoformat():
        raise LogFormatError(
            f"The header (byte {line.byte}) is dated {match['day']} but the file name says"
            f" {day}; they must be the same date.",
            byte=line.byte,
        )
    return match["name"]


def _quote(text: str) -> str:
    """Quote a line for a message, shortened to its first characters."""
    if len(text) > _QUOTE_CHARS:
        text = text[:_QUOTE_CHARS] + "\u2026"
    return repr(text)


def starts_record(text: str) -> bool:
    """Tell whether a line after a blank line, outside fenced code, would start a record."""
    return _BOUNDARY.match(text) is not None


def _is_blank(text: str) -> bool:
    """Tell whether a line (without its ending) is empty or only spaces and tabs."""
    return not text.strip(" \t")


class FenceTracker:
    """Follows CommonMark fenced code blocks (``` or ~~~) one line at a time."""

    def __init__(self) -> None:
        self._opening: str | None = None  # the run of backticks or tildes that opened the fence

    @property
    def is_open(self) -> bool:
        """Whether the lines fed so far leave a fence open."""
        return self._opening is not None

    @property
    def opening(self) -> str | None:
        """The run of backticks or tildes of the open fence, or None."""
        return self._opening

    def feed(self, text: str) -> None:
        """Update the state with the next line (the part of it that counts for fences)."""
        match = _FENCE.fullmatch(text)
        if match is None:
            return
        if self._opening is None:
            self._opening = match["marker"]
        elif _closes(self._opening, match["marker"], match["rest"]):
            self._opening = None


def _closes(opening: str, marker: str, rest: str) -> bool:
    """Tell whether a fence line closes the fence opened by ``opening``."""
    same_kind = marker[0] == opening[0] and len(marker) >= len(opening)
    return same_kind and _is_blank(rest)


class _Segmenter:
    """Splits the body into the text before the first record boundary and boundary segments.

    A record boundary is a line that follows a blank line, is outside fenced code and starts
    with ``[`` and two digits and a colon (a valid stamp or a malformed one). Segments are
    handed out one at a time, so only the lines of one segment are held at once.

    Attributes:
        stray: The first non-blank line before the first record boundary, or None.
        tail_start: Offset in bytes of the last record boundary read, or None.
    """

    def __init__(self) -> None:
        self.stray: _Line | None = None
        self.tail_start: int | None = None
        self._fence = FenceTracker()

    @property
    def open_fence(self) -> bool:
        """Whether the lines read so far end inside fenced code."""
        return self._fence.is_open

    def segments(self, body: Iterable[_Line]) -> Iterator[_Segment]:
        """Each segment of the body lines, once the line after it (or the end) is read."""
        segment: _Segment | None = None
        after_blank = False
        for line in body:
            if after_blank and not self._fence.is_open and starts_record(line.text):
                if segment is not None:
                    yield segment
                segment = [line]
                self.tail_start = line.byte
            else:
                self._fence.feed(_fence_text(segment, line))
                self._keep(segment, line)
            after_blank = _is_blank(line.text)
        if segment is not None:
            yield segment

    def _keep(self, segment: _Segment | None, line: _Line) -> None:
        """Add a line to the current segment, or note it when it is the first stray text."""
        if segment is not None:
            segment.append(line)
        elif self.stray is None and not _is_blank(line.text):
            self.stray = line


def _fence_text(segment: _Segment | None, line: _Line) -> str:
    """The part of a line that counts for fences: on a speaker line (the line after a
    segment's boundary), the text after the name."""
    if segment is not None and len(segment) == 1:
        speaker = _SPEAKER.fullmatch(line.text)
        if speaker is not None:
            return speaker["text"]
    return line.text


def _preamble_warnings(stray: _Line | None) -> list[LogWarning]:
    """Report the first non-blank line between the header and the first record boundary."""
    if stray is None:
        return []
    message = (
        f"Text {_quote(stray.text)} between the header and the first record belongs to no"
        " record and is not imported."
    )
    return [LogWarning("unexpected_text", stray.byte, message)]


def _read_segments(
    segments: Iterable[_Segment], day: date, warnings: list[LogWarning]
) -> Iterator[RecordSpan]:
    """Read each segment as a record, adding a warning to ``warnings`` for each one that is
    not."""
    for segment in segments:
        try:
            yield _read_record(segment, day)
        except _Rejected as rejected:
            warnings.append(rejected.warning)


def _read_record(segment: _Segment, day: date) -> RecordSpan:
    """Read one segment as a record, or raise _Rejected with the reason."""
    stamp_line = segment[0]
    created_at = _read_stamp(stamp_line, day)
    speaker = _read_speaker(segment)
    if not speaker["text"].strip() and not any(line.text.strip() for line in segment[2:]):
        message = (
            f"The message of {speaker['name']!r} at byte {stamp_line.byte} is empty or only"
            " white space, so it is not imported."
        )
        raise _Rejected(LogWarning("empty_content", stamp_line.byte, message))
    name = sys.intern(speaker["name"])  # one string per speaker, not one per record
    text_start = segment[1].byte + len(f"{name}: ".encode())
    return RecordSpan(stamp_line.byte, name, created_at, text_start, segment[-1].end)


def _read_stamp(line: _Line, day: date) -> datetime:
    """Return the UTC time of a stamp line, or raise _Rejected."""
    match = _STAMP.fullmatch(line.text)
    if match is None or not _stamp_in_range(match):
        message = (
            f"{_quote(line.text)} is not a stamp [HH:MM:SS \u00b1HHMM] (hours 00-23, minutes"
            " and seconds 00-59, offset up to 14 hours), so the text up to the next record is"
            " not imported."
        )
        raise _Rejected(LogWarning("malformed_stamp", line.byte, message))
    return _to_utc(day, match, line.byte)


def _stamp_in_range(match: re.Match[str]) -> bool:
    """Tell whether every field of a stamp is within its range."""
    return (
        int(match["hour"]) <= 23
        and int(match["minute"]) <= 59
        and int(match["second"]) <= 59
        and int(match["offset_hours"]) <= _MAX_OFFSET_HOURS
        and int(match["offset_minutes"]) <= 59
    )


def _to_utc(day: date, stamp: re.Match[str], byte: int) -> datetime:
    """Combine the file's date with a stamp's time and offset, converted to UTC."""
    offset = timedelta(hours=int(stamp["offset_hours"]), minutes=int(stamp["offset_minutes"]))
    zone = timezone(-offset if stamp["sign"] == "-" else offset)
    clock = time(int(stamp["hour"]), int(stamp["minute"]), int(stamp["second"]))
    try:
        return datetime.combine(day, clock, zone).astimezone(UTC)
    except OverflowError:
        message = (
            f"The stamp at byte {byte} falls outside the years 1 to 9999 once converted to UTC,"
            " so the record is not imported."
        )
        raise _Rejected(LogWarning("time_out_of_range", byte, message)) from None


def _read_speaker(segment: _Segment) -> re.Match[str]:
    """Return the match of the speaker line that follows a stamp, or raise _Rejected."""
    if len(segment) < 2:
        message = "The file ends right after this stamp, before its speaker line 'Name: text'."
        raise _Rejected(LogWarning("malformed_speaker", segment[0].end, message))
    line = segment[1]
    match = _SPEAKER.fullmatch(line.text)
    if match is None:
        message = (
            f"{_quote(line.text)} is not a speaker line 'Name: text' (a name of 1 to 100"
            " characters without a colon, then a colon and a space), so the record is not"
            " imported."
        )
        raise _Rejected(LogWarning("malformed_speaker", line.byte, message))
    return match
