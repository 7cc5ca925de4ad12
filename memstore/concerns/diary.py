"""One local day: its bounds in a time zone, its conversations, its text for a terminal.

Times are stored in UTC; which calendar day a message belongs to depends on the zone the day
is cut in. A day is [local midnight, next local midnight), as UTC instants, so a message is in
the day exactly when its local date is that day; a conversation crossing midnight is in both
days, each with that day's messages. Everything here is pure except :func:`read_log`, which
reads the day's Markdown log read-only.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import UTC, date, datetime, time, timedelta, tzinfo
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import tzlocal

from memstore.concerns.importing import MAX_LOG_BYTES
from memstore.errors import InvalidInput
from memstore.logs.parse import FenceTracker
from memstore.schemas import Diary, DiaryConversation, Memory, Message
from memstore.text.printable import printable

DAY_FORMAT = re.compile(r"\d{4}-\d{2}-\d{2}")
LOCAL_KEY = "local"  # tzlocal's key for a zone read from /etc/localtime without a name
INDENT = "    "
EN_DASH = "\u2013"
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


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


# Text for a person at a terminal


def render(diary: Diary) -> str:
    """The day as text: the date and zone, the neighbouring days, each conversation with its
    span, message count and messages (local HH:MM, role, status when not completed), then the
    memories; or, without conversations, the day's log as it is.

    Control characters other than tab and line feed, and bidi controls, are shown escaped
    (``\\x1b``, ``\\u202e``: :mod:`memstore.text.printable`), so stored text cannot drive the
    terminal or reorder what a line shows.
    """
    place = zone(diary.time_zone)
    lines = [*heading(diary), ""]
    for conversation in diary.conversations:
        lines += [*conversation_lines(conversation, place), ""]
    if not diary.conversations:
        lines += [*log_lines(diary), ""]
    lines += memory_lines(diary.memories, diary.day, place)
    return printable("\n".join(lines))  # paths and errors too, not only stored text


def heading(diary: Diary) -> list[str]:
    """The date, its zone and the neighbouring days with a conversation."""
    day = diary.day
    return [
        f"{WEEKDAYS[day.weekday()]} {day.isoformat()} ({diary.time_zone})",
        f"Previous day: {diary.previous_day or 'none'} · Next day: {diary.next_day or 'none'}",
    ]


def conversation_lines(conversation: DiaryConversation, place: tzinfo) -> list[str]:
    """A conversation's header line, then each of its messages."""
    count = conversation.message_count
    span = clock(conversation.started_at, place) + EN_DASH + clock(conversation.ended_at, place)
    noun = "message" if count == 1 else "messages"
    lines = [f"Conversation {span}, {count} {noun} ({conversation.session_id})"]
    for message in conversation.messages:
        status = "" if message.status == "completed" else f" ({message.status})"
        prefix = f"  {clock(message.created_at, place)} {message.role}{status}:"
        lines += entry(prefix, message.content)
    return lines


def entry(prefix: str, content: str) -> list[str]:
    """``prefix`` and the first line of ``content``, then the other lines indented; fenced
    code, fences included, as it is (unindented, so it copies exactly)."""
    first, *rest = printable(content).split("\n")
    fence = FenceTracker()
    fence.feed(first)
    lines = [prefix, first] if fence.is_open else [f"{prefix} {first}" if first else prefix]
    for line in rest:
        inside = fence.is_open
        fence.feed(line)
        lines.append(line if inside or fence.is_open or not line else INDENT + line)
    return lines


def log_lines(diary: Diary) -> list[str]:
    """What stands for the conversations on a day the database holds none."""
    where = diary.log_path
    if diary.log is not None:
        body = printable(diary.log.replace("\r\n", "\n")).rstrip("\n")
        return [f"No stored conversation; the day's Markdown log ({where}):", "", body]
    if diary.log_error is not None:
        return [
            f"No stored conversation; the Markdown log {where} cannot be shown: {diary.log_error}."
        ]
    return [f"No stored conversation, and no Markdown log at {where}."]


def memory_lines(memories: list[Memory], day: date, place: tzinfo) -> list[str]:
    """The memories written or updated that day, one entry each."""
    if not memories:
        return ["Memories: none written or updated."]
    lines = ["Memories:"]
    for memory in memories:
        written = local_date(memory.created_at, place) == day
        when = memory.created_at if written else memory.modified_at
        event = "written" if written else "updated"
        status = "" if memory.status == "active" else f" ({memory.status})"
        prefix = f"  {clock(when, place)} {event} [{memory.category}]{status}"
        lines += entry(prefix, memory.content)
    return lines


def clock(moment: datetime, place: tzinfo) -> str:
    """``HH:MM`` of ``moment`` in ``place``."""
    return moment.astimezone(place).strftime("%H:%M")
