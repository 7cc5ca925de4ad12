"""Memory rows, their source links and supersession."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, fields
from datetime import datetime
from typing import Any

from memstore.kinds import MemoryStatus
from memstore.repository.stored_values import MAYBE_TEXT, TEXT_VALUE, column_kinds, typed_row
from memstore.text.cjk import index_form
from memstore.times import after, format_utc, parse_utc


def in_force_sql(alias: str = "") -> str:
    """The SQL condition of a memory in force (active, expiry not passed at ``:now``), for a
    query naming the memories table ``alias`` (a fixed name such as ``"mem"``)."""
    t = f"{alias}." if alias else ""
    return f"{t}status = 'active' AND ({t}expires_at IS NULL OR {t}expires_at > :now)"


@dataclass(frozen=True)
class StoredMemory:
    """A memory row read with plain SQL (the columns of :data:`MEMORY_FIELDS`, in order);
    times are aware UTC datetimes. What finds it, then its state, then its times."""

    id: str
    content: str
    normalized_content: str
    category: str
    key: str | None
    pinned: bool
    status: MemoryStatus
    origin: str
    confidence: float
    created_at: datetime
    modified_at: datetime
    expires_at: datetime | None
    superseded_by: str | None

    @classmethod
    def from_row(cls, row: Sequence[Any]) -> StoredMemory:
        """The memory of a row holding :data:`MEMORY_FIELDS` in order.

        Raises:
            StoreDamaged: For a value of another type than its column's, or no time.
        """
        typed_row("memories", MEMORY_FIELDS, row, MEMORY_KINDS)
        values = dict(zip(MEMORY_FIELDS, row, strict=True))
        for name in ("created_at", "modified_at", "expires_at"):
            if values[name] is not None:
                values[name] = parse_utc(values[name])
        values["pinned"] = bool(values["pinned"])
        return cls(**values)

    def in_force(self, now: datetime) -> bool:
        """Whether the memory is in force at ``now``: the Python side of :func:`in_force_sql`."""
        return self.status == "active" and not self.expired(now)

    def expired(self, now: datetime) -> bool:
        """Whether its expiry has passed at ``now`` (whatever its status)."""
        return self.expires_at is not None and self.expires_at <= now

    def shown_status(self, now: datetime) -> MemoryStatus:
        """The status to show: an active memory past its expiry shows as ``expired``."""
        if self.status == "active" and self.expired(now):
            return "expired"
        return self.status

    def values(self) -> dict[str, Any]:
        """Its columns as bound parameters (times as stored UTC text), with the content's
        index form (``index_text``)."""
        times = ("created_at", "modified_at", "expires_at")
        return (
            vars(self)
            | {"index_text": index_form(self.content)}
            | {name: format_utc(value) for name in times if (value := getattr(self, name))}
        )


MEMORY_FIELDS = tuple(field.name for field in fields(StoredMemory))
# The type of each text column no CHECK constraint keeps, in the order of the fields.
MEMORY_KINDS = column_kinds(
    MEMORY_FIELDS, id=TEXT_VALUE, content=TEXT_VALUE, key=MAYBE_TEXT, superseded_by=MAYBE_TEXT
)
CONTEXT_KINDS = (TEXT_VALUE, TEXT_VALUE, None, TEXT_VALUE)
"""The types :func:`in_force` checks, by column."""
SELECT_MEMORY = f"SELECT {', '.join(MEMORY_FIELDS)} FROM memories"
CANDIDATE_WITH = (
    f"{SELECT_MEMORY} WHERE status = 'candidate' AND normalized_content = :value "
    "ORDER BY created_at LIMIT 1"
)
INSERT_MEMORY = (
    f"INSERT INTO memories ({', '.join(MEMORY_FIELDS)}, index_text) "
    f"VALUES ({', '.join(':' + name for name in MEMORY_FIELDS)}, :index_text)"
)
REVISE_MEMORY = """
    UPDATE memories SET content = :content, index_text = :index_text,
        normalized_content = :normalized_content,
        category = :category, key = :key, expires_at = :expires_at, status = :status,
        pinned = :pinned, modified_at = :modified_at
    WHERE id = :id
