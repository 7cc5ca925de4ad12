"""Times given to memstore: parsed from ISO 8601, required to be aware, converted to UTC.

Stored times are UTC, in the years 1 to 9999 that Python's datetime holds. A time near the
calendar's edges can leave them once converted (``0001-01-01T00:00:00+05:00`` is in year 0
in UTC), which Python reports as an OverflowError: here it is an InvalidInput naming the
argument, like any other bad time.
"""

from __future__ import annotations

from datetime import UTC, datetime

from memstore.errors import InvalidInput

EXAMPLE = "2026-10-05T09:00:00+02:00"


def in_utc(value: datetime, argument: str) -> datetime:
    """``value`` converted to UTC (a naive ``value`` is taken as the machine's local time).

    Raises:
        InvalidInput: If the converted time falls outside the years 1 to 9999.
    """
    try:
        return value.astimezone(UTC)
    except (OverflowError, ValueError) as error:
        raise InvalidInput(
            argument,
            f"{value.isoformat()} is outside the years 1 to 9999 once converted to UTC; "
            f"give a time such as {EXAMPLE}.",
        ) from error


def aware_utc(value: datetime, argument: str) -> datetime:
    """An aware ``value`` converted to UTC.

    Raises:
        InvalidInput: If ``value`` has no time zone, or leaves the years 1 to 9999 in UTC.
    """
    if value.tzinfo is None or value.utcoffset() is None:
        raise InvalidInput(argument, f"{value.isoformat()} has no time zone; add one, e.g. +00:00.")
    return in_utc(value, argument)


def parse_aware(text: str, argument: str) -> datetime:
    """An ISO 8601 timestamp with a time zone, in UTC.

    Raises:
        InvalidInput: If ``text`` is not ISO 8601, has no time zone, or leaves the years 1
            to 9999 in UTC.
    """
    try:
        parsed = datetime.fromisoformat(text.strip())
    except ValueError as error:
        raise InvalidInput(
            argument, f"{text!r} is not an ISO 8601 timestamp like {EXAMPLE}."
        ) from error
    return aware_utc(parsed, argument)


def utc_now() -> datetime:
    """The current time, aware, in UTC."""
    return datetime.now(UTC)
