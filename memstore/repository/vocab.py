"""Word-level retrieval: the indexed vocabulary and every instance of a word.

Connection-local (temp) fts5vocab tables over the existing FTS5 indexes: no schema change
and no copy of the corpus. ``row`` tables give per-word counts; ``instance`` tables give each
occurrence (document rowid and token position). The same tokenizer folds the user's word in
a temp FTS5 probe table, so a word is compared exactly as SQLite indexed it.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from memstore import lexical
from memstore.models import format_utc, parse_utc
from memstore.repository.search import MEMORY_FILTERS, Filters

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
PREPARED = "SELECT 1 FROM temp.sqlite_master WHERE name = 'word_probe_instance'"
LAST_CHAR = "\U0010ffff"  # above every token character, so [p, p + LAST_CHAR) holds p*

PROBE_INSERT = "INSERT INTO temp.word_probe (text) VALUES (:value)"
PROBE_CLEAR = "DELETE FROM temp.word_probe"
PROBE_TOKENS = "SELECT term FROM temp.word_probe_instance ORDER BY offset"
PROBE_HIGHLIGHT = (
    "SELECT highlight(word_probe, 0, :open, :close) FROM temp.word_probe "
    "WHERE word_probe MATCH :phrase"
)

# Instances of the scope and filters as (source, doc pk, id, created_at, term, position):
# what the word counts of search_words are made from. :history / :memories switch each
# store on or off.
INSTANCES = f"""
    SELECT 'message' AS source_type, m.pk AS pk, m.id AS id, m.created_at AS created_at,
           i.term AS term, i.offset AS position
    FROM temp.messages_vocab_instance AS i JOIN messages AS m ON m.pk = i.doc
    WHERE :history AND {{term}}
      AND (:session_id IS NULL OR m.session_id = :session_id)
      AND (:role IS NULL OR m.role = :role)
      AND (:since IS NULL OR m.created_at >= :since)
      AND (:until IS NULL OR m.created_at < :until)
    UNION ALL
    SELECT 'memory', mem.pk, mem.id, mem.created_at, i.term, i.offset
    FROM temp.memories_vocab_instance AS i JOIN memories AS mem ON mem.pk = i.doc
    WHERE :memories AND {{term}} AND {MEMORY_FILTERS}
"""
PREFIX = "i.term >= :low AND i.term < :high"

WORDS = f"""
    SELECT term, count(*) AS occurrences, count(DISTINCT source_type || pk) AS documents
    FROM ({INSTANCES.format(term=PREFIX)})
    GROUP BY term ORDER BY term LIMIT :limit OFFSET :offset
"""
WORD_TOTAL = f"SELECT count(DISTINCT term) FROM ({INSTANCES.format(term=PREFIX)})"
# Unfiltered history: the row table already holds the counts, no instance scan needed.
HISTORY_WORDS = """
    SELECT term, cnt AS occurrences, doc AS documents FROM temp.messages_vocab_row
    WHERE term >= :low AND term < :high ORDER BY term LIMIT :limit OFFSET :offset
"""
HISTORY_WORD_TOTAL = (
    "SELECT count(*) FROM temp.messages_vocab_row WHERE term >= :low AND term < :high"
)
# How many instances of the word each record of the scope and filters holds. The page is
# found from these counts (a running sum in page order), so that its cost grows with the
# records holding the word, not with every instance of it: one message holding a word
# 400,000 times is one row here.
MESSAGE_COUNTS = """
    SELECT 'message' AS source_type, m.pk AS pk, m.id AS id, m.created_at AS created_at,
           hits.n AS n
    FROM (SELECT doc, count(*) AS n FROM temp.messages_vocab_instance
          WHERE term = :word GROUP BY doc) AS hits
    JOIN messages AS m ON m.pk = hits.doc"""
RECORD_COUNTS = f"""{MESSAGE_COUNTS}
    WHERE :history
      AND (:session_id IS NULL OR m.session_id = :session_id)
      AND (:role IS NULL OR m.role = :role)
      AND (:since IS NULL OR m.created_at >= :since)
      AND (:until IS NULL OR m.created_at < :until)
    UNION ALL
    SELECT 'memory', mem.pk, mem.id, mem.created_at, hits.n
    FROM (SELECT doc, count(*) AS n FROM temp.memories_vocab_instance
          WHERE term = :word GROUP BY doc) AS hits
    JOIN memories AS mem ON mem.pk = hits.doc
    WHERE :memories AND {MEMORY_FILTERS}
"""
# The records a page [offset, offset + limit) of instances covers (newest record first,
# then source type and id), each with how many instances come before it, its text and its
# history fields.
PAGE = """
    WITH counted AS ({counts}),
    ranked AS (
        SELECT *, sum(n) OVER (ORDER BY created_at DESC, source_type, id
                               ROWS UNBOUNDED PRECEDING) AS upto
        FROM counted)
    SELECT ranked.source_type, ranked.pk, ranked.id, ranked.created_at, ranked.upto - ranked.n,
           coalesce(m.content, mem.content), m.session_id, m.role, m.sequence, m.source_ref
    FROM ranked
    LEFT JOIN messages AS m ON ranked.source_type = 'message' AND m.pk = ranked.pk
    LEFT JOIN memories AS mem ON ranked.source_type = 'memory' AND mem.pk = ranked.pk
    WHERE ranked.upto > :offset AND ranked.upto - ranked.n < :offset + :limit
    ORDER BY ranked.upto
