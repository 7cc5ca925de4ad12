"""Time zones by name: the machine's, an IANA zone's, a fixed offset's, and the name that
gives each back (:func:`zone_name`), as the diary's ``time_zone`` shows it and ``--tz``
takes it."""

from __future__ import annotations

import re
from datetime import timedelta, timezone, tzinfo

from memstore.errors import InvalidInput, quoted
from memstore.machine_zone import machine_zone

LOCAL_KEY = "local"  # tzlocal's key for a zone read from /etc/localtime without a name


def zone(name: str | tzinfo | None) -> tzinfo:
    """The time zone called ``name``, or the machine's zone for None.

    Args:
        name: An IANA name such as ``Europe/Madrid`` or ``UTC``, a fixed offset as
            :func:`zone_name` names one (``UTC+02:00``) or as ISO 8601 writes it
            (``+02:00``), or the machine zone's own name,
            which may be none of those (a zone file elsewhere, ``TZ=UTC0``); or a zone
            object :func:`given_zone` takes.

    Raises:
        InvalidInput: For an unknown name, a zone object without a name, or a machine whose
            zone cannot be determined.
    """
    if name is None or name == LOCAL_KEY:
        return machine_zone()
    if isinstance(name, tzinfo):  # found by review: a ZoneInfo was refused as not text
        return given_zone(name)
    offset = FIXED_OFFSET.fullmatch(name)
    if offset is not None:
        return fixed_zone(offset)
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError  # on first use: start-up (README)

    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError) as error:
        unknown = InvalidInput(
            "tz",
            f"{quoted(name)} is not a known time zone; use an IANA name such as Europe/Madrid, "
            "a fixed offset such as UTC+02:00, or 'local'.",
        )
        try:
            machine = machine_zone()
        except InvalidInput:
            raise unknown from error
        if zone_name(machine) != name:
            raise unknown from error
        return machine  # found by review: the diary's text view refused the machine's zone


FIXED_OFFSET = re.compile(r"(?:UTC)?([+-])([0-9]{2})(?::?([0-9]{2})(?::([0-9]{2}))?)")
"""A fixed offset as :func:`zone_name` names it (a ``datetime.timezone``'s own name), or as
ISO 8601 writes it, without ``UTC`` (``+14:00``, as ``--since`` takes it, or ``+1400``, as a
log's stamps write it; found by review). ASCII digits only: a digit class took Arabic-Indic ones,
which ``--since`` refuses (found by the next review)."""


def given_zone(place: tzinfo) -> tzinfo:
    """``place``, a ``datetime.timezone`` or a ``zoneinfo.ZoneInfo`` with an IANA key: the
    zones :func:`zone_name` names so that :func:`zone` takes the name back (found by review:
    a diary's zone, a ZoneInfo read from a file, could not be read back).

    Raises:
        InvalidInput: For another tzinfo, a ZoneInfo without a key, or an offset with a
            fraction of a second.
    """
    from zoneinfo import ZoneInfo

    if isinstance(place, ZoneInfo) and place.key is not None:
        return place
    offset = place.utcoffset(None) if isinstance(place, timezone) else None
    if offset is not None and not offset.microseconds:  # found by review: a fraction of a
        return place  # second in an offset has no name
    raise InvalidInput(
        "tz",
        f"is a {type(place).__name__} without an IANA name or a whole-second offset; give a "
        "name such as Europe/Madrid, a zoneinfo.ZoneInfo of one, or a datetime.timezone.",
    )


def fixed_zone(found: re.Match[str]) -> timezone:
    """The fixed offset a :data:`FIXED_OFFSET` match names.

    Raises:
        InvalidInput: For an offset of a day or more, or minutes past 59.
    """
    hours, minutes, seconds = int(found[2]), int(found[3]), int(found[4] or 0)
    if hours > 23 or minutes > 59 or seconds > 59:  # found by review: seconds were no name
        raise InvalidInput("tz", f"{found[0]!r} is no UTC offset; give one from -23:59 to +23:59.")
    offset = timedelta(hours=hours, minutes=minutes, seconds=seconds)
    return timezone(-offset if found[1] == "-" else offset)


def zone_name(place: tzinfo) -> str:
    """The name :func:`zone` takes back for ``place``: its IANA key, a fixed offset's
    ``UTC+02:00`` (``UTC`` for none, whatever name it was given), else its own name."""
    if isinstance(place, timezone):
        return str(timezone(place.utcoffset(None)).tzname(None))
    key = getattr(place, "key", None)
    return key if isinstance(key, str) else str(place.tzname(None))
