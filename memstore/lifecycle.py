"""The memory lifecycle inside one write transaction: create, reuse, update, supersede.

Rules (the memory paragraphs of the Morgan design notes):
- normalised duplicate content reuses the active memory that holds it;
- new content under an active key supersedes the memory holding the key, atomically;
- ``supersedes=id`` supersedes that memory explicitly;
- an update keeps the memory's id, and supersedes any other active memory that holds its new
  content or key; updating a candidate confirms it;
- an extracted memory is a ``candidate`` and never supersedes a confirmed one;
- an active memory whose expiry has passed is marked ``expired`` when a write meets it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.orm import Session

from memstore.db import driver_connection
from memstore.errors import InvalidInput, NotFound
from memstore.models import MemoryRow, MessageRow, new_id
from memstore.repository import history as history_rows
from memstore.repository import memories as memory_rows
from memstore.repository.history import StoredMessage


@dataclass(frozen=True)
class Draft:
    """Validated fields of a memory write; None means "not given"."""

    content: str | None = None
    normalized: str | None = None
    category: str | None = None
    key: str | None = None
    expires_at: datetime | None = None
    origin: str = "explicit"
    confidence: float = 1.0


@dataclass(frozen=True)
class Source:
    """Where a memory came from: a message id, a source reference, or both."""

    message_id: str | None = None
    source_ref: str | None = None


def holder(
    db: Session, now: datetime, *, normalized: str | None = None, key: str | None = None
) -> MemoryRow | None:
    """The active, unexpired memory holding this content or key; an expired one found on the
    way is marked expired so that it frees the content or key."""
    if normalized is None and key is None:
        return None
    row = memory_rows.active_with(db, normalized=normalized, key=key)
    if row is not None and row.expires_at is not None and row.expires_at <= now:
        memory_rows.retire(db, row, "expired", now)
        return None
    return row


def supersede(db: Session, replaced: list[MemoryRow], by: MemoryRow, now: datetime) -> None:
    """Point each replaced memory (already retired) at the memory that replaced it."""
    for row in replaced:
        row.superseded_by = by.id
        row.modified_at = now
    db.flush()


def create(
    db: Session, draft: Draft, *, supersedes: str | None, source: Source | None, now: datetime
) -> MemoryRow:
    """Create a memory, or reuse the one with the same normalised content.

    Raises:
        NotFound: If ``supersedes`` or the source message does not exist.
        InvalidInput: If ``supersedes`` is not active, or a candidate would supersede.
    """
    assert draft.content is not None and draft.normalized is not None
    duplicate = holder(db, now, normalized=draft.normalized)
    if duplicate is not None:
        reused = update(db, duplicate, Draft(key=draft.key), now) if draft.key else duplicate
        link(db, reused, source)
        return reused
    candidate = draft.origin == "extracted"
    replaced = [] if candidate else targets(db, draft.key, supersedes, now)
    if candidate and supersedes is not None:
        raise InvalidInput("supersedes", "an extracted candidate cannot supersede a memory.")
    for row in replaced:
        memory_rows.retire(db, row, "superseded", now)
    row = memory_rows.add(db, new_row(draft, "candidate" if candidate else "active", now))
    supersede(db, replaced, row, now)
    link(db, row, source)
    return row


def targets(db: Session, key: str | None, supersedes: str | None, now: datetime) -> list[MemoryRow]:
    """The active memories a new one replaces: the explicit ``supersedes`` and the key's holder."""
    replaced: list[MemoryRow] = []
    if supersedes is not None:
        row = memory_rows.get(db, supersedes)
        if row is None:
            raise NotFound("memory", supersedes)
        if row.status != "active":
            raise InvalidInput("supersedes", f"memory {supersedes} is {row.status}, not active.")
        replaced.append(row)
    key_holder = holder(db, now, key=key)
    if key_holder is not None and key_holder not in replaced:
        replaced.append(key_holder)
    return replaced


def new_row(draft: Draft, status: str, now: datetime) -> MemoryRow:
    """A memory row for a draft with every field given."""
    return MemoryRow(
        id=new_id("mem"),
        content=draft.content,
        normalized_content=draft.normalized,
        category=draft.category or "fact",
        key=draft.key,
        status=status,
        origin=draft.origin,
        confidence=draft.confidence,
        pinned=False,
        created_at=now,
        modified_at=now,
        expires_at=draft.expires_at,
        superseded_by=None,
    )


def update(db: Session, row: MemoryRow, draft: Draft, now: datetime) -> MemoryRow:
    """Change a memory in place (its id stays); confirm it if it was a candidate.

    Raises:
        InvalidInput: If the memory was superseded.
    """
    if row.status == "superseded":
        raise InvalidInput(
            "memory_id", f"{row.id} was superseded by {row.superseded_by}; update that one."
        )
    normalized = draft.normalized or row.normalized_content
    key = draft.key or row.key
    holders = (holder(db, now, normalized=normalized), holder(db, now, key=key))
    replaced = list(dict.fromkeys(o for o in holders if o is not None and o.id != row.id))
    for other in replaced:
        memory_rows.retire(db, other, "superseded", now)
    apply(row, draft, now)
    db.flush()
    supersede(db, replaced, row, now)
    return row


def apply(row: MemoryRow, draft: Draft, now: datetime) -> None:
    """Copy the given fields of ``draft`` onto ``row`` and make it active."""
    if draft.content is not None:
        row.content, row.normalized_content = (
            draft.content,
            draft.normalized or row.normalized_content,
        )
    row.category = draft.category or row.category
    row.key = draft.key or row.key
    row.expires_at = draft.expires_at or row.expires_at
    if row.status != "active":
        row.status = "active"
    row.modified_at = now


def link(db: Session, row: MemoryRow, source: Source | None) -> None:
    """Record where the memory came from, resolving the message for a source reference.

    Raises:
        NotFound: If the source message id does not exist.
    """
    if source is None or (source.message_id is None and source.source_ref is None):
        return
    message: MessageRow | StoredMessage | None = None
    if source.message_id is not None:
        message = history_rows.get_message(db, source.message_id)
        if message is None:
            raise NotFound("message", source.message_id)
    elif source.source_ref is not None:
        message = history_rows.message_by_source(driver_connection(db), source.source_ref)
    ref = source.source_ref or (message.source_ref if message else None)
    memory_rows.add_source(db, row.id, message.id if message else None, ref)
