"""Pages of the instances of one word, and their places in each record's text.

Instances come from the connection-local fts5vocab ``instance`` tables (see
:mod:`memstore.repository.words`, which creates them). A page is found one of two ways,
chosen by how crowded the word is (the row table's occurrences against documents):

- spread over many records (most words): the instance rows themselves, ordered and cut by
  SQLite (``ORDER BY ... LIMIT``), the rank of the first record's first shown instance
  counted from a read of its positions (on a page after the first; the other records start
  at their first instance);
- crowded into few records (one message holding a word 400,000 times): per-record counts with
  a running sum, so that only the records the page covers are read, each from its first
  shown instance.

Places come from SQLite's own tokenizer through highlight() (see :mod:`memstore.text.highlight`
and :mod:`memstore.repository.instance_offsets`):
on the FTS table itself for a short record without marker characters, else on the record's
pieces in the probe table, up to the page's last instance. The short records of a page are
highlighted together, one statement over the span of their pks (each MATCH statement pays for
finding the word in every index segment: 40-80 microseconds here, more than highlighting a
record), unless the span would pass over many more of the word's records than it shows.
A record with a CJK character is indexed as its index form, whose offsets are not the
text's: its places come from the token spans :func:`memstore.text.tokens.index_spans`
finds, the same tokens (a test walks all of Unicode to show it). So do a CJK sequence's,
which span several tokens.
"""

from __future__ import annotations

import bisect
import json
import sqlite3
from dataclasses import dataclass
from datetime import datetime
from itertools import groupby
from typing import Any

from memstore.kinds import Role, SourceType
from memstore.queries import WordQuery
from memstore.repository.messages import filters_sql
from memstore.repository.recall import MEMORY_FILTERS
from memstore.repository.stored_values import MAYBE_INTEGER, MAYBE_TEXT, TEXT_VALUE, typed_row
from memstore.repository.words import (
    instance_sources,
    is_sequence,
    scope_params,
    sequence_params,
)
from memstore.times import parse_utc

FILTERS = f" AND {filters_sql('m')}"
FIELDS = (
    "coalesce(m.content, mem.content), m.session_id, m.role, m.sequence, m.source_ref, "
    "coalesce(m.index_text, mem.index_text)"
)
RECORD_JOINS = """
    LEFT JOIN messages AS m ON page.source_type = 'message' AND m.pk = page.pk
    LEFT JOIN memories AS mem ON page.source_type = 'memory' AND mem.pk = page.pk"""
# Instance rows (source, record pk, id, created_at, position) of the scope and filters.
MESSAGE_ROWS = """
    SELECT 'message' AS source_type, m.pk AS pk, m.id AS id, m.created_at AS created_at,
           i.offset AS position
    FROM {message} AS i JOIN messages AS m ON m.pk = i.doc
    WHERE i.term = :word"""
ROWS = f"""{MESSAGE_ROWS} AND :history {FILTERS}
    UNION ALL
    SELECT 'memory', mem.pk, mem.id, mem.created_at, i.offset
    FROM {{memory}} AS i JOIN memories AS mem ON mem.pk = i.doc
    WHERE i.term = :word AND :memories AND {MEMORY_FILTERS}
"""
ROWS_PAGE = """
    SELECT page.source_type, page.pk, page.id, page.created_at, page.position, {fields}
    FROM (SELECT * FROM ({rows}) ORDER BY created_at DESC, source_type, id, position
          LIMIT :limit OFFSET :offset) AS page {joins}
    ORDER BY page.created_at DESC, page.source_type, page.id, page.position
"""
# Instances per record (source, record pk, id, created_at, n) of the scope and filters.
MESSAGE_COUNTS = """
    SELECT 'message' AS source_type, m.pk AS pk, m.id AS id, m.created_at AS created_at,
           hits.n AS n
    FROM (SELECT doc, count(*) AS n FROM temp.messages_vocab_instance
          WHERE term = :word GROUP BY doc) AS hits
    JOIN messages AS m ON m.pk = hits.doc"""
