"""One day of the diary as text for a person at a terminal: the date and zone, the
neighbouring days, each conversation with its messages, the day's memories, or the day's
Markdown log. Stored text is escaped (:mod:`memstore.text.printable`)."""

from __future__ import annotations

from datetime import date, datetime, tzinfo

from memstore.logs.fences import FenceTracker
from memstore.schemas import Diary, DiaryConversation, Memory, Message
from memstore.text.printable import one_line, printable
from memstore.times import local_date, local_time
from memstore.zones import zone

INDENT = "    "
EN_DASH = "\u2013"
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


def render(diary: Diary) -> str:
    """The day as text: the date and zone, the neighbouring days, each conversation with its
    span, message count and messages (local HH:MM, the speaker's name and role, or the role,
    and the status when not completed), then the
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
        lines += entry(f"  {clock(message.created_at, place)} {who(message)}:", message.content)
    return lines


def who(message: Message) -> str:
    """Who wrote a message, as a diary line names them: ``Caroline (user)``, or the role
    alone for a message without a speaker's name; its status when not completed."""
    notes: list[str] = [message.role] if message.speaker else []
    notes += [] if message.status == "completed" else [message.status]
    name = message.speaker or message.role
    return f"{name} ({', '.join(notes)})" if notes else name


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
    """What stands for the conversations on a day the database holds none: the day's log,
    with what was wrong in it (bytes that are not UTF-8, shown as U+FFFD: found by review,
    the text view did not say so), or why it cannot be shown."""
    where = one_line(str(diary.log_path))  # found by review: a CRLF in it was a line break
    if diary.log is not None:
        body = printable(diary.log).rstrip("\n")
        torn = [] if diary.log_error is None else [f"({one_line(diary.log_error)})"]
        return [f"No stored conversation; the day's Markdown log ({where}):", *torn, "", body]
    if diary.log_error is not None:
        return [
            f"No stored conversation; the Markdown log {where} cannot be shown: "
            f"{one_line(diary.log_error)}."
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
    """``HH:MM`` of ``moment`` in ``place``, with the zone's name for it (``02:30 CEST``,
    or its offset when both names are one) in an hour the clocks go through twice (found
    by review: the night summer time ended read 02:30, 02:00, 02:30 for messages half an
    hour apart)."""
    local = local_time(moment, place)
    other = local.replace(fold=1 - local.fold)
    if other.utcoffset() == local.utcoffset():
        return local.strftime("%H:%M")
    name = "%Z" if other.tzname() != local.tzname() else "%z"
    return local.strftime(f"%H:%M {name}")
