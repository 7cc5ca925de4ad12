"""Times given to memstore: parsed from ISO 8601, required to be aware, converted to UTC;
and local calendar days: a day's bounds as UTC instants in a zone (named in
:mod:`memstore.zones`).

Times are UTC, in the years 1 to 9999 that Python's datetime holds. A time near the
calendar's edges can leave them once converted (``0001-01-01T00:00:00+05:00`` is in year 0
in UTC), which Python reports as an OverflowError: here it is an InvalidInput naming the
argument, like any other bad time. A message's or session's time keeps a day from both
ends (:func:`storable`), so that every zone's local time holds it; views show any other in
UTC (:func:`local_time`).
"""

from __future__ import annotations

import os
import re
from datetime import UTC, date, datetime, time, timedelta, tzinfo

from memstore.errors import InvalidInput, StoreDamaged
from memstore.machine_zone import POSIX_RULES, machine_zone

EXAMPLE = "2026-10-05T09:00:00+02:00"
DAY_FORMAT = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")  # ASCII digits only (found by review)
STORED_FROM = datetime(1, 1, 2, tzinfo=UTC)
STORED_BEFORE = datetime(9999, 12, 31, tzinfo=UTC)
"""A message's and a session's times lie in ``[STORED_FROM, STORED_BEFORE)``: a day from the
calendar's ends, so that any zone (whose offsets stay under a day) shows them as local time.
A message at 9999-12-31T23:00Z failed every later diary and text view in Tokyo (found by
review)."""


READ_BEFORE = datetime(9999, 12, 31, 23, 59, 59, 999500, tzinfo=UTC)
"""SQLite's julianday(), with which ``check`` reads every stored time, reads none from here
on: it rounds to the millisecond, into the year 10000."""


def readable(value: datetime, argument: str) -> datetime:
    """The UTC ``value``, when SQLite reads it as a time (see :data:`READ_BEFORE`): a time no
    zone need show, an expiry (9999-12-31 stands for never).

    Raises:
        InvalidInput: If it is at the calendar's last half millisecond (found by review:
            ``9999-12-31T23:59:59.999999`` was stored, and ``check`` then called the store
            damaged).
    """
    if value >= READ_BEFORE:
        raise InvalidInput(
            argument,
            f"{value.isoformat()} is in the calendar's last half millisecond, which SQLite "
            "reads as no time; give 9999-12-31T23:59:59.999Z or earlier.",
        )
    return value


def zone_offset(value: datetime, argument: str) -> timedelta | None:
    """The UTC offset of ``value`` (None when naive).

    Raises:
        InvalidInput: When its time zone gives no valid offset: a tzinfo of the caller's whose
            ``utcoffset`` raises or returns a day or more, or no timedelta (found by review:
            its ValueError or TypeError came out of every method taking a time).
    """
    try:
        return value.utcoffset()
    except Exception as error:  # the caller's own tzinfo may raise anything
        written = value.replace(tzinfo=None).isoformat()
        why = f"the time zone of {written} gives no valid UTC offset ({error})"
        raise unusable_time(argument, why) from error


def in_utc(value: datetime, argument: str) -> datetime:
    """``value`` converted to UTC (a naive ``value`` is taken as the machine's local time).

    Raises:
        InvalidInput: If its time zone gives no valid offset (:func:`zone_offset`), the
            converted time falls outside the years 1 to 9999, or ``value`` is naive and the
            machine's zone cannot be used (:func:`local_zone`; found by review:
            ``TZ=America/New_Yrok`` read a naive expiry as UTC and said nothing).
    """
    if zone_offset(value, argument) is None:
        place = local_zone(argument)
        value = value if place is None else value.replace(tzinfo=place)
    try:
        return value.astimezone(UTC)
    except (OverflowError, ValueError) as error:
        why = f"{value.isoformat()} is outside the years 1 to 9999 once converted to UTC"
        raise unusable_time(argument, why) from error


def local_zone(argument: str) -> tzinfo | None:
    """The machine's zone, in which a naive time given as ``argument`` is read; None when
    ``TZ`` holds POSIX daylight saving rules, which only the C library reads (found by
    review: ``TZ=CET-1CEST,M3.5.0,M10.5.0/3`` had been read right, then was refused).

    Raises:
        InvalidInput: Naming ``argument``, when the machine's zone cannot be used (a ``TZ``
            naming no zone); the reason says to add an offset to the time.
    """
    try:
        return machine_zone()
    except InvalidInput as error:
        if POSIX_RULES.fullmatch(os.environ.get("TZ", "").removeprefix(":")):
            return None
        reason = re.sub(r"[,;] (?:or )?give one\.$", "", error.reason)
        why = f"it has no time zone, and {reason}, or give it an offset, as in {EXAMPLE}."
        raise InvalidInput(argument, why) from error


def unusable_time(argument: str, why: str) -> InvalidInput:
    """The error of a time given as ``argument`` that memstore cannot use: ``why``, and an
    example of one it can."""
    return InvalidInput(argument, f"{why}; give a time such as {EXAMPLE}.")


def aware_utc(value: datetime, argument: str) -> datetime:
    """An aware ``value`` converted to UTC.

    Raises:
        InvalidInput: If ``value`` has no time zone or one with no valid offset, or leaves the
            years 1 to 9999 in UTC.
    """
    if zone_offset(value, argument) is None:
        raise InvalidInput(argument, f"{value.isoformat()} has no time zone; add one, e.g. +00:00.")
    return in_utc(value, argument)


def storable(value: datetime, argument: str) -> datetime:
    """The UTC ``value``, when memstore may store it (see :data:`STORED_FROM`).

    Raises:
        InvalidInput: If it lies within a day of the calendar's ends.
    """
    if not STORED_FROM <= value < STORED_BEFORE:
        raise InvalidInput(argument, f"{value.isoformat()} {OUT_OF_STORED_RANGE}.")
    return value


