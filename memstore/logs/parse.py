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

It never guesses. A problem with the whole file (its name, its header, its encoding) raises
:class:`LogFormatError`; any part of the body it cannot read as a record becomes a
:class:`LogWarning` and is left out. Which records are sealed is the importer's decision (the
last one may still be being written); :attr:`ParsedLog.tail_start` and
:attr:`ParsedLog.open_fence` give it what it needs.
"""

from __future__ import annotations

import contextlib
import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta, timezone

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
        records: The valid records in file order (records with empty content are left out).
        tail_start: Offset in bytes of the ``[`` that starts the last record boundary of the
            file, valid or not; None when the file has no record boundary. The text from here
            to the end may still be being written.
        open_fence: True when the file ends inside a fenced code block that was never closed.
        warnings: What was left out of the body, in file order.
    """

    day: date
    assistant_name: str
    records: tuple[LogRecord, ...]
    tail_start: int | None
    open_fence: bool
    warnings: tuple[LogWarning, ...]


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
        The header's assistant name, the valid records, the warnings, and where the last
        (possibly unfinished) record boundary starts.

    Raises:
        LogFormatError: The file name is not a real date followed by ``.md``, the data is not
            UTF-8, or the first line is not the header ``<Name> Log — <date of the file>``.
    """
    day = _day_from_file_name(file_name)
    _check_utf8(data)
    header, *body = _split_lines(data)
    assistant_name = _read_header(header, day)
    segmenter = _Segmenter()
    for line in body:
        segmenter.feed(line)
    records, warnings = _read_segments(segmenter.segments, day)
    return ParsedLog(
        day=day,
        assistant_name=assistant_name,
        records=tuple(records),
        tail_start=segmenter.segments[-1][0].byte if segmenter.segments else None,
        open_fence=segmenter.open_fence,
        warnings=(*_preamble_warnings(segmenter.preamble), *warnings),
    )


@dataclass(frozen=True)
class _Line:
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
    """Raise LogFormatError at the first byte that is not valid UTF-8."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise LogFormatError(
            f"Invalid UTF-8 at byte {error.start}: a log must be UTF-8 text (a BOM is allowed).",
            byte=error.start,
        ) from None


def _split_lines(data: bytes) -> list[_Line]:
    """Split valid UTF-8 bytes into lines at ``\\n`` (dropping a ``\\r`` before it), after a BOM."""
    lines = []
    start = len(_BOM) if data.startswith(_BOM) else 0
    while (newline := data.find(b"\n", start)) >= 0:
        text = data[start:newline].removesuffix(b"\r").decode("utf-8")
        lines.append(_Line(start, newline + 1, text))
        start = newline + 1
    lines.append(_Line(start, len(data), data[start:].decode("utf-8")))
    return lines


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
    with ``[`` and two digits and a colon (a valid stamp or a malformed one).
    """

    def __init__(self) -> None:
        self.preamble: list[_Line] = []
        self.segments: list[_Segment] = []
        self._fence = FenceTracker()
        self._after_blank = False

    @property
    def open_fence(self) -> bool:
        """Whether the lines fed so far end inside fenced code."""
        return self._fence.is_open

    def feed(self, line: _Line) -> None:
        """Add the next body line, starting a new segment when it is a record boundary."""
        if self._after_blank and not self._fence.is_open and starts_record(line.text):
            self.segments.append([line])
        else:
            self._fence.feed(self._fence_text(line))
            (self.segments[-1] if self.segments else self.preamble).append(line)
        self._after_blank = _is_blank(line.text)

    def _fence_text(self, line: _Line) -> str:
        """The part of a line that counts for fences: on a speaker line, the text after the name."""
        if self.segments and len(self.segments[-1]) == 1:
            speaker = _SPEAKER.fullmatch(line.text)
            if speaker is not None:
                return speaker["text"]
        return line.text


def _preamble_warnings(preamble: list[_Line]) -> list[LogWarning]:
    """Report the first non-blank line between the header and the first record boundary."""
    for line in preamble:
        if not _is_blank(line.text):
            message = (
                f"Text {_quote(line.text)} between the header and the first record belongs"
                " to no record and is not imported."
            )
            return [LogWarning("unexpected_text", line.byte, message)]
    return []


def _read_segments(segments: list[_Segment], day: date) -> tuple[list[LogRecord], list[LogWarning]]:
    """Read every segment as a record, collecting a warning for each one that is not."""
    records: list[LogRecord] = []
    warnings: list[LogWarning] = []
    for segment in segments:
        try:
            records.append(_read_record(segment, day))
        except _Rejected as rejected:
            warnings.append(rejected.warning)
    return records, warnings


def _read_record(segment: _Segment, day: date) -> LogRecord:
    """Read one segment as a record, or raise _Rejected with the reason."""
    stamp_line = segment[0]
    created_at = _read_stamp(stamp_line, day)
    speaker = _read_speaker(segment)
    lines = [speaker["text"], *(line.text for line in segment[2:])]
    content = "\n".join(lines).rstrip("\n")
    if not content.strip():
        message = (
            f"The message of {speaker['name']!r} at byte {stamp_line.byte} is empty or only"
            " white space, so it is not imported."
        )
        raise _Rejected(LogWarning("empty_content", stamp_line.byte, message))
    return LogRecord(stamp_line.byte, speaker["name"], created_at, content)


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
