"""Memory rows, their source links and supersession."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, fields
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, and_, delete, func, or_, select, update
from sqlalchemy.orm import Session

from memstore.models import MemoryRow, MemorySourceRow, format_utc, parse_utc


@dataclass(frozen=True)
class StoredMemory:
    """A memory row read with plain SQL (the columns of :data:`MEMORY_FIELDS`, in order);
    times are aware UTC datetimes."""

    id: str
    content: str
    category: str
    key: str | None
    status: str
    origin: str
    confidence: float
    pinned: bool
    created_at: datetime
    modified_at: datetime
    expires_at: datetime | None
    superseded_by: str | None

    @classmethod
    def from_row(cls, row: Sequence[Any]) -> StoredMemory:
        """The memory of a row holding :data:`MEMORY_FIELDS` in order."""
        values = dict(zip(MEMORY_FIELDS, row, strict=True))
        for name in ("created_at", "modified_at", "expires_at"):
            if values[name] is not None:
                values[name] = parse_utc(values[name])
        values["pinned"] = bool(values["pinned"])
        return cls(**values)


MEMORY_FIELDS = tuple(field.name for field in fields(StoredMemory))
IN_FORCE = """
    SELECT id, category, pinned, content FROM memories
    WHERE status = 'active' AND (expires_at IS NULL OR expires_at > :now)
    ORDER BY pinned DESC, created_at DESC, pk DESC
"""


def unexpired(now: datetime) -> ColumnElement[bool]:
    """The clause of memories whose expiry has not passed."""
    return or_(MemoryRow.expires_at.is_(None), MemoryRow.expires_at > now)


def current(now: datetime) -> ColumnElement[bool]:
    """Confirmed memories in force: active and unexpired."""
    return and_(MemoryRow.status == "active", unexpired(now))


def get(db: Session, memory_id: str) -> MemoryRow | None:
    """The memory row with this id, or None."""
    return db.scalars(select(MemoryRow).where(MemoryRow.id == memory_id)).first()


def active_with(
    db: Session, *, normalized: str | None = None, key: str | None = None
) -> MemoryRow | None:
    """The active memory holding this normalised content (or this key), expired or not."""
    column, value = (
        (MemoryRow.normalized_content, normalized) if key is None else (MemoryRow.key, key)
    )
    return db.scalars(
        select(MemoryRow).where(MemoryRow.status == "active", column == value)
    ).first()


def add(db: Session, row: MemoryRow) -> MemoryRow:
    """Insert a memory row and flush it (the FTS trigger fires for active ones)."""
    db.add(row)
    db.flush()
    return row


def add_source(db: Session, memory_id: str, message_id: str | None, source_ref: str | None) -> None:
    """Link a memory to the message (or source reference) it came from."""
    db.add(MemorySourceRow(memory_id=memory_id, message_id=message_id, source_ref=source_ref))
    db.flush()


def sources(db: Session, memory_id: str) -> list[MemorySourceRow]:
    """The source links of a memory, oldest first."""
    query = select(MemorySourceRow).where(MemorySourceRow.memory_id == memory_id)
    return list(db.scalars(query.order_by(MemorySourceRow.pk)))


def retire(db: Session, row: MemoryRow, status: str, now: datetime) -> None:
    """Take an active memory out of force (``superseded`` or ``expired``), freeing its
    content and key for another active memory."""
    row.status = status
    row.modified_at = now
    db.flush()


def delete_memory(db: Session, row: MemoryRow) -> None:
    """Delete a memory and its source links; memories it superseded now point where it did."""
    db.execute(
        update(MemoryRow)
        .where(MemoryRow.superseded_by == row.id)
        .values(superseded_by=row.superseded_by)
    )
    db.execute(delete(MemoryRow).where(MemoryRow.pk == row.pk))


def page(
    db: Session,
    *,
    category: str | None,
    include_inactive: bool,
    now: datetime,
    limit: int,
    offset: int,
) -> tuple[list[MemoryRow], int]:
    """Memories newest first (pinned first among current ones) and the exact total."""
    conditions = [] if include_inactive else [current(now)]
    if category is not None:
        conditions.append(MemoryRow.category == category)
    total = db.scalar(select(func.count()).select_from(MemoryRow).where(*conditions)) or 0
    query = (
        select(MemoryRow)
        .where(*conditions)
        .order_by(MemoryRow.pinned.desc(), MemoryRow.modified_at.desc(), MemoryRow.pk.desc())
        .limit(limit)
        .offset(offset)
    )
    return list(db.scalars(query)), int(total)


def in_force(connection: sqlite3.Connection, now: datetime) -> list[tuple[str, str, bool, str]]:
    """(id, category, pinned, content) of every confirmed, unexpired memory: pinned first,
    then newest first. Plain rows: building ORM objects cost five times the query."""
    rows = connection.execute(IN_FORCE, {"now": format_utc(now)})
    return [(memory_id, category, bool(pinned), text) for memory_id, category, pinned, text in rows]
