"""The history as daily Markdown logs (LOGFORMAT.md) that ``memstore import`` reads back.

Each message becomes one record of the log of its local day, stamped in that day's UTC
offset to the second, under its speaker's name (its role's, ``User``, ``Assistant`` or
``System``, when it has none), with its text made loggable exactly as the recorder does. A
log holds no ids, statuses or session boundaries: an import makes one session per file.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta, timezone, tzinfo
from pathlib import Path
from typing import BinaryIO

from memstore.errors import InvalidInput
from memstore.kinds import Role
from memstore.logs.write import MAX_OFFSET, check_speaker, loggable, render, stamp_time
from memstore.schemas.transfer import MessageRecord
from memstore.speakers import speaker_key
from memstore.times import local_time
from memstore.transfer.destination import create, make_folder


@dataclass(frozen=True)
class LogRecord:
    """One message as a record of a daily log.

    Attributes:
        day: The local date of the message: the log it belongs to.
        speaker: The name heading the record.
        text: The record as written (blank line, stamp line, ``Speaker: content``).
        reshaped: Whether the log form changes the content (an import reads back other text).
        renamed: The message's speaker name when no record can carry it (then ``speaker``
            is its role's name), else None.
    """

    day: date
    speaker: str
    text: str
    reshaped: bool
    renamed: str | None = None


@dataclass
class Speakers:
    """The names the logs use and the role of each, for the ``--speaker NAME=ROLE`` options
    of the import; names are compared without case, as the import compares them.

    Attributes:
        roles: Name (as first written) -> the role it first spoke as.
        clashes: (name, other role) for each name that also speaks in another role.
    """

    roles: dict[str, Role] = field(default_factory=dict)
    clashes: set[tuple[str, Role]] = field(default_factory=set)
    renamed: dict[str, str] = field(default_factory=dict)
    """Each stored name no record can carry -> the role's name written instead."""
    _names: dict[str, str] = field(default_factory=dict)

    def add(self, name: str, role: Role) -> None:
        """Note that ``name`` speaks as ``role``."""
        first = self._names.setdefault(speaker_key(name), name)
        if self.roles.setdefault(first, role) != role:
            self.clashes.add((first, role))

    def warnings(self) -> list[str]:
        """One sentence per clash (an import maps a name to one role only), and per name
        written under its role's."""
        return [
            f"{name!r} speaks as {self.roles[name]} and as {role}; an import maps a name to "
            f"one role, so its {role} messages come back as {self.roles[name]} ones."
            for name, role in sorted(self.clashes)
        ] + [
            f"{name!r} cannot head a log record (a control character, a colon or a space at "
            f"an end); its messages are written under {written}."
            for name, written in sorted(self.renamed.items())
        ]


def log_record(message: MessageRecord, place: tzinfo) -> LogRecord:
    """``message`` as a record of the daily log of its local day in ``place``."""
    local = stamp_time(whole_minutes(local_time(message.created_at, place)))
    speaker = message.speaker or message.role.capitalize()
    renamed = None
    try:
        check_speaker(speaker)
    except InvalidInput:  # a log's name holding a tab; older imports kept spaces around
        renamed, speaker = speaker, message.role.capitalize()
    text = loggable(message.content)
    stamped = render(local, speaker, text)
    return LogRecord(local.date(), speaker, stamped, text != message.content, renamed)


def whole_minutes(local: datetime) -> datetime:
    """``local``, the same instant, in an offset a stamp holds: its UTC offset rounded to
    whole minutes, or UTC's past 14 hours. A historic local mean time's offset has seconds
    (New York's -4:56:02 until 1883), and a few passed 14 hours (Sitka's +14:58:47 until
    1867): either failed the whole export (found by review)."""
    offset = local.utcoffset()
    if offset is None or (not offset % timedelta(minutes=1) and abs(offset) <= MAX_OFFSET):
        return local
    minutes = timedelta(minutes=round(offset / timedelta(minutes=1)))
    return local.astimezone(timezone(minutes) if abs(minutes) <= MAX_OFFSET else UTC)


def header(name: str, day: date) -> str:
    """The first line of the log of ``day``: ``<Name> Log — <date>``."""
    return f"{name} Log — {day.isoformat()}"


class DailyLogFiles:
    """Writes messages, oldest first, into new daily logs ``<folder>/YYYY-MM-DD.md``.

    Args:
        folder: The new folder of the logs (created, 0700; each log 0600).
        name: The assistant's name, in each log's header.
        place: The time zone of the logs' days and stamps.

    Attributes:
        messages: Messages written.
        days: Logs written.
        reshaped: Messages whose text the log form changed.
        speakers: The names written and their roles.
    """

    def __init__(self, folder: Path, name: str, place: tzinfo) -> None:
        make_folder(folder)
        self.folder, self.name, self.place = folder, name, place
        self.messages = self.days = self.reshaped = 0
        self.speakers = Speakers()
        self._day: date | None = None
        self._out: BinaryIO | None = None

    def add(self, message: MessageRecord) -> None:
        """Append ``message`` (no older than the last one) to the log of its local day.

        Raises:
            OSError: When a log cannot be written.
        """
        record = log_record(message, self.place)
        if record.day != self._day or self._out is None:
            self.close()
            self._out = create(self.folder / f"{record.day.isoformat()}.md")
            self._out.write(header(self.name, record.day).encode("utf-8"))
            self._day, self.days = record.day, self.days + 1
        self._out.write(record.text.encode("utf-8"))
        self.speakers.add(record.speaker, message.role)
        if record.renamed is not None:
            self.speakers.renamed[record.renamed] = record.speaker
        self.messages += 1
        self.reshaped += record.reshaped

    def close(self) -> None:
        """Close the log being written, if any."""
        if self._out is not None:
            self._out.close()
            self._out = None
