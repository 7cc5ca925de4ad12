"""The machine's own time zone: the one a local day is cut in when none is given."""

from __future__ import annotations

import os
import re
import threading
from datetime import datetime, timedelta, timezone, tzinfo

from memstore.errors import InvalidInput

_NAME = r"(?:[A-Za-z]{3,}|<[A-Za-z0-9+-]{3,}>)"
_OFFSET = r"[+-]?(?:[01]?\d|2[0-3])(?::[0-5]\d){0,2}"  # under a day: Python holds no more
POSIX_RULES = re.compile(rf"{_NAME}{_OFFSET}(?:{_NAME}(?:{_OFFSET})?(?:,[^,]+,[^,]+)?)?")
"""A ``TZ`` of POSIX rules (``UTC0``, ``<+03>-3``, ``EST5EDT,M3.2.0,M11.1.0``): a name and
its offset, then maybe a daylight saving name, offset and dates; what the C library reads
when the zone database knows no zone of that name."""


def machine_zone() -> tzinfo:
    """The machine's time zone (``TZ``, else the system setting); where tzlocal cannot name
    it (``TZ`` holding POSIX rules such as ``UTC0`` or ``<+03>-3``), the C library's zone
    when it has one offset all year.

    Raises:
        InvalidInput: When the system setting is missing or contradicts itself, holds
            daylight saving rules that only the C library reads, or ``TZ`` holds neither a
            zone the zone database knows, a zone file, nor POSIX rules (``America/New_Yrok``
            or ``Europe/Berlin1``, which the C library reads as UTC named "America" or
            "Europe"; found by review, a diary was cut in UTC and said nothing).
    """
    from zoneinfo import ZoneInfoNotFoundError  # on first use, as tzlocal: start-up (README)

    try:
        return named_machine_zone()
    except (ZoneInfoNotFoundError, ValueError, OSError) as error:
        named = os.environ.get("TZ", "").removeprefix(":")
        if named and not POSIX_RULES.fullmatch(named):
            raise InvalidInput(
                "tz",
                f"the machine's time zone, TZ={os.environ['TZ']!r}, is no zone the zone "
                "database knows; set TZ to a zone name such as America/New_York, or give one.",
            ) from error
        fixed = fixed_machine_zone()
        if fixed is None:
            raise InvalidInput("tz", unknown_machine_zone(error)) from error
        return fixed


READ_UNDER: dict[str, str | None] = {}
"""The ``TZ`` (under the key "TZ") tzlocal last read the machine's zone under, with success."""
READING = threading.Lock()


def named_machine_zone() -> tzinfo:
    """tzlocal's zone for the machine, read again, and the C library told (``time.tzset``),
    unless it was last read with success under the same ``TZ``: tzlocal keeps the zone it
    first read for the whole process (found by review: a diary after ``TZ`` was set to
    America/New_York in the process was still cut in the zone read before). One thread at a
    time; a ``TZ`` tzlocal cannot read is tried again at each call (found by the next
    review: marked read before the reading failed, the second call under ``TZ=UTC0`` was
    given the zone read before it).

    Raises:
        ZoneInfoNotFoundError, ValueError, OSError: As tzlocal, when it cannot name the zone.
    """
    import time as clock

    import tzlocal

    with READING:
        now = os.environ.get("TZ")
        if "TZ" in READ_UNDER and READ_UNDER["TZ"] == now:
            return tzlocal.get_localzone()
        READ_UNDER.clear()
        if hasattr(clock, "tzset"):  # Unix only
            clock.tzset()
        zone = tzlocal.reload_localzone()
        READ_UNDER["TZ"] = now
        return zone


def unknown_machine_zone(error: Exception) -> str:
    """Why the machine's zone cannot be used, ``error`` being tzlocal's, and what to do: a
    ``TZ`` of POSIX daylight saving rules is named as such (found by review: tzlocal's own
    message, with its line break, was shown)."""
    rules = os.environ.get("TZ")
    if rules:
        return (
            f"the machine's time zone, TZ={rules!r}, holds daylight saving rules that only "
            "the C library reads; set TZ to a zone name such as America/New_York, or give one."
        )
    first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    return f"the machine's time zone cannot be determined ({first}); give one."


def fixed_machine_zone() -> timezone | None:
    """The C library's zone for this process, when it keeps one offset all year (no
    daylight saving time), named as the C library names it, unless that name is a zone of
    the zone database with another offset (``TZ=UTC-3`` is called UTC and is 3 hours east:
    found by review, its diary's text view read the name as UTC); such a one is named by its
    offset (``UTC+03:00``). Else None."""
    import time as clock

    if clock.daylight:
        return None
    offset = timedelta(seconds=-clock.timezone)
    name = clock.tzname[0]
    return (
        timezone(offset) if database_offset(name) not in (None, offset) else timezone(offset, name)
    )


def database_offset(name: str) -> timedelta | None:
    """The UTC offset now of the zone database's zone called ``name``, or None when it has
    none of that name."""
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    try:
        return datetime.now(ZoneInfo(name)).utcoffset()
    except (ZoneInfoNotFoundError, ValueError, OSError):
        return None
