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

from memstore.queries import WordQuery
from memstore.repository.messages import filters_sql
from memstore.repository.recall import MEMORY_FILTERS
from memstore.store.fts_names import MEMORIES_FTS, MESSAGES_FTS
from memstore.times import format_utc

TEMP_TABLES = (
    "CREATE VIRTUAL TABLE IF NOT EXISTS temp.messages_vocab_row "
    f"USING fts5vocab(main, {MESSAGES_FTS}, row)",
    "CREATE VIRTUAL TABLE IF NOT EXISTS temp.messages_vocab_instance "
    f"USING fts5vocab(main, {MESSAGES_FTS}, instance)",
    "CREATE VIRTUAL TABLE IF NOT EXISTS temp.memories_vocab_instance "
    f"USING fts5vocab(main, {MEMORIES_FTS}, instance)",
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
    WHERE :history AND {{term}} AND {filters_sql("m")}
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


@dataclass(frozen=True)
class WordCount:
    """A vocabulary word with its occurrence and document counts."""

    word: str
    occurrences: int
    documents: int


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


def scope_params(query: WordQuery, now: datetime) -> dict[str, Any]:
    """The bound parameters that select the stores and apply the filters."""
    return {
        "history": query.history,
        "memories": query.memories,
        "now": format_utc(now),
        **query.filters.params(),
    }


def words(
    connection: sqlite3.Connection, prefix: str, query: WordQuery, now: datetime
) -> tuple[list[WordCount], int]:
    """The page ``query`` asks for of the words starting with the folded ``prefix``, in
    alphabetical order, and their total (from the row table for unfiltered history)."""
    bounds = {"low": prefix, "high": prefix + LAST_CHAR, **scope_params(query, now)}
    fast = query.unfiltered_history
    page, total = (HISTORY_WORDS, HISTORY_WORD_TOTAL) if fast else (WORDS, WORD_TOTAL)
    rows = connection.execute(page, {**bounds, "limit": query.limit, "offset": query.offset})
    counted = [WordCount(*row) for row in rows]
    return counted, int(connection.execute(total, bounds).fetchone()[0] or 0)
