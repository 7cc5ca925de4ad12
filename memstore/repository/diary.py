"""The records of one time interval, for the diary: every message, the memories created or
modified in it, and the closest stored messages before and after it.

Every query is a range on an indexed UTC text column (``ix_messages_created_at``) or, for
memories (few rows, no time index), a plain scan. Times are bound as the fixed-width UTC text
the tables store, so text comparison is time comparison.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import datetime

from memstore.repository.memories import SELECT_MEMORY, StoredMemory
from memstore.repository.messages import MESSAGE_COLUMNS, StoredMessage
from memstore.sources import log_prefix
from memstore.text.order import after_prefix
from memstore.times import format_utc, parse_utc

# Every role and status: the diary shows system, interrupted and error messages too.
MESSAGES_BETWEEN = f"""
    SELECT {MESSAGE_COLUMNS}
    FROM messages
    WHERE created_at >= :start AND created_at < :end
    ORDER BY created_at, session_id, sequence
"""
# Any status: a memory superseded or retired that day was modified that day. Ordered by the
# event that puts it in the interval: its creation, else its last modification.
MEMORIES_TOUCHED = f"""
    {SELECT_MEMORY}
    WHERE (created_at >= :start AND created_at < :end)
       OR (modified_at >= :start AND modified_at < :end)
    ORDER BY CASE WHEN created_at >= :start AND created_at < :end
                  THEN created_at ELSE modified_at END, pk
"""
# ORDER BY ... LIMIT 1 on the indexed column: one index seek, whatever the table's size.
NEWEST_BEFORE = (
    "SELECT created_at FROM messages WHERE created_at < :start ORDER BY created_at DESC LIMIT 1"
)
OLDEST_FROM = "SELECT created_at FROM messages WHERE created_at >= :end ORDER BY created_at LIMIT 1"
# A tombstone of a reference into a log, and a message of one: ranges on the indexes of
# references.
DELETED_FROM_LOG = (
    "SELECT 1 FROM deleted_sources WHERE source_ref >= :low AND source_ref < :high LIMIT 1"
)
HELD_FROM_LOG = """
    SELECT (SELECT count(*) FROM messages WHERE source_ref >= :low AND source_ref < :high)
         + (SELECT count(*) FROM deleted_sources WHERE source_ref >= :low AND source_ref < :high)
"""


@dataclass(frozen=True)
class Interval:
    """The records of one [start, end) interval of UTC time."""

    messages: list[StoredMessage]
    """Every message in the interval, by time, then session and sequence."""
    memories: list[StoredMemory]
    before: datetime | None
    """The time of the newest message before ``start``, or None."""
    after: datetime | None
    """The time of the oldest message at or after ``end``, or None."""
    log_deleted: bool = False
    """Whether a message of the day's log was deleted (its reference tombstoned)."""
    log_held: int = 0
    """How many records of the day's log the store holds, as messages or tombstones."""


def interval(
    connection: sqlite3.Connection, start: datetime, end: datetime, log_path: str
) -> Interval:
    """The messages and memories of [``start``, ``end``), the nearest messages outside it,
    whether a message of the day's log (resolved ``log_path``) was deleted, and how many
    of its records the store holds.

    Args:
        start: Aware start, inclusive.
        end: Aware end, exclusive.
    """
    bounds = {"start": format_utc(start), "end": format_utc(end)}
    messages = connection.execute(MESSAGES_BETWEEN, bounds)
    memories = connection.execute(MEMORIES_TOUCHED, bounds)
    return Interval(
        messages=[StoredMessage.from_row(row) for row in messages],
        memories=[StoredMemory.from_row(row) for row in memories],
        before=stored_time(connection, NEWEST_BEFORE, bounds),
        after=stored_time(connection, OLDEST_FROM, bounds),
        log_deleted=deleted_from(connection, log_path),
        log_held=held_records(connection, log_path),
    )


def deleted_from(connection: sqlite3.Connection, log_path: str) -> bool:
    """Whether a message of the log at the resolved ``log_path`` was deleted (its reference
    tombstoned)."""
    return connection.execute(DELETED_FROM_LOG, log_bounds(log_path)).fetchone() is not None


def held_records(connection: sqlite3.Connection, log_path: str) -> int:
    """How many records of the log at the resolved ``log_path`` the store holds, as
    messages or as tombstones of deleted ones."""
    return int(connection.execute(HELD_FROM_LOG, log_bounds(log_path)).fetchone()[0])


def log_bounds(log_path: str) -> dict[str, str | bytes]:
    """The range of the references into the log at the resolved ``log_path``."""
    prefix = log_prefix(log_path)
    return {"low": prefix, "high": after_prefix(prefix)}


def stored_time(
    connection: sqlite3.Connection, query: str, bounds: dict[str, str]
) -> datetime | None:
    """The time ``query`` finds, as an aware datetime, or None."""
    row = connection.execute(query, bounds).fetchone()
    return None if row is None else parse_utc(row[0])
