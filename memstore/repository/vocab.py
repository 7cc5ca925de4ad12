"""Word-level retrieval: the indexed vocabulary and every instance of a word.

Connection-local (temp) fts5vocab tables over the existing FTS5 indexes: no schema change
and no copy of the corpus. ``row`` tables give per-word counts; ``instance`` tables give each
occurrence (document rowid and token position). The same tokenizer folds the user's word in
a temp FTS5 probe table, so a word is compared exactly as SQLite indexed it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import text
from sqlalchemy.orm import Session

from memstore.models import format_utc, parse_utc
from memstore.repository.search import Filters

TEMP_TABLES = (
    "CREATE VIRTUAL TABLE IF NOT EXISTS temp.messages_vocab_row "
    "USING fts5vocab(main, messages_fts, row)",
    "CREATE VIRTUAL TABLE IF NOT EXISTS temp.messages_vocab_instance "
    "USING fts5vocab(main, messages_fts, instance)",
    "CREATE VIRTUAL TABLE IF NOT EXISTS temp.memories_vocab_instance "
    "USING fts5vocab(main, memories_fts, instance)",
    "CREATE VIRTUAL TABLE IF NOT EXISTS temp.word_probe "
    "USING fts5(text, tokenize='unicode61 remove_diacritics 2')",
    "CREATE VIRTUAL TABLE IF NOT EXISTS temp.word_probe_instance "
    "USING fts5vocab(temp, word_probe, instance)",
)
LAST_CHAR = "\U0010ffff"  # above every token character, so [p, p + LAST_CHAR) holds p*

PROBE_TOKENS = text("SELECT term FROM temp.word_probe_instance ORDER BY offset")

# Instances of the scope and filters as (source, doc pk, id, created_at, term, position).
# :history / :memories switch each store on or off.
INSTANCES = """
    SELECT 'message' AS source_type, m.pk AS pk, m.id AS id, m.created_at AS created_at,
           i.term AS term, i.offset AS position
    FROM temp.messages_vocab_instance AS i JOIN messages AS m ON m.pk = i.doc
    WHERE :history AND {term}
      AND (:session_id IS NULL OR m.session_id = :session_id)
      AND (:role IS NULL OR m.role = :role)
      AND (:since IS NULL OR m.created_at >= :since)
      AND (:until IS NULL OR m.created_at < :until)
    UNION ALL
    SELECT 'memory', mem.pk, mem.id, mem.created_at, i.term, i.offset
    FROM temp.memories_vocab_instance AS i JOIN memories AS mem ON mem.pk = i.doc
    WHERE :memories AND {term}
      AND mem.status = 'active' AND (mem.expires_at IS NULL OR mem.expires_at > :now)
      AND (:since IS NULL OR mem.created_at >= :since)
      AND (:until IS NULL OR mem.created_at < :until)
      AND ((:session_id IS NULL AND :role IS NULL) OR EXISTS (
          SELECT 1 FROM memory_sources AS link JOIN messages AS s ON s.id = link.message_id
          WHERE link.memory_id = mem.id
            AND (:session_id IS NULL OR s.session_id = :session_id)
            AND (:role IS NULL OR s.role = :role)))