COUNTS = f"""{MESSAGE_COUNTS} WHERE :history {FILTERS}
    UNION ALL
    SELECT 'memory', mem.pk, mem.id, mem.created_at, hits.n
    FROM (SELECT doc, count(*) AS n FROM temp.memories_vocab_instance
          WHERE term = :word GROUP BY doc) AS hits
    JOIN memories AS mem ON mem.pk = hits.doc
    WHERE :memories AND {MEMORY_FILTERS}
"""
# The records a page [offset, offset + limit) covers, with the instances before each.
COUNTED_PAGE = """
    WITH page AS (
        SELECT *, sum(n) OVER (ORDER BY created_at DESC, source_type, id
                               ROWS UNBOUNDED PRECEDING) AS upto
        FROM ({counts}))
    SELECT page.source_type, page.pk, page.id, page.created_at, page.upto - page.n, {fields}
    FROM page {joins}
    WHERE page.upto > :offset AND page.upto - page.n < :offset + :limit
    ORDER BY page.upto
"""
SOURCES = {sequence: instance_sources(sequence) for sequence in (True, False)}
PAGES = {
    (crowded, fast): (COUNTED_PAGE if crowded else ROWS_PAGE).format(
        fields=FIELDS,
        joins=RECORD_JOINS,
        rows=(MESSAGE_ROWS if fast else ROWS).format(**SOURCES[False]),
        counts=MESSAGE_COUNTS if fast else COUNTS,
    )
    for crowded in (True, False)
    for fast in (True, False)
}
SEQUENCE_PAGE = ROWS_PAGE.format(
    fields=FIELDS, joins=RECORD_JOINS, rows=ROWS.format(**SOURCES[True])
)
TOTAL = {
    sequence: f"SELECT count(*) FROM ({ROWS.format(**SOURCES[sequence])})" for sequence in SOURCES
}
SPREAD = "SELECT cnt, doc FROM temp.messages_vocab_row WHERE term = :word"
CROWDED_BY = 8  # more instances than 8 per record (and 1,000 in all): the counted page
TABLES = {"message": "messages_vocab_instance", "memory": "memories_vocab_instance"}
# Every position of the word in some records, or from one record's skip-th.
POSITIONS = {
    (kind, sequence): f"SELECT doc, offset FROM {sources[kind]} "
    "WHERE term = :word AND doc IN (SELECT value FROM json_each(:docs))"
    for sequence, sources in SOURCES.items()
    for kind in TABLES
}
POSITIONS_FROM = {
    kind: f"SELECT offset FROM temp.{table} WHERE term = :word AND doc = :pk "
    "ORDER BY offset LIMIT :take OFFSET :skip"
    for kind, table in TABLES.items()
}


@dataclass(frozen=True)
class Page:
    """The records of a page of instances (see :class:`PageRecord`), the exact total of
    instances, and the number of messages holding the word when the vocabulary gave it
    (unfiltered history, not a CJK sequence), else None."""

    records: list[PageRecord]
    total: int
    documents: int | None


@dataclass(frozen=True)
class PageRecord:
    """A record holding instances of a page: which of its instances the page shows (from
    its ``skip``-th, their token positions in order), its text and its history fields (None
    for memories)."""

    source_type: SourceType
    pk: int
    id: str
    created_at: datetime
    skip: int
    positions: list[int]
    content: str
    session_id: str | None
    role: Role | None
    sequence: int | None
    source_ref: str | None
    index_text: str | None

    def values(self) -> tuple[object, ...]:
        """Its stored values of :data:`RECORD_NAMES`, in order."""
        return (
            self.id,
            self.content,
            self.index_text,
            self.session_id,
            self.sequence,
            self.source_ref,
        )


# The stored values of a record that the page reads as they are (found by review: a blob
# as a message's content, or text as its sequence number, failed instances with a
# traceback where the other commands say StoreDamaged).
RECORD_NAMES = ("id", "content", "index_text", "session_id", "sequence", "source_ref")
RECORD_KINDS = (TEXT_VALUE, TEXT_VALUE, MAYBE_TEXT, MAYBE_TEXT, MAYBE_INTEGER, MAYBE_TEXT)
TABLES = {"message": "messages", "memory": "memories"}


