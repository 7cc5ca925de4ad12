"""Recall queries over the FTS5 indexes: the memories, and the history tier by tier (each
tier's statements in :mod:`memstore.repository.tier_hits`).

One shape everywhere: MATCH and bm25() run in a subquery whose FROM is the FTS table alone
(for history, one per weighted query part, which ``json_each`` hands in as bound text);
the base table's filters go outside, joined by rowid (the ``pk`` column).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator, Mapping, Sequence
from datetime import datetime
from typing import Any

from memstore.kinds import Mode
from memstore.queries import RecallFilters
from memstore.repository import search_bounds, speaker_names
from memstore.repository.hit_pages import MessageHit
from memstore.repository.memories import MEMORY_FIELDS, StoredMemory, in_force_sql
from memstore.repository.messages import (
    SPEAKER_NAMES,
    UNWRITTEN,
    written_params,
    written_sql,
)
from memstore.repository.tier_hits import tier_hits, tier_parts
from memstore.store.fts_names import (
    MEMORIES_FTS,
    MEMORIES_STEM_FTS,
    MESSAGES_FTS,
    MESSAGES_STEM_FTS,
)
from memstore.text import ranking
from memstore.text.fts_query import QueryPart, ranking_tiers, written_sequence
from memstore.times import format_utc, parse_utc

# How many indexed messages each part matches (on its own index).
PART_DOCUMENTS = f"""
    SELECT part.key,
           CASE WHEN json_extract(part.value, '$[1]') THEN
             (SELECT count(*) FROM {MESSAGES_STEM_FTS}
              WHERE {MESSAGES_STEM_FTS} MATCH json_extract(part.value, '$[0]'))
           ELSE
             (SELECT count(*) FROM {MESSAGES_FTS}
              WHERE {MESSAGES_FTS} MATCH json_extract(part.value, '$[0]'))
           END
    FROM json_each(:parts) AS part
"""
# FTS5's "averages" record, row 1 of the index's data shadow table: the number of indexed
# documents, then each column's total tokens, as SQLite varints (bm25 reads it the same way).
AVERAGES = f"SELECT block FROM {MESSAGES_FTS}_data WHERE id = 1"
HISTORY_SPAN = "SELECT min(created_at), max(created_at) FROM messages"  # by its index


# The memories in force (active, unexpired) that pass the filters, for a query that calls
# the memories table ``mem``: since / until on its creation time, session / role through its
# source messages (so a memory without one never matches those three).
MEMORY_FILTERS = f"""{in_force_sql("mem")}
      AND (:since IS NULL OR mem.created_at >= :since)
      AND (:until IS NULL OR mem.created_at < :until)
      AND ((:session_id IS NULL AND :role IS NULL AND :speaker IS NULL) OR EXISTS (
          SELECT 1 FROM memory_sources AS link JOIN messages AS m ON m.id = link.message_id
          WHERE link.memory_id = mem.id
            AND (:session_id IS NULL OR m.session_id = :session_id)
            AND (:role IS NULL OR m.role = :role)
            AND (:speaker IS NULL OR m.speaker IN {SPEAKER_NAMES})))"""
MEMORY_MATCHES = f"""
    SELECT {{columns}}
    FROM (SELECT rowid AS pk, bm25({{index}}) AS rank
          FROM {{index}} WHERE {{index}} MATCH :query) AS hits
    JOIN memories AS mem ON mem.pk = hits.pk
    WHERE {MEMORY_FILTERS}
      AND {written_sql("mem")}
    ORDER BY {{tier}}hits.rank * (CASE WHEN hits.pk IN (
        SELECT rowid FROM {{index}} WHERE :pairs IS NOT NULL AND {{index}} MATCH :pairs)
        THEN :pair_weight ELSE 1 END), mem.pk
    LIMIT :limit