"""
RETIRE_MEMORIES = """
    UPDATE memories SET status = :status, modified_at = :now
    WHERE id IN (SELECT value FROM json_each(:ids))
"""
POINT_MEMORIES = """
    UPDATE memories SET superseded_by = :by, modified_at = :now
    WHERE id IN (SELECT value FROM json_each(:ids))
"""
REPOINT_SUPERSEDED = """
    UPDATE memories SET superseded_by = (SELECT superseded_by FROM memories WHERE id = :id)
    WHERE superseded_by = :id
"""
DELETE_MEMORY = "DELETE FROM memories WHERE id = :id"
PIN_MEMORY = "UPDATE memories SET pinned = :pinned, modified_at = :now WHERE id = :id"
LATEST_CHANGE = (
    "SELECT max(modified_at) FROM memories WHERE id IN (SELECT value FROM json_each(:ids))"
)
# A link the memory holds already is not added again (found by review: remembering the same
# fact twice from one message linked it twice).
INSERT_SOURCE = """
    INSERT INTO memory_sources (memory_id, message_id, source_ref)
    SELECT :memory_id, :message_id, :source_ref
    WHERE NOT EXISTS (SELECT 1 FROM memory_sources WHERE memory_id = :memory_id
                      AND message_id IS :message_id AND source_ref IS :source_ref)
"""
IN_FORCE = f"""
    SELECT id, category, pinned, content FROM memories WHERE {in_force_sql()}
    ORDER BY pinned DESC, modified_at DESC, pk DESC
"""
SOURCES = (
    "SELECT memory_id, message_id, source_ref FROM memory_sources "
    "WHERE memory_id = :memory_id ORDER BY pk"
)
# A page of memories: in force only unless :all, of one category unless :category is null.
PAGE_WHERE = f"(:all OR ({in_force_sql()})) AND (:category IS NULL OR category = :category)"
PAGE_TOTAL = f"SELECT count(*) FROM memories WHERE {PAGE_WHERE}"
PAGE = f"""
    {SELECT_MEMORY} WHERE {PAGE_WHERE}
    ORDER BY pinned DESC, modified_at DESC, pk DESC LIMIT :limit OFFSET :offset
"""


@dataclass(frozen=True)
class StoredSource:
    """A memory's link to the message (or source reference) it came from."""

    memory_id: str
    message_id: str | None
    source_ref: str | None


def get(connection: sqlite3.Connection, memory_id: str) -> StoredMemory | None:
    """The memory with this id, or None."""
    row = connection.execute(SELECT_MEMORY + " WHERE id = :id", {"id": memory_id}).fetchone()
    return None if row is None else StoredMemory.from_row(row)


def active_with(
    connection: sqlite3.Connection, *, normalized: str | None = None, key: str | None = None
) -> StoredMemory | None:
    """The active memory holding this normalised content (or this key), expired or not."""
    column, value = ("normalized_content", normalized) if key is None else ("key", key)
    query = f"{SELECT_MEMORY} WHERE status = 'active' AND {column} = :value"
    row = connection.execute(query, {"value": value}).fetchone()
    return None if row is None else StoredMemory.from_row(row)


def candidate_with(connection: sqlite3.Connection, normalized: str) -> StoredMemory | None:
    """The oldest unconfirmed candidate holding this normalised content, expired or not."""
    row = connection.execute(CANDIDATE_WITH, {"value": normalized}).fetchone()
    return None if row is None else StoredMemory.from_row(row)


def insert(connection: sqlite3.Connection, memory: StoredMemory) -> None:
    """Insert a memory (the FTS trigger indexes it when active)."""
    connection.execute(INSERT_MEMORY, memory.values())


def revise(connection: sqlite3.Connection, memory: StoredMemory) -> None:
    """Write the fields an update may change (content, category, key, expiry, status, pin,
    modification time) of the stored memory with ``memory.id``."""
    connection.execute(REVISE_MEMORY, memory.values())


