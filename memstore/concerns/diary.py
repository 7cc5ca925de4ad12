"""One local day: its bounds in a time zone, its conversations, its text for a terminal.

Times are stored in UTC; which calendar day a message belongs to depends on the zone the day
is cut in. A day is [local midnight, next local midnight), as UTC instants, so a message is in
the day exactly when its local date is that day; a conversation crossing midnight is in both
days, each with that day's messages. :func:`diary` is the unit of work; the day's
Markdown log is only ever read. :mod:`memstore.concerns.diary_text` renders a day as text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import UTC, date, datetime, time, timedelta, tzinfo
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import tzlocal

from memstore.concerns.import_files import MAX_LOG_BYTES
from memstore.concerns.memories import memory_model
from memstore.config import MemoryConfig
from memstore.errors import InvalidInput
from memstore.repository import diary as diary_rows
from memstore.schemas import Diary, DiaryConversation, Message
from memstore.store.database import Database
from memstore.times import utc_now

DAY_FORMAT = re.compile(r"\d{4}-\d{2}-\d{2}")
LOCAL_KEY = "local"  # tzlocal's key for a zone read from /etc/localtime without a name


# The day and its zone


def zone(name: str | None) -> ZoneInfo:
    """The time zone called ``name``, or the machine's zone for None.

    Args:
        name: An IANA name such as ``Europe/Madrid`` or ``UTC``.

    Raises:
        InvalidInput: For an unknown name, or a machine whose zone cannot be determined.
    """
    if name is None or name == LOCAL_KEY:
        return machine_zone()
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError) as error:
        raise InvalidInput(
            "tz", f"{name!r} is not a known time zone; use an IANA name such as Europe/Madrid."
        ) from error


def machine_zone() -> ZoneInfo:
    """The machine's time zone (``TZ``, else the system setting).

    Raises:
        InvalidInput: When the system setting is missing or contradicts itself.
    """
    try:
        return tzlocal.get_localzone()
    except (ZoneInfoNotFoundError, ValueError, OSError) as error:
        raise InvalidInput(
            "tz", f"the machine's time zone cannot be determined ({error}); give one."
        ) from error


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
        end = datetime.combine(day + timedelta(days=1), time(), tzinfo=place).astimezone(UTC)
    except OverflowError as error:
        raise InvalidInput("day", f"{day} is out of the supported range.") from error
    return start, end


def local_date(moment: datetime | None, place: tzinfo) -> date | None:
    """The date of ``moment`` in ``place``, or None."""
    return None if moment is None else moment.astimezone(place).date()


# Conversations


def conversations(messages: Iterable[Message]) -> list[DiaryConversation]:
    """Messages grouped by session, each group in the given (time) order, the groups ordered
    by their first message."""
    groups: dict[str, list[Message]] = {}
    for message in messages:
        groups.setdefault(message.session_id, []).append(message)
    return [
        DiaryConversation(
            session_id=session_id,
            started_at=group[0].created_at,
            ended_at=group[-1].created_at,
            message_count=len(group),
            messages=group,
        )
        for session_id, group in groups.items()
    ]


# The day's Markdown log


def read_log(path: Path) -> tuple[str | None, str | None]:
    """The text of a daily log and why it could not be read; (None, None) when it is missing.

    Read-only, as UTF-8 with any BOM dropped; like the importer, a symbolic link, a
    non-regular file or a file over 16 MiB is refused.

    Returns:
        (text, None), (None, reason) or (None, None).
    """
    try:
        if path.is_symlink():
            return None, "it is a symbolic link; open the file it points to"
        if not path.exists():
            return None, None
        if not path.is_file():
            return None, "it is not a regular file"
        with path.open("rb") as file:
            data = file.read(MAX_LOG_BYTES + 1)
    except OSError as error:
        return None, f"it cannot be read ({error.strerror or error})"
    if len(data) > MAX_LOG_BYTES:
        return None, f"it is over {MAX_LOG_BYTES // (1024 * 1024)} MiB; open it in an editor"
    try:
        return data.decode("utf-8-sig"), None
    except UnicodeDecodeError as error:
        return None, f"it is not valid UTF-8 (byte {error.start}); open it in an editor"


def diary(
    db: Database, config: MemoryConfig, log_dir: Path, day: date | str | None, tz: str | None
) -> Diary:
    """One local calendar day (see :meth:`memstore.MemoryService.diary`); nothing is written,
    and a missing database is not created.

    Raises:
        InvalidInput: For a malformed day or an unknown time zone.
    """
    place = zone(tz)
    when = today(place) if day is None else parse_day(day)
    start, end = bounds(when, place)
    found, memories, now = diary_rows.Interval([], [], None, None), [], utc_now()
    if db.path.exists():  # only reads: a missing database is not created
        with db.read() as connection:
            found = diary_rows.interval(connection, start, end)
        memories = [memory_model(memory, now) for memory in found.memories]
    days = conversations(Message.model_validate(message) for message in found.messages)
    log_path = None if days else log_dir / f"{when.isoformat()}.md"
    log, log_error = (None, None) if log_path is None else read_log(log_path)
    return Diary(
        day=when,
        time_zone=place.key,
        previous_day=local_date(found.before, place),
        next_day=local_date(found.after, place),
        conversations=days,
        memories=memories,
        log=log,
        log_path=None if log_path is None else str(log_path),
        log_error=log_error,
    )
