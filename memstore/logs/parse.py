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
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta, timezone
from typing import NamedTuple

from memstore.logs.records import LogRecord, LogWarning, RecordSpan, Spans, Warnings

__all__ = [
    "FenceTracker",
    "LogFormatError",
    "LogRecord",
    "LogWarning",
    "ParsedLog",
    "RecordSpan",
    "parse_log",
    "starts_record",
]

_BOM = b"\xef\xbb\xbf"
_DATE = r"[0-9]{4}-[0-9]{2}-[0-9]{2}"
_FILE_NAME = re.compile(rf"(?P<day>{_DATE})\.md")
_HEADER = re.compile(rf"(?:# )?(?P<name>.+) Log \u2014 (?P<day>{_DATE})")
_STAMP = re.compile(
    r"\[(?P<hour>[0-9]{2}):(?P<minute>[0-9]{2}):(?P<second>[0-9]{2})"
    r" (?P<sign>[+-])(?P<offset_hours>[0-9]{2})(?P<offset_minutes>[0-9]{2})\][ \t]*"
)
_BOUNDARY = re.compile(r"\[[0-9]{2}:")
_BOUNDARY_BYTES = re.compile(rb"\[[0-9]{2}:")
_SPEAKER = re.compile(r"(?P<name>[^:]{1,100}): (?P<text>.*)")
_FENCE = re.compile(r" {0,3}(?P<marker>`{3,}|~{3,})(?P<rest>.*)")
_MAX_OFFSET_HOURS = 14
_QUOTE_CHARS = 40
_UTF8_BLOCK = 64 * 1024  # bytes decoded at once when checking that a record is UTF-8
_FENCE_STARTS = (b"```", b"~~~")


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
        warnings: What was left out of the body, in file order: the first 100, then how many
            more of each kind (``Warnings``).
        data: The raw file the offsets refer to.
    """

    day: date
    assistant_name: str
    spans: Sequence[RecordSpan]
    tail_start: int | None
    open_fence: bool
    found: Warnings = field(repr=False)
    data: bytes | bytearray = field(repr=False)

    @property
    def warnings(self) -> tuple[LogWarning, ...]:
        """The listed warnings, with one ``more_warnings`` entry counting any others."""
        return tuple(self.found.shown())

    @functools.cached_property
    def records(self) -> tuple[LogRecord, ...]:
        """The valid records in file order, their content decoded on first use."""
        return tuple(span.record(self.data) for span in self.spans)


class LogFormatError(ValueError):
    """The file as a whole is not a daily log: a bad file name, or a header that is missing,
    wrong or not valid UTF-8.

    The message says what is wrong, where (a byte offset when one applies) and what is allowed.

    Attributes:
        byte: Offset in bytes of the problem in the raw file, or None for a bad file name.
    """

    def __init__(self, message: str, *, byte: int | None = None) -> None:
        super().__init__(message)
        self.byte = byte


def parse_log(data: bytes | bytearray, file_name: str) -> ParsedLog:
    """Parse the raw bytes of one daily log.

    A record holding bytes that are not UTF-8 (a write cut short inside a character, say) is
    reported with an ``invalid_utf8`` warning at the first such byte and left out; the rest
    of the file is read as usual.

    Args:
        data: The whole file, as read from disk.
        file_name: The file's base name, ``YYYY-MM-DD.md``; it gives the date of every record.

    Returns:
        The header's assistant name, the valid records (located; decoded on first use of
        :attr:`ParsedLog.records`), the warnings, and where the last (possibly unfinished)
        record boundary starts.

    Raises:
        LogFormatError: The file name is not a real date followed by ``.md``, or the first
            line is not valid UTF-8 or not the header ``<Name> Log — <date of the file>``.
    """
    day = _day_from_file_name(file_name)
    lines = _lines(data)
    assistant_name = _read_header(next(lines), day)
    segmenter = _Segmenter()
    found = Warnings()
    spans = Spans(data)
    for span in _read_segments(segmenter.segments(lines), data, day, found):
        spans.append(span)
    preamble = Warnings()
    for warning in _preamble_warnings(segmenter.stray):
        preamble.add(warning)
    preamble.extend(found)
    return ParsedLog(
        day=day,
        assistant_name=assistant_name,
        spans=spans,
        tail_start=segmenter.tail_start,
        open_fence=segmenter.open_fence,
        found=preamble,
        data=data,
    )


class _Line(NamedTuple):
    """One line of the raw file: where it starts and ends in bytes, and its bytes."""

    byte: int
    end: int  # offset just past the line ending (or the end of the file)
    raw: bytes | bytearray  # without the line ending

    @property
    def text(self) -> str:
        """The line decoded (bytes that are not UTF-8 as U+FFFD: such a record is rejected
        before its text is used, so this only serves messages and boundaries)."""
        return self.raw.decode("utf-8", "replace")


@dataclass(slots=True)
class _Segment:
    """A record boundary line and what the record needs of the lines up to the next one:
    the speaker line, whether any later line holds text, and where the segment ends. The
    continuation lines themselves are not kept, so a record of millions of lines costs no
    more than one of three."""

    stamp: _Line
    end: int
    speaker: _Line | None = None
    has_text: bool = False

    def add(self, line: _Line) -> None:
        """Take in the next line of the segment."""
        self.end = line.end
        if self.speaker is None:
            self.speaker = line
        elif not self.has_text and line.raw.strip() and line.text.strip():
            self.has_text = True


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


def _first_invalid_utf8(data: bytes | bytearray, start: int, end: int) -> int | None:
    """The offset of the first byte in ``data[start:end]`` that is not valid UTF-8, or None.

    The bytes are decoded a block of whole lines at a time, so that the text of a large
    record is never held at once; a ``\n`` byte is never part of a multi-byte sequence, so
    cutting after one moves no error.
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


