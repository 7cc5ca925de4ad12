"""Session rows: live sessions and the synthetic session of each imported daily log."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from memstore.repository.stored_values import TEXT_VALUE, json_object, typed_row
from memstore.times import format_utc, parse_utc

SESSION_COLUMNS = "id, started_at, ended_at, metadata"
SESSION_BY_ID = f"SELECT {SESSION_COLUMNS} FROM sessions WHERE id = :id"
INSERT_SESSION = (
    f"INSERT INTO sessions ({SESSION_COLUMNS}) VALUES (:id, :started_at, :ended_at, :metadata)"
)
END_SESSION = "UPDATE sessions SET ended_at = :ended_at WHERE id = :id"
RESTART_EMPTY = (
    "UPDATE sessions SET started_at = :started_at WHERE id = :id "
    "AND NOT EXISTS (SELECT 1 FROM messages WHERE session_id = :id)"
)
IN_WINDOW = "(:since IS NULL OR started_at >= :since) AND (:until IS NULL OR started_at < :until)"
LISTED_TOTAL = f"SELECT count(*) FROM sessions WHERE {IN_WINDOW}"
# Each page row: the session, its message count, its first and last message times, and
# its speakers' names in the order
# they first speak, joined by the unit separator (a character no name holds: names are
# one line of text).
LISTED = f"""
SELECT {SESSION_COLUMNS},
       (SELECT count(*) FROM messages WHERE messages.session_id = sessions.id),
       (SELECT min(created_at) FROM messages WHERE messages.session_id = sessions.id),
       (SELECT max(created_at) FROM messages WHERE messages.session_id = sessions.id),
       (SELECT group_concat(speaker, char(31)) FROM (
            SELECT speaker FROM messages
            WHERE messages.session_id = sessions.id AND speaker IS NOT NULL
            GROUP BY speaker ORDER BY min(sequence)))
FROM sessions WHERE {IN_WINDOW}
ORDER BY started_at DESC, rowid DESC LIMIT :limit OFFSET :offset
"""
SPEAKER_SEPARATOR = "\x1f"


@dataclass(frozen=True)
class StoredSession:
    """A session row (:data:`SESSION_COLUMNS`); times are aware UTC datetimes.

    Attributes:
        metadata: The JSON object kept with the session.
    """

    id: str
    started_at: datetime
    ended_at: datetime | None
    metadata: dict[str, Any]

    @classmethod
    def from_row(cls, row: Sequence[Any]) -> StoredSession:
        """The session of a row holding :data:`SESSION_COLUMNS` in order.

        Raises:
            StoreDamaged: For an id that is no text, metadata that is no JSON object, or a
                time that is no time.
        """
        typed_row("sessions", ("id",), row[:1], (TEXT_VALUE,))
        id_, started_at, ended_at, metadata = row
        ended = None if ended_at is None else parse_utc(ended_at)
        details = json_object("sessions", "metadata", id_, metadata)
        return cls(id_, parse_utc(started_at), ended, details)

    def values(self) -> dict[str, Any]:
        """The bound parameters of :data:`INSERT_SESSION`."""
        ended = None if self.ended_at is None else format_utc(self.ended_at)
        started = format_utc(self.started_at)
        return {**vars(self), "started_at": started, "ended_at": ended, "metadata": self.json()}

    def json(self) -> str:
        """The metadata as stored: JSON text."""
        return json.dumps(self.metadata)


def get(connection: sqlite3.Connection, session_id: str) -> StoredSession | None:
    """The session with this id, or None."""
    row = connection.execute(SESSION_BY_ID, {"id": session_id}).fetchone()
    return None if row is None else StoredSession.from_row(row)


def add(connection: sqlite3.Connection, session: StoredSession) -> None:
    """Insert a session.

    Raises:
        sqlite3.IntegrityError: If its id is taken (the caller checks first).
    """
    connection.execute(INSERT_SESSION, session.values())


def end(connection: sqlite3.Connection, session_id: str, ended_at: datetime) -> None:
    """Record when a session ended."""
    connection.execute(END_SESSION, {"id": session_id, "ended_at": format_utc(ended_at)})


def restart_empty(connection: sqlite3.Connection, session_id: str, started_at: datetime) -> None:
    """Move the start of a session that holds no message (yet) to ``started_at``."""
    connection.execute(RESTART_EMPTY, {"id": session_id, "started_at": format_utc(started_at)})


@dataclass(frozen=True)
class ListedSession:
    """A session as a listing shows it: the row, how many messages it holds (every role
    and status), when the first and the last of them were written (None without any), and
    the names of its speakers in the order they first speak."""

    session: StoredSession
    messages: int
    first_message_at: datetime | None
    last_message_at: datetime | None
    speakers: list[str]


def listed(
    connection: sqlite3.Connection,
    since: datetime | None,
    until: datetime | None,
    limit: int,
    offset: int,
) -> tuple[list[ListedSession], int]:
    """The sessions started in [``since``, ``until``) (None: unbounded), newest first, a
    page of ``limit`` from ``offset``, and the exact total in the window."""
    window = {
        "since": None if since is None else format_utc(since),
        "until": None if until is None else format_utc(until),
    }
    (total,) = connection.execute(LISTED_TOTAL, window).fetchone()
    rows = connection.execute(LISTED, {**window, "limit": limit, "offset": offset})
    found = [
        ListedSession(
            StoredSession.from_row(row[:4]),
            row[4],
            None if row[5] is None else parse_utc(row[5]),
            None if row[6] is None else parse_utc(row[6]),
            row[7].split(SPEAKER_SEPARATOR) if row[7] else [],
        )
        for row in rows
    ]
    return found, int(total)