OUT_OF_STORED_RANGE = (
    "is within a day of the calendar's ends; memstore stores times from 0001-01-02 to "
    "9999-12-30 UTC, which every time zone can show"
)


def parse_aware(text: str, argument: str) -> datetime:
    """An ISO 8601 timestamp with a time zone, in UTC.

    Raises:
        InvalidInput: If ``text`` is not ISO 8601, has no time zone, or leaves the years 1
            to 9999 in UTC.
    """
    return in_utc(parse_timestamp(text, argument), argument)


def parse_timestamp(text: str, argument: str) -> datetime:
    """An ISO 8601 timestamp with a time zone, as written (not converted): the one rule of
    timestamps given as text, for the CLI's options and the agent tools alike.

    Raises:
        InvalidInput: If ``text`` is not ISO 8601 or has no time zone.
    """
    try:
        parsed = datetime.fromisoformat(text.strip())
    except ValueError as error:
        raise InvalidInput(
            argument, f"{text!r} is not an ISO 8601 timestamp like {EXAMPLE}."
        ) from error
    if parsed.tzinfo is None or parsed.utcoffset() is None:
        raise InvalidInput(argument, f"{text!r} has no time zone; add one, e.g. +02:00 or Z.")
    return parsed


def format_utc(value: datetime) -> str:
    """Render an aware datetime as the fixed-width UTC text stored in the database,
    e.g. ``2026-10-05T07:15:02.000000+00:00``.

    Raises:
        ValueError: If ``value`` has no time zone.
    """
    if value.tzinfo is None or value.utcoffset() is None:
        raise ValueError(f"naive datetime {value.isoformat()} has no time zone")
    return value.astimezone(UTC).isoformat(timespec="microseconds")


def parse_utc(value: str) -> datetime:
    """Read stored UTC text back as an aware datetime in UTC.

    Raises:
        StoreDamaged: For text that is no such time: the file is damaged (found by review:
            a flipped bit in a stored date failed as a ValueError traceback).
    """
    try:
        return datetime.fromisoformat(value).astimezone(UTC)
    except (ValueError, TypeError, OverflowError) as error:
        raise StoreDamaged(
            f"The database holds {value!r} where a time should be: it is damaged. Keep it "
            "and its -wal/-shm files for investigation and restore a verified backup "
            "(README, Backup and recovery)."
        ) from error


def utc_now() -> datetime:
    """The current time, aware, in UTC."""
    return datetime.now(UTC)


def after(now: datetime, previous: datetime) -> datetime:
    """``now``, or a microsecond after ``previous`` when the clock is not past it: a record's
    modification time only goes forward, so that the newer of two copies is told even when
    the clock went back (found by review: a store's own export could not be imported, or
    another store skipped an edit as no newer)."""
    return max(now, previous + timedelta(microseconds=1))


def parse_day(value: date | str) -> date:
    """A calendar day from a ``date`` or ``YYYY-MM-DD`` text.

    Raises:
        InvalidInput: For a datetime (ambiguous without a zone), another text shape, or a
            date that does not exist.
    """
    if isinstance(value, datetime):
        raise InvalidInput("day", "is a datetime; give a date or YYYY-MM-DD text.")
    if isinstance(value, date):
        return value
    if not DAY_FORMAT.fullmatch(value):
        raise InvalidInput("day", f"{value!r} is not a day written YYYY-MM-DD, e.g. 2026-10-05.")
    try:
        return date.fromisoformat(value)
    except ValueError as error:
        raise InvalidInput("day", f"{value!r} is not a calendar date ({error}).") from error


def today(place: tzinfo) -> date:
    """The current date in ``place``."""
    return datetime.now(place).date()


def bounds(day: date, place: tzinfo) -> tuple[datetime, datetime]:
    """[start, end) of ``day`` in ``place`` as UTC instants: its first local midnight and the
    next day's (where midnight falls in a gap, the instant the day begins).

    Raises:
        InvalidInput: For a day at the very ends of the calendar (years 1 and 9999).
    """
    try:
        start = datetime.combine(day, time(), tzinfo=place).astimezone(UTC)
        end = (
            datetime.combine(day + timedelta(days=1), time(), tzinfo=place).astimezone(UTC)
            if day < date.max
            else datetime.max.replace(tzinfo=UTC)  # the calendar's last day runs to its end
        )
    except OverflowError as error:
        raise InvalidInput(  # found by review: it did not say what is allowed
            "day", f"{day} cannot be shown in this time zone; give a day from 0001-01-02."
        ) from error
    return start, end


def month_start(year: int, month: int, place: tzinfo) -> datetime:
    """The first instant of ``month`` (1 to 12; 13 is the next year's January) of ``year``
    in ``place``, in UTC.

    Raises:
        InvalidInput: For a month at the very ends of the calendar (years 1 and 9999).
    """
    year, month = year + (month - 1) // 12, (month - 1) % 12 + 1
    return bounds(date(year, month, 1), place)[0]


def local_date(moment: datetime | None, place: tzinfo) -> date | None:
    """The date of ``moment`` in ``place`` (see :func:`local_time`), or None."""
    return None if moment is None else local_time(moment, place).date()


def local_time(moment: datetime, place: tzinfo | None = None) -> datetime:
    """``moment`` in ``place`` (the machine's local time for None); where that would leave
    the calendar (a time within hours of its ends, stored before memstore kept a day from
    them, or restored from such an export), ``moment`` as it is, in UTC, so that a view
    never fails on it (found by review: an OverflowError traceback)."""
    try:
        return moment.astimezone(place)
    except OverflowError:
        return moment
