"""The lines of a daily log that have a fixed shape (LOGFORMAT.md): its file name and header,
which the whole file stands or falls by, and each record's stamp and speaker line, which
only their record does.

A file-level problem raises :class:`~memstore.errors.ImportRejected`; a record-level one is
returned as the :class:`~memstore.logs.records.LogWarning` to report instead.
"""

from __future__ import annotations

import contextlib
import re
from datetime import UTC, date, datetime, time, timedelta, timezone

from memstore.errors import ImportRejected
from memstore.logs.records import LogWarning
from memstore.times import STORED_BEFORE, STORED_FROM

MAX_LOG_BYTES = 16 * 1024 * 1024
"""The largest daily log an import reads (LOGFORMAT.md, Limits)."""

_DATE = r"[0-9]{4}-[0-9]{2}-[0-9]{2}"
_FILE_NAME = re.compile(rf"(?P<day>{_DATE})\.md")
_HEADER = re.compile(rf"(?:# )?(?P<name>.+) Log \u2014 (?P<day>{_DATE})")
_STAMP = re.compile(
    r"\[(?P<hour>[0-9]{2}):(?P<minute>[0-9]{2}):(?P<second>[0-9]{2})"
    r" (?P<sign>[+-])(?P<offset_hours>[0-9]{2})(?P<offset_minutes>[0-9]{2})\][ \t]*"
)
_RECORD_STAMP = re.compile(
    rb"\n[ \t]*\r?\n\[[0-9]{2}:[0-9]{2}:[0-9]{2} [+-][0-9]{4}\][ \t]*\r?\n"
)  # a blank line may hold spaces and tabs, as the parser takes it (found by review)
_SPEAKER = re.compile(r"(?P<name>[^:]{1,100}): (?P<text>.*)")
_MAX_OFFSET_HOURS = 14
_QUOTE_CHARS = 40


def day_from_file_name(file_name: str) -> date:
    """The date a log file name stands for.

    Args:
        file_name: The file's base name, such as ``2026-10-05.md``.

    Raises:
        ImportRejected: If the name is not a real calendar date followed by ``.md``.
    """
    match = _FILE_NAME.fullmatch(file_name)
    if match is not None:
        with contextlib.suppress(ValueError):
            return date.fromisoformat(match["day"])
    raise ImportRejected(
        f"File name {file_name!r} is not a daily log name: it must be YYYY-MM-DD.md with a real"
        " calendar date, such as 2026-10-05.md."
    )


def read_header(raw: bytes | bytearray, byte: int, day: date) -> str:
    """The assistant name of a header line ``<Name> Log — <date>``.

    Args:
        raw: The first line, without its line ending (and after a BOM).
        byte: Offset in bytes of the line in the raw file.
        day: The date of the file name, which the header must repeat.

    Raises:
        ImportRejected: If the line is not UTF-8, not a header, or dated another day; its
            ``byte`` is where the problem is.
    """
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        bad = byte + error.start
        raise ImportRejected(
            f"Invalid UTF-8 at byte {bad} in the header: a log must be UTF-8 text (a BOM is"
            " allowed).",
            byte=bad,
        ) from None
    match = _HEADER.fullmatch(text)
    if match is None or not match["name"].strip():
        raise ImportRejected(
            f"The first line (byte {byte}) is {quote(text)}; it must be the header"
            f" '<Name> Log \u2014 {day}' (an em dash, optionally after '# ').",
            byte=byte,
        )
    if match["day"] != day.isoformat():
        raise ImportRejected(
            f"The header (byte {byte}) is dated {match['day']} but the file name says"
            f" {day}; they must be the same date.",
            byte=byte,
        )
    return match["name"]


def quote(text: str) -> str:
    """A line quoted for a message, cut to its first 40 characters."""
    if len(text) > _QUOTE_CHARS:
        text = text[:_QUOTE_CHARS] + "\u2026"
    return repr(text)


def read_stamp(text: str, byte: int, day: date) -> datetime | LogWarning:
    """The UTC time of a stamp line ``[HH:MM:SS ±HHMM]`` on the file's date.

    Args:
        text: The line, without its line ending.
        byte: Offset in bytes of the line (its ``[``) in the raw file.
        day: The local date of the file.

    Returns:
        The aware time in UTC, or the ``malformed_stamp`` or ``time_out_of_range`` warning
        that leaves the record out.
    """
    match = _STAMP.fullmatch(text)
    if match is None or not _stamp_in_range(match):
        message = (
            f"{quote(text)} is not a stamp [HH:MM:SS \u00b1HHMM] (hours 00-23, minutes"
            " and seconds 00-59, offset up to 14 hours), so the text up to the next record is"
            " not imported."
        )
        return LogWarning("malformed_stamp", byte, message)
    return _to_utc(day, match, byte)


def _stamp_in_range(match: re.Match[str]) -> bool:
    """Tell whether every field of a stamp is within its range."""
    return (
        int(match["hour"]) <= 23
        and int(match["minute"]) <= 59
        and int(match["second"]) <= 59
        and int(match["offset_hours"]) <= _MAX_OFFSET_HOURS
        and int(match["offset_minutes"]) <= 59
    )


def _to_utc(day: date, stamp: re.Match[str], byte: int) -> datetime | LogWarning:
    """The file's date with a stamp's time and offset, converted to UTC, or the
    ``time_out_of_range`` warning when that is not a time memstore stores (see
    :data:`memstore.times.STORED_FROM`)."""
    offset = timedelta(hours=int(stamp["offset_hours"]), minutes=int(stamp["offset_minutes"]))
    zone = timezone(-offset if stamp["sign"] == "-" else offset)
    clock = time(int(stamp["hour"]), int(stamp["minute"]), int(stamp["second"]))
    try:
        moment = datetime.combine(day, clock, zone).astimezone(UTC)
    except OverflowError:
        moment = None
    if moment is None or not STORED_FROM <= moment < STORED_BEFORE:
        message = (
            f"The stamp at byte {byte} falls within a day of the calendar's ends once "
            "converted to UTC (memstore stores times from 0001-01-02 to 9999-12-30 UTC, "
            "which every time zone can show), so the record is not imported."
        )
        return LogWarning("time_out_of_range", byte, message)
    return moment


def read_speaker(text: str, byte: int) -> re.Match[str] | LogWarning:
    """The speaker line ``Name: text`` that follows a stamp.

    Args:
        text: The line, without its line ending.
        byte: Offset in bytes of the line in the raw file.

    Returns:
        The match, with the groups ``name`` (1 to 100 characters, no colon) and ``text``,
        or the ``malformed_speaker`` warning that leaves the record out.
    """
    match = _SPEAKER.fullmatch(text)
    if match is None:
        message = (
            f"{quote(text)} is not a speaker line 'Name: text' (a name of 1 to 100"
            " characters without a colon, then a colon and a space), so the record is not"
            " imported."
        )
        return LogWarning("malformed_speaker", byte, message)
    return match


def speaker_text(text: str) -> str:
    """The part of a speaker line that counts for fences: the text after ``Name: `` (the
    whole line when it is not a speaker line)."""
    speaker = _SPEAKER.fullmatch(text)
    return text if speaker is None else speaker["text"]


def record_count(data: bytes) -> int:
    """About how many records the daily log ``data`` holds: its stamp lines after a blank
    line, never fewer than it holds (one pasted inside fenced code, or out of range, counts
    too)."""
    return len(_RECORD_STAMP.findall(data))