"""
# The memories holding only stopwords of the query after the others (see content_match).
STOPWORD_TIER = "hits.pk NOT IN (SELECT rowid FROM {index} WHERE {index} MATCH :content), "
MEMORY_INDEXES = {False: MEMORIES_FTS, True: MEMORIES_STEM_FTS}  # by stemmed


def memory_matches(columns: str, index: str, tiered: bool) -> str:
    """:data:`MEMORY_MATCHES` of ``columns`` on ``index``, with the stopword tier or not."""
    tier = STOPWORD_TIER.format(index=index) if tiered else ""
    return MEMORY_MATCHES.format(columns=columns, index=index, tier=tier)


MEMORY_COLUMNS = ", ".join(f"mem.{c}" for c in MEMORY_FIELDS)
MEMORY_HITS = {
    (stemmed, tiered): memory_matches(MEMORY_COLUMNS, index, tiered)
    for stemmed, index in MEMORY_INDEXES.items()
    for tiered in (False, True)
}
MEMORY_HIT_IDS = {
    tiered: memory_matches("mem.id", MEMORIES_STEM_FTS, tiered) for tiered in (False, True)
}


def part_documents(
    connection: sqlite3.Connection, tiers: Sequence[Sequence[QueryPart]]
) -> dict[QueryPart, int]:
    """How many indexed messages each part of ``tiers`` finds on its index (no statement
    for no part)."""
    parts = list(dict.fromkeys(part for tier in tiers for part in tier))
    if not parts:
        return {}
    matches = json.dumps([[part.match, part.stemmed] for part in parts])
    counts = dict(connection.execute(PART_DOCUMENTS, {"parts": matches}).fetchall())
    return {part: counts[at] for at, part in enumerate(parts)}


def history_span(connection: sqlite3.Connection) -> tuple[datetime, datetime] | None:
    """When the first and the last message were written (UTC), or None for no message."""
    first, last = connection.execute(HISTORY_SPAN).fetchone()
    return None if first is None else (parse_utc(first), parse_utc(last))


# How history_hits searches. The query is split into tiers of literal parts by
# ranking_tiers, each part weighted as memstore.text.ranking says; a tier is only searched
# once the caller has taken every hit of the tiers before it. A tier whose gate parts find
# over ranking.EXACT_HITS documents is ranked a set of candidates at a time (see
# tier_hits.tier_hits), unless the filters bound the search to fewer pks (see
# search_bounds.pk_bounds). The parts' documents are counted for their weights (see
# ranking.weighted_parts), but a tier of one part is counted only when the filters leave its
# search wide: its weight does not change how its hits rank, and counting its whole list
# took a third of a one-week recall of "you" at 1M.
def history_hits(
    connection: sqlite3.Connection,
    query: str,
    mode: Mode,
    filters: RecallFilters,
    periods: Sequence[tuple[datetime, datetime]] = (),
    *,
    first: int,
) -> Iterator[MessageHit]:
    """Searchable messages matching ``query`` in ``mode``, with their pair partners, best
    rank first, the messages read ``first`` at a time at first, then twice as many each
    time (a caller that needs a page reads about that page's text). A hit written within
    one of the ``periods`` ([start, end) instants) ranks as the query naming its time. A
    phrase written with punctuation among CJK characters keeps only the hits holding it as
    written (see :func:`~memstore.text.fts_query.written_sequence`).

    Raises:
        InvalidQuery: For a bad query or mode (see :func:`ranking_tiers`).
    """
    named = speaker_names.named_speakers(connection, query)  # once: words, and a signal
    tiers = ranking_tiers(speaker_names.searched_text(connection, query, mode, named), mode)
    bounds = search_bounds.pk_bounds(connection, filters)
    counted = [tier for tier in tiers if len(tier) > 1 or not bounds.narrow()]
    documents = part_documents(connection, counted)
    longest = longest_list(tiers, documents) if bounds.cut_short else 0
    if search_bounds.scan_limit(longest) > search_bounds.BOUNDED_MESSAGES:  # as far as it pays
        bounds = search_bounds.pk_bounds(connection, filters, longest)
    total = indexed_messages(connection)
    written = written_params(written_sequence(query, mode))
    signals = ranking_signals(named, periods) | written | bounds.params()
    for tier in tiers:
        searched = tier_parts(query, ranking.weighted_parts(tier, documents, total))
        if searched is not None:
            large = ranking.gated_documents(tier, documents) > ranking.EXACT_HITS
            bounded = large and not bounds.narrow()
            checked = bounds.unchecked(filters)
            hits = tier_hits(connection, searched, checked, signals, bounded=bounded, first=first)
            yield from hits


def longest_list(tiers: Sequence[Sequence[QueryPart]], documents: Mapping[QueryPart, int]) -> int:
    """How many documents the longest list of the first tier holds (0 for no tier): what a
    search unbounded by the filters would read of it (a later tier is read only when the
    page needs it)."""
    return max((documents[part] for part in tiers[0]), default=0) if tiers else 0


def indexed_messages(connection: sqlite3.Connection) -> int:
    """How many messages the history index holds: the first number of FTS5's averages
    record, which it keeps for bm25, instead of counting its docsize table (a row per
    message: 3.5 ms at a million)."""
    row = connection.execute(AVERAGES).fetchone()
    return 0 if row is None else sqlite_varint(row[0])


def sqlite_varint(data: bytes) -> int:
    """The SQLite varint at the start of ``data`` (0 for none): big-endian, seven bits a
    byte while the high bit is set, all eight bits of a ninth byte."""
    value = 0
    for at, byte in enumerate(data[:9]):
        if at == 8:
            return value << 8 | byte
        value = value << 7 | byte & 0x7F
        if not byte & 0x80:
            return value
    return value


def ranking_signals(named: str, periods: Sequence[tuple[datetime, datetime]]) -> dict[str, Any]:
    """The parameters of :data:`~memstore.repository.tier_hits.TIER_HITS` besides the tier's
    own, the filters and the pk bounds: the speakers the query names (``named``, see
    :func:`~memstore.repository.speaker_names.named_speakers`), the ``periods`` (instants),
    the signals' weights, and no phrase matched as written (see
    :func:`~memstore.repository.messages.written_params`)."""
    return UNWRITTEN | {
        "speakers": named,
        "speaker_weight": ranking.SPEAKER_WEIGHT,
        "periods": json.dumps([[format_utc(start), format_utc(end)] for start, end in periods]),
        "date_weight": ranking.DATE_WEIGHT,
        "time_weight": ranking.TIME_WEIGHT,
    }


def memory_params(
    match: str,
    content: str | None,
    pairs: str | None,
    now: datetime,
    limit: int,
    written: Mapping[str, Any] = UNWRITTEN,
) -> dict[str, Any]:
    """The parameters of :data:`MEMORY_MATCHES` but the filters'; ``written``, those of
    :func:`~memstore.repository.messages.written_params`."""
    return {
        **written,
        "query": match,
        "content": content,
        "pairs": pairs,
        "pair_weight": ranking.MEMORY_PAIR_WEIGHT,
        "now": format_utc(now),
        "limit": limit,
    }


def memory_hit_ids(
    connection: sqlite3.Connection,
    match: str,
    content: str | None,
    pairs: str | None,
    now: datetime,
    limit: int,
) -> list[str]:
    """The ids of :func:`memory_hits` without filters, by stem (``any`` mode), best first
    (no rows are built)."""
    params = memory_params(match, content, pairs, now, limit) | RecallFilters().params()
    statement = MEMORY_HIT_IDS[content is not None]
    return [memory_id for (memory_id,) in connection.execute(statement, params)]


def memory_hits(
    connection: sqlite3.Connection,
    match: str,
    filters: RecallFilters,
    now: datetime,
    limit: int,
    *,
    stemmed: bool,
    content: str | None = None,
    pairs: str | None = None,
    written: str | None = None,
) -> list[StoredMemory]:
    """Matching active, unexpired memories, best bm25 rank first, at most ``limit``; on the
    index by word stem when ``stemmed`` (recall's ``any`` mode), else as written; those the
    MATCH ``content`` finds first, when given (see
    :func:`~memstore.text.fts_query.content_match`); a memory the MATCH ``pairs`` finds
    (adjacent query words) ranks as :data:`~memstore.text.ranking.MEMORY_PAIR_WEIGHT` says;
    with ``written``, only those whose folded text holds it (see
    :func:`~memstore.text.fts_query.written_sequence`).

    Session and role filters go through the memory's source messages, so a memory with no
    source message never matches them; since / until filter its creation time.
    """
    written_as = written_params(written)
    params = memory_params(match, content, pairs, now, limit, written_as) | filters.params()
    found = connection.execute(MEMORY_HITS[stemmed, content is not None], params)
    return [StoredMemory.from_row(row) for row in found]