def page(connection: sqlite3.Connection, word: str, query: WordQuery, now: datetime) -> Page:
    """The records of a page of the instances of the folded ``word`` (newest record first,
    then source type, id and position), each with the token positions the page shows, and
    the exact total (from the vocabulary's row table for unfiltered history)."""
    limit, offset, sequence = query.limit, query.offset, is_sequence(word)
    fast = query.unfiltered_history and not sequence
    bound = {"word": word, **scope_params(query, now), "limit": limit, "offset": offset}
    bound |= sequence_params(word)
    spread = None if sequence else connection.execute(SPREAD, bound).fetchone()
    dense = spread is not None and crowded(int(spread[0]), int(spread[1]))
    page_sql = SEQUENCE_PAGE if sequence else PAGES[dense, fast]
    rows = connection.execute(page_sql, bound).fetchall()
    records = (
        counted(connection, word, rows, limit, offset)
        if dense
        else listed(connection, word, rows, bound)
    )
    for record in records:
        typed_row(TABLES[record.source_type], RECORD_NAMES, record.values(), RECORD_KINDS)
    documents = None if spread is None else int(spread[1])
    if fast:  # the row table's occurrences, read with the spread
        return Page(records, 0 if spread is None else int(spread[0]), documents)
    total = connection.execute(TOTAL[sequence], bound).fetchone()
    return Page(records, int(total[0] or 0) if total else 0, documents)


def crowded(occurrences: int, documents: int) -> bool:
    """Whether a word's instances crowd into few records (the counted page is then cheaper):
    over :data:`CROWDED_BY` a record, and over 1,000 in all."""
    return occurrences > max(CROWDED_BY * documents, 1000)


def listed(
    connection: sqlite3.Connection, word: str, rows: list[tuple[Any, ...]], bound: dict[str, Any]
) -> list[PageRecord]:
    """The page's records from its instance rows. A record's instances are consecutive in
    the page order, so only the page's first record can have instances before the page:
    its skip is counted from all its positions (few: the word is spread out), on a page
    after the first; every other record's is 0."""
    records: list[PageRecord] = []
    for (kind, pk), group in groupby(rows, key=lambda row: (row[0], row[1])):
        shown = list(group)
        _, _, id_, created_at, first, *fields = shown[0]
        skip = 0
        if not records and bound["offset"] > 0:
            ranks = all_positions(connection, word, {(kind, pk)}, bound)
            skip = bisect.bisect_left(ranks[kind, pk], first)
        positions = [row[4] for row in shown]
        records.append(PageRecord(kind, pk, id_, parse_utc(created_at), skip, positions, *fields))
    return records


def counted(
    connection: sqlite3.Connection,
    word: str,
    rows: list[tuple[Any, ...]],
    limit: int,
    offset: int,
) -> list[PageRecord]:
    """The page's records from per-record counts, each record's positions read from its
    first shown instance."""
    records: list[PageRecord] = []
    for kind, pk, id_, created_at, before, *fields in rows:
        skip = max(offset - before, 0)  # the record's instances before the page's first
        take = offset + limit - before - skip  # the LIMIT stops at the record's last
        bound = {"word": word, "pk": pk, "skip": skip, "take": take}
        positions = [p for (p,) in connection.execute(POSITIONS_FROM[kind], bound)]
        records.append(PageRecord(kind, pk, id_, parse_utc(created_at), skip, positions, *fields))
    return records


def all_positions(
    connection: sqlite3.Connection,
    word: str,
    records: set[tuple[str, int]],
    bound: dict[str, Any],
) -> dict[tuple[str, int], list[int]]:
    """Every token position of ``word`` in each ``(source_type, pk)`` record, in order."""
    found: dict[tuple[str, int], list[int]] = {record: [] for record in records}
    for kind in TABLES:
        docs = [pk for source, pk in records if source == kind]
        if docs:
            query = POSITIONS[kind, is_sequence(word)]
            for doc, position in connection.execute(query, bound | {"docs": json.dumps(docs)}):
                found[kind, doc].append(position)
    for positions in found.values():
        positions.sort()
    return found
