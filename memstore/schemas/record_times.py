"""The times of export records: aware, in UTC, and, read back from a file, within what the
store keeps (a record built from an older store's rows is checked as it is kept, so that its
export holds whatever that store held)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Annotated

from pydantic import AfterValidator, AwareDatetime, ValidationInfo

from memstore.errors import InvalidInput
from memstore.times import readable, storable


def in_utc(value: datetime) -> datetime:
    """``value`` in UTC.

    Raises:
        ValueError: If it falls outside the years 1 to 9999 once in UTC (pydantic names the
            field).
    """
    try:
        return value.astimezone(UTC)
    except OverflowError as error:
        raise ValueError(
            f"{value.isoformat()} is outside the years 1 to 9999 once converted to UTC"
        ) from error


Time = Annotated[AwareDatetime, AfterValidator(in_utc)]
"""An aware time, converted to UTC."""


READ_BACK = {"read_back": True}
"""The validation context of a record read back from a file, which only a state the store
makes passes."""


def read_back(info: ValidationInfo) -> bool:
    """Whether the record is read back from a file (see :data:`READ_BACK`)."""
    return isinstance(info.context, dict) and info.context.get("read_back") is True


def kept_by(
    rule: Callable[[datetime, str], datetime],
) -> Callable[[datetime, ValidationInfo], datetime]:
    """A validator of a time that, read back, must pass ``rule`` (a check of
    :mod:`memstore.times` raising InvalidInput), raising its reason as a ValueError (pydantic
    names the field)."""

    def check(value: datetime, info: ValidationInfo) -> datetime:
        if read_back(info):
            try:
                rule(value, "time")
            except InvalidInput as error:
                raise ValueError(error.reason.rstrip(".")) from None
        return value

    return check


StoredTime = Annotated[Time, AfterValidator(kept_by(storable))]
"""The time of a session, a message, or a memory's creation or change, in UTC: read back, a
day or more from the calendar's ends, as every API call stores (see
:func:`memstore.times.storable`; found by review: such a message failed every later Markdown
export, and such a memory's time made ``check`` call the store damaged)."""

ExpiryTime = Annotated[Time, AfterValidator(kept_by(readable))]
"""A memory's expiry, in UTC: read back, any time SQLite reads, as ``remember`` takes (see
:func:`memstore.times.readable`; 9999-12-31 stands for never)."""