def retire(
    connection: sqlite3.Connection, memory_ids: Sequence[str], status: str, now: datetime
) -> None:
    """Take active memories out of force (``superseded`` or ``expired``), freeing their
    content and key for another active memory."""
    if memory_ids:
        params = {"ids": json.dumps(memory_ids), "status": status}
        connection.execute(RETIRE_MEMORIES, params | {"now": changed_at(connection, params, now)})


def point(
    connection: sqlite3.Connection, memory_ids: Sequence[str], by: str, now: datetime
) -> None:
    """Record that memory ``by`` superseded each of ``memory_ids`` (already retired)."""
    if memory_ids:
        params = {"ids": json.dumps(memory_ids), "by": by}
        connection.execute(POINT_MEMORIES, params | {"now": changed_at(connection, params, now)})


def changed_at(connection: sqlite3.Connection, params: dict[str, Any], now: datetime) -> str:
    """The modification time of a change of the memories of ``params["ids"]`` at ``now``: a
    microsecond after the latest of theirs when that is later than ``now`` (the clock went
    back: see :func:`~memstore.times.after`); ``now`` itself otherwise, as another statement
    of the same write at ``now`` wrote (found by review: a supersession 1 µs late)."""
    (latest,) = connection.execute(LATEST_CHANGE, {"ids": params["ids"]}).fetchone()
    if latest is None or parse_utc(latest) <= now:  # the write's own time, as its rows have
        return format_utc(now)
    return format_utc(after(now, parse_utc(latest)))


def set_pinned(connection: sqlite3.Connection, memory_id: str, pinned: bool, now: datetime) -> None:
    """Pin or unpin a memory."""
    params = {"id": memory_id, "pinned": pinned, "now": format_utc(now)}
    connection.execute(PIN_MEMORY, params)


def add_source(
    connection: sqlite3.Connection, memory_id: str, message_id: str | None, source_ref: str | None
) -> None:
    """Link a memory to the message (or source reference) it came from, unless it is
    linked so already."""
    params = {"memory_id": memory_id, "message_id": message_id, "source_ref": source_ref}
    connection.execute(INSERT_SOURCE, params)


def sources(connection: sqlite3.Connection, memory_id: str) -> list[StoredSource]:
    """The source links of a memory, oldest first."""
    rows = connection.execute(SOURCES, {"memory_id": memory_id})
    return [StoredSource(*row) for row in rows]


def delete_memory(connection: sqlite3.Connection, memory_id: str) -> bool:
    """Delete a memory and its source links; memories it superseded now point where it did.
    False when there is no such memory."""
    connection.execute(REPOINT_SUPERSEDED, {"id": memory_id})
    return connection.execute(DELETE_MEMORY, {"id": memory_id}).rowcount > 0


def page(
    connection: sqlite3.Connection,
    *,
    category: str | None,
    include_inactive: bool,
    now: datetime,
    limit: int,
    offset: int,
) -> tuple[list[StoredMemory], int]:
    """Memories newest first (pinned first among current ones) and the exact total."""
    params = {"all": include_inactive, "category": category, "now": format_utc(now)}
    (total,) = connection.execute(PAGE_TOTAL, params).fetchone()
    rows = connection.execute(PAGE, {**params, "limit": limit, "offset": offset})
    return [StoredMemory.from_row(row) for row in rows], int(total)


def in_force(connection: sqlite3.Connection, now: datetime) -> list[tuple[str, str, int, str]]:
    """(id, category, pinned as 0 or 1, content) of every confirmed, unexpired memory: pinned
    first, then newest first, by their last change, as ``memories`` lists them (found by
    review: the context went by creation, and an updated memory kept its old place). Plain
    rows: building ORM objects cost five times the query."""
    rows: list[tuple[str, str, int, str]] = connection.execute(
        IN_FORCE, {"now": format_utc(now)}
    ).fetchall()
    for row in rows:  # found by review: a blob as content failed the context with a TypeError
        if type(row[3]) is not str or type(row[0]) is not str or type(row[1]) is not str:
            typed_row("memories", ("id", "category", "pinned", "content"), row, CONTEXT_KINDS)
    return rows