"""
INSTANCE_PAGE = PAGE.format(counts=RECORD_COUNTS)
HISTORY_INSTANCE_PAGE = PAGE.format(counts=MESSAGE_COUNTS)
INSTANCE_TOTAL = f"SELECT coalesce(sum(n), 0) FROM ({RECORD_COUNTS})"
HISTORY_INSTANCE_TOTAL = "SELECT cnt FROM temp.messages_vocab_row WHERE term = :word"
# The token positions of the word in one record, in order, from its skip-th.
POSITIONS = {
    source_type: f"SELECT offset FROM temp.{table} WHERE term = :word AND doc = :pk "
    "ORDER BY offset LIMIT :take OFFSET :skip"
    for source_type, table in (
        ("message", "messages_vocab_instance"),
        ("memory", "memories_vocab_instance"),
    )
}


@dataclass(frozen=True)
class WordCount:
    """A vocabulary word with its occurrence and document counts."""

    word: str
    occurrences: int
    documents: int


@dataclass(frozen=True)
class PageRecord:
    """A record holding instances of a page: which of its instances the page shows (from
    its ``skip``-th, their token positions in order), its text and its history fields (None
    for memories)."""

    source_type: str
    pk: int
    id: str
    created_at: datetime
    skip: int
    positions: list[int]
    content: str
    session_id: str | None
    role: str | None
    sequence: int | None
    source_ref: str | None


def prepare(connection: sqlite3.Connection) -> None:
    """Create this connection's temp vocabulary and probe tables, once per connection (the
    pool keeps connections, and their temp tables, between units of work)."""
    if connection.execute(PREPARED).fetchone() is None:
        for statement in TEMP_TABLES:
            connection.execute(statement)


def tokens(connection: sqlite3.Connection, value: str) -> list[str]:
    """``value`` tokenized and folded by SQLite's own tokenizer, in order."""
    connection.execute(PROBE_INSERT, {"value": value})
    try:
        return [term for (term,) in connection.execute(PROBE_TOKENS)]
    finally:
        connection.execute(PROBE_CLEAR)


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
    connection: sqlite3.Connection,
    prefix: str,
    params: dict[str, Any],
    fast: bool,
    limit: int,
    offset: int,
) -> tuple[list[WordCount], int]:
    """Words starting with the folded ``prefix`` in alphabetical order, and their total."""
    bounds = {"low": prefix, "high": prefix + LAST_CHAR, **params}
    page, total = (HISTORY_WORDS, HISTORY_WORD_TOTAL) if fast else (WORDS, WORD_TOTAL)
    rows = connection.execute(page, {**bounds, "limit": limit, "offset": offset})
    counted = [WordCount(*row) for row in rows]
    return counted, int(connection.execute(total, bounds).fetchone()[0] or 0)


def instances(
    connection: sqlite3.Connection,
    word: str,
    params: dict[str, Any],
    fast: bool,
    limit: int,
    offset: int,
) -> tuple[list[PageRecord], int]:
    """The records of a page of the occurrences of the folded ``word`` (newest record first,
    then source type, id and position), each with the token positions the page shows, and
    the exact total (from the row table when ``fast``: unfiltered history)."""
    bound = {"word": word, **params}
    page_query = HISTORY_INSTANCE_PAGE if fast else INSTANCE_PAGE
    rows = connection.execute(page_query, {**bound, "limit": limit, "offset": offset})
    page: list[PageRecord] = []
    for source_type, pk, id_, created_at, before, *rest in rows.fetchall():
        skip = max(offset - before, 0)  # the record's instances before the page's first
        take = offset + limit - before - skip  # the LIMIT stops at the record's last
        params = {"word": word, "pk": pk, "skip": skip, "take": take}
        positions = [position for (position,) in connection.execute(POSITIONS[source_type], params)]
        page.append(PageRecord(source_type, pk, id_, parse_utc(created_at), skip, positions, *rest))
    total = connection.execute(HISTORY_INSTANCE_TOTAL if fast else INSTANCE_TOTAL, bound)
    found = total.fetchone()
    return page, int(found[0] or 0) if found else 0


def highlighted(connection: sqlite3.Connection, piece: str, word: str) -> str | None:
    """``piece`` with every token matching ``word`` wrapped in the markers of
    :mod:`memstore.lexical`, by SQLite's own tokenizer in the probe table; None when it
    holds no such token. The piece must come from :func:`lexical.pieces` (no marker
    characters, cut between tokens)."""
    params = {
        "open": lexical.OPEN,
        "close": lexical.CLOSE,
        "phrase": '"' + word.replace('"', '""') + '"',
        "value": piece,
    }
    connection.execute(PROBE_INSERT, params)
    try:
        found = connection.execute(PROBE_HIGHLIGHT, params).fetchone()
    finally:
        connection.execute(PROBE_CLEAR)
    return None if found is None else str(found[0])


def located(
    connection: sqlite3.Connection, content: str, word: str, skip: int, take: int
) -> list[tuple[int, int]]:
    """The ``[start, end)`` character spans of the record's instances of ``word`` from its
    ``skip``-th, at most ``take``: the text is highlighted a piece at a time until they are
    found (see :mod:`memstore.lexical`)."""
    spans: list[tuple[int, int]] = []
    seen = 0
    for start, piece in lexical.pieces(content):
        marked = highlighted(connection, piece, word)
        for low, high in lexical.marked_spans(marked) if marked is not None else ():
            if seen >= skip:
                spans.append((start + low, start + high))
                if len(spans) == take:
                    return spans
            seen += 1
    return spans
