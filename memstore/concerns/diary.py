"""One local day: its bounds in a time zone, its conversations, its text for a terminal.

Times are stored in UTC; which calendar day a message belongs to depends on the zone the day
is cut in. A day is [local midnight, next local midnight), as UTC instants, so a message is in
the day exactly when its local date is that day; a conversation crossing midnight is in both
days, each with that day's messages. :func:`diary` is the unit of work; the day's
Markdown log is only ever read. :mod:`memstore.text.diary` renders a day as text; the
day helpers are in :mod:`memstore.times`.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterable
from datetime import date, tzinfo
from pathlib import Path

from memstore import files, open_stores
from memstore.concerns.memories import memory_model
from memstore.errors import FileError, ImportRejected
from memstore.logs.segments import BOM
from memstore.logs.syntax import MAX_LOG_BYTES, day_from_file_name, read_header, record_count
from memstore.repository import diary as diary_rows
from memstore.schemas import Diary, DiaryConversation, Message
from memstore.store import examine
from memstore.store.database import Database
from memstore.times import bounds, local_date, parse_day, today, utc_now
from memstore.zones import zone, zone_name

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


def stored(path: Path) -> bool:
    """Whether the database file holds anything: a missing or empty file, one of an empty
    page (what a first import killed leaves: found by review, it was refused as an older
    store) or one at Alembic's base is no store yet, and the diary never makes one (README:
    only the commands that store create a database).

    Raises:
        FileError: If something other than a regular file is there.
    """
    status = files.store_file(path)
    if status is None or status.st_size == 0:
        return False
    return not (examine.unstarted(path) or examine.at_base(path))


# The day's Markdown log


def read_log(path: Path) -> tuple[str | None, str | None]:
    """The text of a daily log and why it could not be read; (None, None) when it is missing.

    Read-only, as UTF-8 with any BOM dropped; like the importer, a symbolic link, a
    non-regular file or a file over 16 MiB is refused. Bytes that are not UTF-8 (a record
    torn by a full disk) are shown as U+FFFD and said, not the whole log withheld (found by
    review: the importer takes the other records of such a log).

    Returns:
        (text, None), (None, reason), (text, what was replaced) or (None, None).
    """
    try:
        if path.parent.exists() and not path.parent.is_dir():  # found by review: ignored
            return None, f"its folder {path.parent} is not a folder; check log_dir"
        if path.is_symlink():
            return None, "it is a symbolic link; open the file it points to"
        if not path.exists():
            return None, None
        if not path.is_file():
            return None, "it is not a regular file"
        open_stores.not_a_store(path)
        with path.open("rb") as file:
            data = file.read(MAX_LOG_BYTES + 1)
    except FileError as refused:  # a store this process has open, under a log's name
        return None, refused.reason
    except OSError as error:
        return None, f"it cannot be read ({error.strerror or error})"
    if len(data) > MAX_LOG_BYTES:
        return None, f"it is over {MAX_LOG_BYTES // (1024 * 1024)} MiB; open it in an editor"
    try:
        return data.decode("utf-8").removeprefix("\ufeff"), None
    except UnicodeDecodeError as error:  # a torn record: the rest of the day is still shown
        # its offset counts the BOM, as the importer's (found by review: 3 bytes short)
        return data.decode("utf-8", errors="replace").removeprefix("\ufeff"), (
            f"byte {error.start} is not valid UTF-8 (a record cut short?); the text shows each "
            "such byte as U+FFFD"
        )


Around = tuple[date | None, date | None]
"""The closest days before and after a day whose logs the diary would show."""


def stored_interval(
    db: Database, day: date, place: tzinfo, log_dir: Path
) -> tuple[diary_rows.Interval, Around]:
    """What the store holds of ``day`` in ``place`` and of its log in ``log_dir``, and the
    closest days around it with a conversation (see :func:`days_around`), read without
    writing anything: a missing or empty file is not made a store, nor is one switched to
    WAL or upgraded."""
    span, logged = bounds(day, place), log_days(log_dir)  # a day the zone cannot show: refused
    if not stored(db.path):
        nothing = diary_rows.Interval([], [], None, None)
        return nothing, days_around(logged, day, (None, None), lambda d: recordless(log_dir, d))
    with db.untouched() as connection:

        def held(logged_day: date) -> bool:  # its day shows no log (see day_log)
            path = log_dir / f"{logged_day.isoformat()}.md"
            resolved = os.path.realpath(path)
            if diary_rows.deleted_from(connection, resolved):
                return True  # found by review: a day showing only the "deleted" note
            records = diary_rows.held_records(connection, resolved)
            return held_whole(path, records) if records else recordless(log_dir, logged_day)

        day_path = os.path.realpath(log_dir / f"{day.isoformat()}.md")
        found = diary_rows.interval(connection, *span, day_path)
        stored_days = (local_date(found.before, place), local_date(found.after, place))
        return found, days_around(logged, day, stored_days, held)


DELETED_LOG = "messages of this log were deleted from the store; open the file itself to read it"
STORED_LOG = (
    "the store holds this log's messages, on the days they fall on in this time zone; see "
    "the days before and after"
)


def day_log(path: Path, found: diary_rows.Interval) -> tuple[str | None, str | None]:
    """The day's log text and why it is not shown, for a day with no stored conversation:
    never the text of a log whose messages the user deleted (found by review: deleting a
    day's messages brought them back, word for word, in its diary), nor of one whose
    records are all stored, on other days in the zone the diary is cut in (found by review:
    it said "No stored conversation" and showed them a second time)."""
    if found.log_deleted and path.exists():
        return None, DELETED_LOG
    if held_whole(path, found.log_held):
        return None, STORED_LOG
    return read_log(path)


def held_whole(path: Path, held: int) -> bool:
    """Whether the store holds every record of the log at ``path``, ``held`` of them (as
    messages or tombstones): as many as it has (see
    :func:`~memstore.logs.syntax.record_count`); False when it cannot be read. A log held in
    part is shown whole (found by review: its records of an unknown speaker, its final
    record deferred, or those written with history off, were shown on no day)."""
    if held == 0:
        return False
    try:
        with path.open("rb") as file:
            return held >= record_count(file.read(MAX_LOG_BYTES + 1))
    except OSError:
        return False


def recordless(log_dir: Path, day: date) -> bool:
    """Whether the day's log in ``log_dir`` holds nothing but its header and white space: no
    conversation to go to (found by review: such a day was the previous one). Any other text
    counts, a record the import refuses too (found by the next review: records with
    malformed stamps, shown on their own day, were passed over), and so does a first line
    that is no header as an import reads it (the one after: a note without a header, or a
    header ending in a lone carriage return). A file of white space alone is passed over.
    False when it cannot be read, as the diary then says why."""
    try:
        with (log_dir / f"{day.isoformat()}.md").open("rb") as file:
            data = file.read(MAX_LOG_BYTES + 1)
    except OSError:
        return False
    if len(data) > MAX_LOG_BYTES:
        return False  # too large to show: the diary says so (found by the last re-check)
    text = data.removeprefix(BOM)
    if not text.strip():
        return True  # no text at all: nothing to show (found by the review after)
    first, ended, rest = text.partition(b"\n")
    try:
        read_header(first.removesuffix(b"\r") if ended else first, 0, day)
    except ImportRejected:
        return False
    return not rest.strip()


def log_days(log_dir: Path) -> list[date]:
    """The days with a daily log in ``log_dir`` (a regular file, not empty, named for a real
    date, ``YYYY-MM-DD.md``: found by review, a folder, an empty file or a symbolic link,
    which the diary does not show, was a day to go to); none when the folder cannot be
    listed."""
    try:
        with os.scandir(log_dir) as listed:
            logs = [entry.name for entry in listed if holds_a_log(entry)]
    except OSError:
        return []
    days = []
    for name in logs:
        with contextlib.suppress(ImportRejected):
            days.append(day_from_file_name(name))
    return days


def days_around(
    logged: list[date], day: date, stored_days: Around, held: Callable[[date], bool]
) -> Around:
    """The closest days before and after ``day`` with a conversation: the store's own
    (``stored_days``, in the diary's zone), or a day among ``logged`` whose log the store
    does not hold whole (``held``: see :func:`held_whole`), which the diary shows as a log
    (found by review: an imported log's day was a day to go to, where nothing but a note
    was shown). Only the logs between ``day`` and the store's days are looked at (found by
    the next review: each was read, 0.13 s of every day of 3,000 imported logs)."""
    first, last = stored_days
    before = (d for d in sorted(logged, reverse=True) if d < day and (first is None or d > first))
    after = (d for d in sorted(logged) if d > day and (last is None or d < last))
    return next((d for d in before if not held(d)), first), next(
        (d for d in after if not held(d)), last
    )


def holds_a_log(entry: os.DirEntry[str]) -> bool:
    """Whether the folder entry is a regular file with something in it (a link not
    followed); False when it is gone or cannot be examined."""
    try:
        return entry.is_file(follow_symlinks=False) and entry.stat().st_size > 0
    except OSError:
        return False


def diary(db: Database, log_dir: Path, day: date | str | None, tz: str | tzinfo | None) -> Diary:
    """One local calendar day, for reading only: each conversation with messages that day
    (every message, in time order), the memories written or updated that day, and the
    closest days before and after with a conversation, stored or in a log of ``log_dir``
    (found by review: navigation skipped a day kept only there). With no conversation that
    day, its Markdown log as raw text (``log``), or why not (``log_error``).
    Args:
        day: A date or ``YYYY-MM-DD`` text; today in the zone by default.
        tz: An IANA zone such as ``Europe/Madrid``, a ``ZoneInfo`` or a ``datetime.timezone``;
            the machine's by default.
    Returns: The day (times in UTC; its dates in ``tz``).
    Raises:
        InvalidInput: For a malformed day or an unknown time zone.
        SchemaError: For a schema older than this code's (the diary upgrades nothing).
        StoreDamaged, FileError: For a file that is no database, or another application's.
    """
    place = zone(tz)
    when = today(place) if day is None else parse_day(day)
    day_path = log_dir / f"{when.isoformat()}.md"
    found, (previous_day, next_day) = stored_interval(db, when, place, log_dir)
    now = utc_now()
    memories = [memory_model(memory, now) for memory in found.memories]
    days = conversations(Message.model_validate(message) for message in found.messages)
    log_path = None if days else day_path
    log, log_error = (None, None) if log_path is None else day_log(log_path, found)
    return Diary(
        day=when,
        time_zone=zone_name(place),
        previous_day=previous_day,
        next_day=next_day,
        conversations=days,
        memories=memories,
        log=log,
        log_path=None if log_path is None else str(log_path),
        log_error=log_error,
    )
