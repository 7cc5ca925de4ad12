"""Recall queries over the FTS5 indexes.

One shape everywhere: MATCH and bm25() run in a subquery whose FROM is the FTS table alone;
the base table's filters go outside, joined by rowid (the ``pk`` column).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select, text
from sqlalchemy.orm import Session

from memstore.models import MemoryRow, format_utc, parse_utc

HISTORY_HITS = text(
    """
    SELECT m.id, m.session_id, m.sequence, m.role, m.content, m.created_at, m.status,
           m.source_ref, hits.rank
    FROM (SELECT rowid AS pk, bm25(messages_fts) AS rank
          FROM messages_fts WHERE messages_fts MATCH :query) AS hits
    JOIN messages AS m ON m.pk = hits.pk
    WHERE (:session_id IS NULL OR m.session_id = :session_id)
      AND (:role IS NULL OR m.role = :role)
      AND (:since IS NULL OR m.created_at >= :since)
      AND (:until IS NULL OR m.created_at < :until)
    ORDER BY hits.rank, m.pk
    """
)


MEMORY_HITS = text(
    """
    SELECT mem.*
    FROM (SELECT rowid AS pk, bm25(memories_fts) AS rank
          FROM memories_fts WHERE memories_fts MATCH :query) AS hits
    JOIN memories AS mem ON mem.pk = hits.pk
    WHERE mem.status = 'active' AND (mem.expires_at IS NULL OR mem.expires_at > :now)
      AND (:since IS NULL OR mem.created_at >= :since)
      AND (:until IS NULL OR mem.created_at < :until)
      AND ((:session_id IS NULL AND :role IS NULL) OR EXISTS (
          SELECT 1 FROM memory_sources AS link JOIN messages AS m ON m.id = link.message_id
          WHERE link.memory_id = mem.id
            AND (:session_id IS NULL OR m.session_id = :session_id)
            AND (:role IS NULL OR m.role = :role)))
    ORDER BY hits.rank, mem.pk
    LIMIT :limit
    """
)


REQUEST_BEFORE = text(
    """
    SELECT id, session_id, sequence, role, content, created_at, status, source_ref
    FROM messages
    WHERE session_id = :session_id AND sequence < :sequence
      AND role = 'user' AND status = 'completed'
    ORDER BY sequence DESC
    LIMIT 1
    """
)


@dataclass(frozen=True)
class StoredMessage:
    """A message row as recall shows it."""

    id: str
    session_id: str
    sequence: int
    role: str
    content: str
    created_at: datetime
    status: str
    source_ref: str | None


@dataclass(frozen=True)
class MessageHit(StoredMessage):
    """A message that matched a query, with its bm25 rank (lower is better)."""

    rank: float


@dataclass(frozen=True)
class Filters:
    """Recall filters on the matched record: session, role, and [since, until) in UTC."""

    session_id: str | None = None
    role: str | None = None
    since: datetime | None = None
    until: datetime | None = None

    def params(self) -> dict[str, str | None]:
        """The bound parameters of the filter clauses."""
        return {
            "session_id": self.session_id,
            "role": self.role,
            "since": None if self.since is None else format_utc(self.since),
            "until": None if self.until is None else format_utc(self.until),
        }


def history_hits(db: Session, match: str, filters: Filters) -> Iterator[MessageHit]:
    """Matching searchable messages, best bm25 rank first, fetched lazily."""
    rows = db.execute(HISTORY_HITS, {"query": match, **filters.params()})
    for row in rows:
        yield MessageHit(
            id=row.id,
            session_id=row.session_id,
            sequence=row.sequence,
            role=row.role,
            content=row.content,
            created_at=parse_utc(row.created_at),
            status=row.status,
            source_ref=row.source_ref,
            rank=row.rank,
        )


def request_before(db: Session, session_id: str, sequence: int) -> StoredMessage | None:
    """The closest completed user message before ``sequence`` in the session, past any
    assistant, system or unfinished messages in between; None when there is none."""
    row = db.execute(REQUEST_BEFORE, {"session_id": session_id, "sequence": sequence}).first()
    if row is None:
        return None
    return StoredMessage(
        id=row.id,
        session_id=row.session_id,
        sequence=row.sequence,
        role=row.role,
        content=row.content,
        created_at=parse_utc(row.created_at),
        status=row.status,
        source_ref=row.source_ref,
    )


def memory_hits(
    db: Session, match: str, filters: Filters, now: datetime, limit: int
) -> list[MemoryRow]:
    """Matching active, unexpired memories, best bm25 rank first, at most ``limit``.

    Session and role filters go through the memory's source messages, so a memory with no
    source message never matches them; since / until filter its creation time.
    """
    params = {"query": match, "now": format_utc(now), "limit": limit, **filters.params()}
    return list(db.scalars(select(MemoryRow).from_statement(MEMORY_HITS), params))
