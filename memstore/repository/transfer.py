"""Whole tables, read in a stable order for an export, and the rows an import restores as
they were (ids, times and links kept, not made anew)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime

from memstore.repository.memories import SELECT_MEMORY, StoredMemory, StoredSource
from memstore.repository.messages import MESSAGE_COLUMNS, StoredMessage
from memstore.repository.sessions import SESSION_COLUMNS, StoredSession
from memstore.times import format_utc, parse_utc

# The assistant's most frequent name (the speaker column compares without case).
ASSISTANT_NAME = """
    SELECT speaker FROM messages WHERE role = 'assistant' AND speaker IS NOT NULL
    GROUP BY speaker ORDER BY count(*) DESC, speaker LIMIT 1
"""
ALL_SESSIONS = f"SELECT {SESSION_COLUMNS} FROM sessions ORDER BY started_at, rowid"
# Oldest first (the daily logs are written in this order); the index on created_at serves it.
ALL_MESSAGES = (
    f"SELECT {MESSAGE_COLUMNS} FROM messages ORDER BY created_at, session_id, sequence, pk"
)
ALL_MEMORIES = f"{SELECT_MEMORY} ORDER BY created_at, pk"
ALL_SOURCES = "SELECT memory_id, message_id, source_ref FROM memory_sources ORDER BY pk"
ALL_TOMBSTONES = "SELECT source_ref, deleted_at FROM deleted_sources ORDER BY source_ref"
SEQUENCE_HOLDER = "SELECT id FROM messages WHERE session_id = :session_id AND sequence = :sequence"
SET_SUPERSEDED_BY = "UPDATE memories SET superseded_by = :by WHERE id = :id"
ADD_TOMBSTONE = (
    "INSERT OR IGNORE INTO deleted_sources (source_ref, deleted_at) VALUES (:source_ref, :at)"
)


@dataclass(frozen=True)
class Tombstone:
    """A deleted message's source reference and when it was deleted (UTC)."""

    source_ref: str
    deleted_at: datetime


def sessions(connection: sqlite3.Connection) -> Iterator[StoredSession]:
    """Every session, oldest first."""
    return (StoredSession.from_row(row) for row in connection.execute(ALL_SESSIONS))


def messages(connection: sqlite3.Connection) -> Iterator[StoredMessage]:
    """Every message, oldest first (then by session and sequence), read as it is consumed."""
    return (StoredMessage.from_row(row) for row in connection.execute(ALL_MESSAGES))


def memories(connection: sqlite3.Connection) -> Iterator[StoredMemory]:
    """Every memory, whatever its status, oldest first."""
    return (StoredMemory.from_row(row) for row in connection.execute(ALL_MEMORIES))


def sources(connection: sqlite3.Connection) -> Iterator[StoredSource]:
    """Every memory's source links, oldest link first."""
    return (StoredSource(*row) for row in connection.execute(ALL_SOURCES))


def tombstones(connection: sqlite3.Connection) -> Iterator[Tombstone]:
    """Every tombstoned source reference."""
    rows = connection.execute(ALL_TOMBSTONES)
    return (Tombstone(ref, parse_utc(at)) for ref, at in rows)


def assistant_name(connection: sqlite3.Connection) -> str | None:
    """The name the assistant's messages are most often under, or None."""
    row = connection.execute(ASSISTANT_NAME).fetchone()
    return None if row is None else str(row[0])


def sequence_holder(connection: sqlite3.Connection, session_id: str, sequence: int) -> str | None:
    """The id of the message at this place of this session, or None."""
    params = {"session_id": session_id, "sequence": sequence}
    row = connection.execute(SEQUENCE_HOLDER, params).fetchone()
    return None if row is None else str(row[0])


def set_superseded_by(connection: sqlite3.Connection, memory_id: str, by: str) -> None:
    """Point a memory at the one that superseded it, keeping its modification time (a
    restored link, not a new supersession)."""
    connection.execute(SET_SUPERSEDED_BY, {"id": memory_id, "by": by})


def add_tombstone(connection: sqlite3.Connection, tombstone: Tombstone) -> bool:
    """Tombstone a source reference; False when it already was."""
    params = {"source_ref": tombstone.source_ref, "at": format_utc(tombstone.deleted_at)}
    return connection.execute(ADD_TOMBSTONE, params).rowcount > 0
