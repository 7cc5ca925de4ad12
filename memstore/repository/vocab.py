"""Word-level retrieval: the indexed vocabulary and every instance of a word.

Connection-local (temp) fts5vocab tables over the existing FTS5 indexes: no schema change
and no copy of the corpus. ``row`` tables give per-word counts; ``instance`` tables give each
occurrence (document rowid and token position). The same tokenizer folds the user's word in
a temp FTS5 probe table, so a word is compared exactly as SQLite indexed it.
"""

from __future__ import annotations

import bisect
import json
import sqlite3
from collections.abc import Sequence
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
NUL = "\x00"
NUL_STAND_IN = "\x01"  # a separator, as NUL is, that highlight() copies through

# Instances of the scope and filters as (source, doc pk, id, created_at, term, position).
# :history / :memories switch each store on or off.
MESSAGE_INSTANCES = """
    SELECT 'message' AS source_type, m.pk AS pk, m.id AS id, m.created_at AS created_at,
           i.term AS term, i.offset AS position
    FROM temp.messages_vocab_instance AS i JOIN messages AS m ON m.pk = i.doc"""
INSTANCES = f"""{MESSAGE_INSTANCES}
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
EXACT = "i.term = :word"

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
# A page of instances (newest record first) with each record's text and history fields,
# joined to the page's rows only. Unfiltered history (the common case) reads the messages'
# instances alone, without the union and the filter clauses.
PAGE = """
    SELECT page.source_type, page.pk, page.id, page.created_at, page.position,
           coalesce(m.content, mem.content) AS content, m.session_id, m.role, m.sequence,
           m.source_ref
    FROM (SELECT source_type, pk, id, created_at, position FROM ({instances})
          ORDER BY created_at DESC, source_type, id, position
          LIMIT :limit OFFSET :offset) AS page
    LEFT JOIN messages AS m ON page.source_type = 'message' AND m.pk = page.pk
    LEFT JOIN memories AS mem ON page.source_type = 'memory' AND mem.pk = page.pk
    ORDER BY page.created_at DESC, page.source_type, page.id, page.position
"""
INSTANCE_PAGE = PAGE.format(instances=INSTANCES.format(term=EXACT))
HISTORY_INSTANCE_PAGE = PAGE.format(instances=f"{MESSAGE_INSTANCES} WHERE {EXACT}")
# Every position of the word in the given records of one store: a record's n-th
# highlighted region is the instance at its n-th position. (Counting them in SQL, with a
# row_number() window or a correlated count over every instance of the word, measured
# slower on a common word than this second, narrow read.)
POSITIONS = {
    source_type: f"SELECT doc, offset FROM temp.{table} "
    "WHERE term = :word AND doc IN (SELECT value FROM json_each(:docs))"
    for source_type, table in (
        ("message", "messages_vocab_instance"),
        ("memory", "memories_vocab_instance"),
    )
}
INSTANCE_TOTAL = f"SELECT count(*) FROM ({INSTANCES.format(term=EXACT)})"
HISTORY_INSTANCE_TOTAL = "SELECT cnt FROM temp.messages_vocab_row WHERE term = :word"
# The highlighted text, and whether it holds NUL (see :func:`highlighted`).
HIGHLIGHT = {
    "message": (
        "SELECT highlight(messages_fts, 0, :open, :close) AS marked, "
        "instr(content, char(0)) > 0 AS has_nul FROM messages_fts "
        "WHERE messages_fts MATCH :phrase AND rowid = :pk"
    ),
    "memory": (
        "SELECT highlight(memories_fts, 0, :open, :close) AS marked, "
        "instr(content, char(0)) > 0 AS has_nul FROM memories_fts "
        "WHERE memories_fts MATCH :phrase AND rowid = :pk"
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
    """One occurrence: its record (with the record's text and history fields, None for
    memories), its token position, and its rank among the word's instances in the record."""

    source_type: str
    pk: int
    id: str
    created_at: datetime
    position: int
    nth: int
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
) -> tuple[list[InstanceRef], int]:
    """A page of the occurrences of the folded ``word`` (newest record first, then source
    type, id and position), and their total (from the row table when ``fast``: unfiltered
    history)."""
    bound = {"word": word, **params}
    page_query = HISTORY_INSTANCE_PAGE if fast else INSTANCE_PAGE
    rows = connection.execute(page_query, {**bound, "limit": limit, "offset": offset}).fetchall()
    ranks = positions(connection, word, {(row[0], row[1]) for row in rows})
    page = [
        InstanceRef(
            source_type,
            pk,
            id_,
            parse_utc(created_at),
            position,
            bisect.bisect_left(ranks[source_type, pk], position),
            *rest,
        )
        for source_type, pk, id_, created_at, position, *rest in rows
    ]
    total = connection.execute(HISTORY_INSTANCE_TOTAL if fast else INSTANCE_TOTAL, bound)
    found = total.fetchone()
    return page, int(found[0] or 0) if found else 0


def positions(
    connection: sqlite3.Connection, word: str, records: set[tuple[str, int]]
) -> dict[tuple[str, int], list[int]]:
    """Every token position of ``word`` in each of the ``(source_type, pk)`` records, in
    order."""
    found: dict[tuple[str, int], list[int]] = {record: [] for record in records}
    for source_type, query in POSITIONS.items():
        docs = [pk for kind, pk in records if kind == source_type]
        if docs:
            params = {"word": word, "docs": json.dumps(docs)}
            for doc, position in connection.execute(query, params):
                found[source_type, doc].append(position)
    for ranked in found.values():
        ranked.sort()
    return found


def highlighted(
    connection: sqlite3.Connection,
    source_type: str,
    pk: int,
    content: str,
    word: str,
    markers: Sequence[str],
) -> str:
    """The record's text with every token matching ``word`` wrapped in ``markers``.

    highlight() copies the text between markers as C strings, so it drops whatever follows
    a NUL character up to the next marker. A record holding NUL is highlighted in the probe
    table instead, with each NUL read as U+0001 (both separate words alike), and the markers
    are then put back into the original text.
    """
    open_mark, close_mark = markers
    phrase = '"' + word.replace('"', '""') + '"'
    params = {"open": open_mark, "close": close_mark, "phrase": phrase, "pk": pk}
    marked, has_nul = connection.execute(HIGHLIGHT[source_type], params).fetchone()
    if not has_nul:
        return str(marked)
    connection.execute(PROBE_INSERT, {"value": content.replace(NUL, NUL_STAND_IN)})
    try:
        (marked,) = connection.execute(PROBE_HIGHLIGHT, params).fetchone()
    finally:
        connection.execute(PROBE_CLEAR)
    spans = lexical.marked_spans(str(marked), open_mark, close_mark)
    return lexical.mark(content, spans, open_mark, close_mark)