"""
PREFIX = "i.term >= :low AND i.term < :high"
EXACT = "i.term = :word"

WORDS = text(
    f"""
    SELECT term, count(*) AS occurrences, count(DISTINCT source_type || pk) AS documents
    FROM ({INSTANCES.format(term=PREFIX)})
    GROUP BY term ORDER BY term LIMIT :limit OFFSET :offset
    """
)
WORD_TOTAL = text(f"SELECT count(DISTINCT term) FROM ({INSTANCES.format(term=PREFIX)})")
# Unfiltered history: the row table already holds the counts, no instance scan needed.
HISTORY_WORDS = text(
    """
    SELECT term, cnt AS occurrences, doc AS documents FROM temp.messages_vocab_row
    WHERE term >= :low AND term < :high ORDER BY term LIMIT :limit OFFSET :offset
    """
)
HISTORY_WORD_TOTAL = text(
    "SELECT count(*) FROM temp.messages_vocab_row WHERE term >= :low AND term < :high"
)
INSTANCE_PAGE = text(
    f"""
    SELECT source_type, pk, id, created_at, position FROM ({INSTANCES.format(term=EXACT)})
    ORDER BY created_at DESC, source_type, id, position
    LIMIT :limit OFFSET :offset
    """
)
INSTANCE_TOTAL = text(f"SELECT count(*) FROM ({INSTANCES.format(term=EXACT)})")
POSITIONS = {
    "message": text(
        "SELECT offset FROM temp.messages_vocab_instance WHERE term = :word AND doc = :pk "
        "ORDER BY offset"
    ),
    "memory": text(
        "SELECT offset FROM temp.memories_vocab_instance WHERE term = :word AND doc = :pk "
        "ORDER BY offset"
    ),
}
HIGHLIGHT = {
    "message": text(
        "SELECT highlight(messages_fts, 0, :open, :close) FROM messages_fts "
        "WHERE messages_fts MATCH :phrase AND rowid = :pk"
    ),
    "memory": text(
        "SELECT highlight(memories_fts, 0, :open, :close) FROM memories_fts "
        "WHERE memories_fts MATCH :phrase AND rowid = :pk"
    ),
}
DOCUMENT = {
    "message": text(
        "SELECT content, session_id, role, sequence, source_ref FROM messages WHERE pk = :pk"
    ),
    "memory": text(
        "SELECT content, NULL AS session_id, NULL AS role, NULL AS sequence, "
        "NULL AS source_ref FROM memories WHERE pk = :pk"
    ),
}


@dataclass(frozen=True)
class WordCount:
    """A vocabulary word with its occurrence and document counts."""

    word: str
    occurrences: int
    documents: int


@dataclass(frozen=True)
class InstanceRef:
    """One occurrence: which record and which token position."""

    source_type: str
    pk: int
    id: str
    created_at: datetime
    position: int


@dataclass(frozen=True)
class Document:
    """The text of a record holding instances, and its history fields (None for memories)."""

    content: str
    session_id: str | None
    role: str | None
    sequence: int | None
    source_ref: str | None


def prepare(db: Session) -> None:
    """Create this connection's temp vocabulary and probe tables (once per connection)."""
    for statement in TEMP_TABLES:
        db.execute(text(statement))


def tokens(db: Session, value: str) -> list[str]:
    """``value`` tokenized and folded by SQLite's own tokenizer, in order."""
    db.execute(text("INSERT INTO temp.word_probe (text) VALUES (:value)"), {"value": value})
    try:
        return [term for (term,) in db.execute(PROBE_TOKENS)]
    finally:
        db.execute(text("DELETE FROM temp.word_probe"))


def scope_params(scope: str, filters: Filters, now: datetime) -> dict[str, Any]:
    """The bound parameters that select the stores and apply the filters."""
    return {
        "history": scope in ("history", "all"),
        "memories": scope in ("memories", "all"),
        "now": format_utc(now),
        **filters.params(),
    }


def unfiltered_history(scope: str, filters: Filters) -> bool:
    """True when the row table's counts answer the query directly."""
    return scope == "history" and not any(filters.params().values())


def words(
    db: Session, prefix: str, params: dict[str, Any], fast: bool, limit: int, offset: int
) -> tuple[list[WordCount], int]:
    """Words starting with the folded ``prefix`` in alphabetical order, and their total."""
    bounds = {"low": prefix, "high": prefix + LAST_CHAR, **params}
    page, total = (HISTORY_WORDS, HISTORY_WORD_TOTAL) if fast else (WORDS, WORD_TOTAL)
    rows = db.execute(page, {**bounds, "limit": limit, "offset": offset})
    counted = [WordCount(row.term, row.occurrences, row.documents) for row in rows]
    return counted, int(db.scalar(total, bounds) or 0)


def instances(
    db: Session, word: str, params: dict[str, Any], limit: int, offset: int
) -> tuple[list[InstanceRef], int]:
    """A page of the occurrences of the folded ``word`` (newest record first, then source
    type, id and position), and their total."""
    bound = {"word": word, **params}
    rows = db.execute(INSTANCE_PAGE, {**bound, "limit": limit, "offset": offset})
    page = [
        InstanceRef(r.source_type, r.pk, r.id, parse_utc(r.created_at), r.position) for r in rows
    ]
    return page, int(db.scalar(INSTANCE_TOTAL, bound) or 0)


def positions(db: Session, source_type: str, pk: int, word: str) -> list[int]:
    """Every token position of ``word`` in one record, ascending."""
    rows = db.execute(POSITIONS[source_type], {"word": word, "pk": pk})
    return [position for (position,) in rows]


def document(db: Session, source_type: str, pk: int) -> Document:
    """The text and history fields of one record."""
    row = db.execute(DOCUMENT[source_type], {"pk": pk}).one()
    return Document(row.content, row.session_id, row.role, row.sequence, row.source_ref)


def highlighted(db: Session, source_type: str, pk: int, word: str, markers: Sequence[str]) -> str:
    """The record's text with every token matching ``word`` wrapped in ``markers``."""
    open_mark, close_mark = markers
    phrase = '"' + word.replace('"', '""') + '"'
    params = {"open": open_mark, "close": close_mark, "phrase": phrase, "pk": pk}
    return str(db.execute(HIGHLIGHT[source_type], params).scalar_one())