def _lines(data: bytes | bytearray) -> Iterator[_Line]:
    """The lines of the bytes, one at a time, split at ``\n`` (dropping a ``\r`` before
    it), after a BOM."""
    start = len(_BOM) if data.startswith(_BOM) else 0
    while (newline := data.find(b"\n", start)) >= 0:
        end = newline + 1  # also the next line's start: one int for both
        yield _Line(start, end, data[start:newline].removesuffix(b"\r"))
        start = end
    yield _Line(start, len(data), data[start:])


def _read_header(line: _Line, day: date) -> str:
    """Return the assistant name of a header line, or raise LogFormatError."""
    try:
        text = line.raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise LogFormatError(
            f"Invalid UTF-8 at byte {line.byte + error.start} in the header: a log must be UTF-8"
            " text (a BOM is allowed).",
            byte=line.byte + error.start,
        ) from None
    match = _HEADER.fullmatch(text)
    if match is None or not match["name"].strip():
        raise LogFormatError(
            f"The first line (byte {line.byte}) is {_quote(text)}; it must be the header"
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


def _is_blank(raw: bytes | bytearray) -> bool:
    """Tell whether a line (without its ending) is empty or only spaces and tabs."""
    return not raw.strip(b" \t")


def _may_fence(raw: bytes | bytearray) -> bool:
    """Whether a line can open or close a fence: at most 3 spaces, then ``` or ~~~."""
    stripped = raw.lstrip(b" ")
    return len(raw) - len(stripped) <= 3 and stripped.startswith(_FENCE_STARTS)


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
    return same_kind and not rest.strip(" \t")


class _Segmenter:
    """Splits the body into the text before the first record boundary and boundary segments.

    A record boundary is a line that follows a blank line, is outside fenced code and starts
    with ``[`` and two digits and a colon (a valid stamp or a malformed one). Segments are
    handed out one at a time, and each keeps only what its record needs, so that memory does
    not grow with the number of lines.

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
        fence = self._fence
        for line in body:
            raw = line.raw
            if not raw and segment is not None and segment.speaker is not None:
                segment.end = line.end  # an empty line of a message: nothing else to note
                after_blank = True
                continue
            if after_blank and not fence.is_open and _BOUNDARY_BYTES.match(raw):
                if segment is not None:
                    yield segment
                segment = _Segment(line, line.end)
                self.tail_start = line.byte
            elif segment is None:
                if self.stray is None and not _is_blank(raw):
                    self.stray = line
                if _may_fence(raw):
                    fence.feed(line.text)
            else:
                speaker_line = segment.speaker is None
                segment.add(line)
                if speaker_line:
                    fence.feed(_speaker_text(line))
                elif _may_fence(raw):
                    fence.feed(line.text)
            after_blank = _is_blank(raw)
        if segment is not None:
            yield segment


def _speaker_text(line: _Line) -> str:
    """The part of a speaker line that counts for fences: the text after the name."""
    speaker = _SPEAKER.fullmatch(line.text)
    return line.text if speaker is None else speaker["text"]


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
    segments: Iterable[_Segment], data: bytes | bytearray, day: date, found: Warnings
) -> Iterator[RecordSpan]:
    """Read each segment as a record, adding a warning to ``found`` for each one that is
    not."""
    for segment in segments:
        try:
            yield _read_record(segment, data, day)
        except _Rejected as rejected:
            found.add(rejected.warning)


def _read_record(segment: _Segment, data: bytes | bytearray, day: date) -> RecordSpan:
    """Read one segment as a record, or raise _Rejected with the reason."""
    stamp_line = segment.stamp
    bad = _first_invalid_utf8(data, stamp_line.byte, segment.end)
    if bad is not None:
        message = (
            f"The record at byte {stamp_line.byte} holds bytes that are not UTF-8 from byte"
            f" {bad} (a write cut short?), so it is not imported; the rest of the file is."
        )
        raise _Rejected(LogWarning("invalid_utf8", bad, message))
    created_at = _read_stamp(stamp_line, day)
    speaker = _read_speaker(segment)
    if not speaker["text"].strip() and not segment.has_text:
        message = (
            f"The message of {speaker['name']!r} at byte {stamp_line.byte} is empty or only"
            " white space, so it is not imported."
        )
        raise _Rejected(LogWarning("empty_content", stamp_line.byte, message))
    assert segment.speaker is not None  # _read_speaker checked it
    name = speaker["name"]
    text_start = segment.speaker.byte + len(f"{name}: ".encode())
    return RecordSpan(stamp_line.byte, name, created_at, text_start, segment.end)


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
    line = segment.speaker
    if line is None:
        message = "The file ends right after this stamp, before its speaker line 'Name: text'."
        raise _Rejected(LogWarning("malformed_speaker", segment.stamp.end, message))
    match = _SPEAKER.fullmatch(line.text)
    if match is None:
        message = (
            f"{_quote(line.text)} is not a speaker line 'Name: text' (a name of 1 to 100"
            " characters without a colon, then a colon and a space), so the record is not"
            " imported."
        )
        raise _Rejected(LogWarning("malformed_speaker", line.byte, message))
    return match
