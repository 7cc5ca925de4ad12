"""Word-level retrieval: the indexed vocabulary and every instance of a word.

Connection-local (temp) fts5vocab tables over the existing FTS5 indexes: no schema change
and no copy of the corpus. ``row`` tables give per-word counts; ``instance`` tables give each
occurrence (document rowid and token position). The same tokenizer folds the user's word in
a temp FTS5 probe table, so a word is compared exactly as SQLite indexed it.

A CJK word of several characters is no token of the index (each CJK character is one, see
:mod:`memstore.text.cjk`): its instances are the places where its characters stand at
consecutive positions, found by a window over their instance rows (:data:`SEQUENCE`).
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from memstore.queries import WordQuery
from memstore.repository.messages import filters_sql
from memstore.repository.recall import MEMORY_FILTERS
from memstore.store.fts_names import MEMORIES_FTS, MESSAGES_FTS
from memstore.text import cjk
from memstore.text.order import after_prefix
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

PROBE_INSERT = "INSERT INTO temp.word_probe (text) VALUES (:value)"
PROBE_CLEAR = "DELETE FROM temp.word_probe"
PROBE_TOKENS = "SELECT term FROM temp.word_probe_instance ORDER BY offset"
PROBE_HIGHLIGHT = (
    "SELECT highlight(word_probe, 0, :open, :close) FROM temp.word_probe "
    "WHERE word_probe MATCH :phrase"
)

# The instance rows (doc, offset, term) of a CJK sequence in one instance table: where its
# :last + 1 characters (:chars) stand at consecutive positions, its term the sequence.
SEQUENCE = """(SELECT doc, offset, term FROM (
        SELECT doc, offset, group_concat(term, '') OVER frame AS term,
               max(offset) OVER frame - offset AS spread
        FROM temp.{table} WHERE term IN (SELECT value FROM json_each(:chars))
        WINDOW frame AS (PARTITION BY doc ORDER BY offset
                         ROWS BETWEEN CURRENT ROW AND :last FOLLOWING))
    WHERE spread = :last)"""
WHOLE_TERM_BYTES = 32_768
"""FTS5 keeps a token of more UTF-8 bytes than this as its first this many, cut even inside a
character: such a term is no word of any text, so listings leave out every term this long
(found by review: one 200,000-letter token made ``words`` report the store damaged, and one
cut inside a character made every listing that reached it fail)."""
WHOLE = f"length(CAST({{term}} AS BLOB)) < {WHOLE_TERM_BYTES}"
VOCAB_TABLES = {"message": "messages_vocab_instance", "memory": "memories_vocab_instance"}
# Instances of the scope and filters as (source, doc pk, id, created_at, term, position):
# what the word counts of search_words are made from. :history / :memories switch each
# store on or off.
INSTANCES = f"""
    SELECT 'message' AS source_type, m.pk AS pk, m.id AS id, m.created_at AS created_at,
           i.term AS term, i.offset AS position
    FROM {{message}} AS i JOIN messages AS m ON m.pk = i.doc
    WHERE :history AND {{term}} AND {filters_sql("m")}
    UNION ALL
    SELECT 'memory', mem.pk, mem.id, mem.created_at, i.term, i.offset
    FROM {{memory}} AS i JOIN memories AS mem ON mem.pk = i.doc
    WHERE :memories AND {{term}} AND {MEMORY_FILTERS}
"""
PREFIX = (
    f"i.term >= :low AND i.term < :high AND i.term != :boundary AND {WHOLE.format(term='i.term')}"
)


def instance_sources(sequence: bool) -> dict[str, str]:
    """The instance rows of each source type: its vocabulary table, or for a CJK sequence
    the :data:`SEQUENCE` rows over it."""
    return {
        kind: SEQUENCE.format(table=table) if sequence else f"temp.{table}"
        for kind, table in VOCAB_TABLES.items()
    }


WORDS_INSTANCES = {
    sequence: INSTANCES.format(
        term="i.term = :low" if sequence else PREFIX, **instance_sources(sequence)
    )
    for sequence in (True, False)
}
WORDS = {
    sequence: f"""
    SELECT term, count(*) AS occurrences, count(DISTINCT source_type || pk) AS documents
    FROM ({instances}) GROUP BY term ORDER BY term LIMIT :limit OFFSET :offset"""
    for sequence, instances in WORDS_INSTANCES.items()
}
WORD_TOTAL = {
    sequence: f"SELECT count(DISTINCT term) FROM ({instances})"
    for sequence, instances in WORDS_INSTANCES.items()
}
# Unfiltered history: the row table already holds the counts, no instance scan needed.
HISTORY_RANGE = (
    f"term >= :low AND term < :high AND term != :boundary AND {WHOLE.format(term='term')}"
)
HISTORY_WORDS = f"""
    SELECT term, cnt AS occurrences, doc AS documents FROM temp.messages_vocab_row
    WHERE {HISTORY_RANGE} ORDER BY term LIMIT :limit OFFSET :offset
"""
# The total counts the range's whole terms, then takes the boundary token off when it is in
# it. The whole-term test has fts5vocab read every term's text: 0.65 ms against 0.60 for the
# 769 words of "co" in a 20k set.
HISTORY_WORD_TOTAL = f"""
    SELECT (SELECT count(*) FROM temp.messages_vocab_row
            WHERE term >= :low AND term < :high AND {WHOLE.format(term="term")})
           - (SELECT count(*) FROM temp.messages_vocab_row
              WHERE term = :boundary AND :boundary >= :low AND :boundary < :high)
"""


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
    """``value``'s index form tokenized and folded by SQLite's own tokenizer, in order (its
    boundary tokens left out)."""
    connection.execute(PROBE_INSERT, {"value": cjk.index_form(value) or value})
    try:
        return [term for (term,) in connection.execute(PROBE_TOKENS) if term != cjk.BOUNDARY]
    finally:
        connection.execute(PROBE_CLEAR)


def is_sequence(word: str) -> bool:
    """Whether the folded ``word`` is a CJK word of several characters (several tokens)."""
    return len(word) > 1 and cjk.is_cjk(word)


def sequence_params(word: str) -> dict[str, Any]:
    """The bound parameters of :data:`SEQUENCE` for the folded ``word``."""
    return {"chars": json.dumps(list(word)), "last": len(word) - 1}


def scope_params(query: WordQuery, now: datetime) -> dict[str, Any]:
    """The bound parameters that select the stores and apply the filters."""
    return {
        "history": query.history,
        "memories": query.memories,
        "now": format_utc(now),
        "boundary": cjk.BOUNDARY,
        **query.filters.params(),
    }


def words(
    connection: sqlite3.Connection, prefix: str, query: WordQuery, now: datetime
) -> tuple[list[WordCount], int]:
    """The page ``query`` asks for of the words starting with the folded ``prefix``, in
    alphabetical order, and their total (from the row table for unfiltered history). A CJK
    prefix of several characters is the one word it can start: itself."""
    sequence = is_sequence(prefix)
    bounds = {"low": prefix, "high": after_prefix(prefix), **scope_params(query, now)}
    bounds |= sequence_params(prefix)
    fast = query.unfiltered_history and not sequence
    page, total = (
        (HISTORY_WORDS, HISTORY_WORD_TOTAL) if fast else (WORDS[sequence], WORD_TOTAL[sequence])
    )
    rows = connection.execute(page, {**bounds, "limit": query.limit, "offset": query.offset})
    counted = [WordCount(*row) for row in rows]
    return counted, int(connection.execute(total, bounds).fetchone()[0] or 0)
