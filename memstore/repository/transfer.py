"""Whole tables, read in a stable order for an export, and the rows an import restores as
they were (ids, times and links kept, not made anew)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime

from memstore.repository.memories import SELECT_MEMORY, StoredMemory, StoredSource
from memstore.repository.messages import HIGHEST_SEQUENCE, MESSAGE_COLUMNS, StoredMessage
from memstore.repository.sessions import SESSION_COLUMNS, StoredSession
from memstore.repository.stored_values import Rows, damaged
from memstore.times import format_utc, parse_utc

# The assistant's most frequent name among those that never speak in another role (the
# person who spoke as assistant in one session is not the assistant); the speaker column
# compares without case.
ASSISTANT_NAME = """
    SELECT speaker FROM messages WHERE role = 'assistant' AND speaker IS NOT NULL
        AND speaker NOT IN (
            SELECT speaker FROM messages WHERE role != 'assistant' AND speaker IS NOT NULL
        )
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
SESSION_PLACES = "SELECT id, sequence FROM messages WHERE session_id = :session_id"
SET_SEQUENCE = "UPDATE messages SET sequence = :sequence WHERE id = :id"
SEQUENCE_HOLDER = "SELECT id FROM messages WHERE session_id = :session_id AND sequence = :sequence"
SET_SUPERSEDED_BY = "UPDATE memories SET superseded_by = :by WHERE id = :id"
SET_STATUS = "UPDATE memories SET status = :status WHERE id = :id"
# A newer state of the same memory (same id and content): every field but those and created_at.
RESTORE_STATE = """
    UPDATE memories SET category = :category, key = :key, status = :status, origin = :origin,
        confidence = :confidence, pinned = :pinned, modified_at = :modified_at,
        expires_at = :expires_at, superseded_by = NULL
    WHERE id = :id
"""
ACTIVE_RIVAL = f"""
    {SELECT_MEMORY} WHERE status = 'active' AND id != :id
        AND (normalized_content = :normalized OR key = :key)
    LIMIT 1
"""
FILL_SOURCE = """
    UPDATE memory_sources SET message_id = :message_id
    WHERE memory_id = :memory_id AND message_id IS NULL AND source_ref = :source_ref
"""
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
    """The name the assistant's messages are most often under, of the names that speak only
    as the assistant, or None."""
    row = connection.execute(ASSISTANT_NAME).fetchone()
    return None if row is None else str(row[0])


def sequence_holder(connection: sqlite3.Connection, session_id: str, sequence: int) -> str | None:
    """The id of the message at this place of this session, or None."""
    params = {"session_id": session_id, "sequence": sequence}
    row = connection.execute(SEQUENCE_HOLDER, params).fetchone()
    return None if row is None else str(row[0])


def session_places(connection: sqlite3.Connection, session_id: str) -> dict[str, int]:
    """The place (sequence number) of each message of the session, by id."""
    return dict(connection.execute(SESSION_PLACES, {"session_id": session_id}).fetchall())


def highest_place(connection: sqlite3.Connection, session_id: str) -> int:
    """The highest place (sequence number) a message of the session holds; 0 for none.

    Raises:
        StoreDamaged: For a place that is no integer (found by review: a ValueError).
    """
    (highest,) = connection.execute(HIGHEST_SEQUENCE, {"session_id": session_id}).fetchone()
    if highest is not None and type(highest) is not int:  # max() of text is text
        where = Rows(f"a message of session {session_id}")
        raise damaged("messages", "sequence", where, highest, "an integer")
    return highest or 0


def set_sequence(connection: sqlite3.Connection, message_id: str, sequence: int) -> None:
    """Move a message to another place of its session (its search entry stays: the index
    does not hold places)."""
    connection.execute(SET_SEQUENCE, {"id": message_id, "sequence": sequence})


def set_superseded_by(connection: sqlite3.Connection, memory_id: str, by: str) -> None:
    """Point a memory at the one that superseded it, keeping its modification time (a
    restored link, not a new supersession)."""
    connection.execute(SET_SUPERSEDED_BY, {"id": memory_id, "by": by})


def set_status(connection: sqlite3.Connection, memory_id: str, status: str) -> None:
    """Give a stored memory another status alone, its modification time kept: a stand-in
    for its newer state, which a later record of the same import restores whole."""
    connection.execute(SET_STATUS, {"id": memory_id, "status": status})


def restore_state(connection: sqlite3.Connection, memory: StoredMemory) -> None:
    """Give the stored memory with ``memory.id`` the state of ``memory`` (its category, key,
    status, origin, confidence, pin, modification and expiry times), its supersession link
    cleared (:func:`set_superseded_by` sets it again); content and creation time stay."""
    connection.execute(RESTORE_STATE, memory.values())


def active_rival(
    connection: sqlite3.Connection, memory_id: str, normalized: str | None, key: str | None
) -> StoredMemory | None:
    """An active memory other than ``memory_id`` holding this normalised content or this key
    (expired or not), or None."""
    params = {"id": memory_id, "normalized": normalized, "key": key}
    row = connection.execute(ACTIVE_RIVAL, params).fetchone()
    return None if row is None else StoredMemory.from_row(row)


def fill_source(
    connection: sqlite3.Connection, memory_id: str, message_id: str, source_ref: str
) -> None:
    """Give a memory's links to ``source_ref`` that name no message the message they came
    from (an import of memories first, their messages later)."""
    params = {"memory_id": memory_id, "message_id": message_id, "source_ref": source_ref}
    connection.execute(FILL_SOURCE, params)


def add_tombstone(connection: sqlite3.Connection, tombstone: Tombstone) -> bool:
    """Tombstone a source reference; False when it already was."""
    params = {"source_ref": tombstone.source_ref, "at": format_utc(tombstone.deleted_at)}
    return connection.execute(ADD_TOMBSTONE, params).rowcount > 0
