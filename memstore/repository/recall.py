"""Recall queries over the FTS5 indexes.

One shape everywhere: MATCH and bm25() run in a subquery whose FROM is the FTS table alone
(for history, one per weighted query part, which ``json_each`` hands in as bound text);
the base table's filters go outside, joined by rowid (the ``pk`` column).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from memstore.kinds import Mode
from memstore.queries import RecallFilters
from memstore.repository.memories import MEMORY_FIELDS, StoredMemory, in_force_sql
from memstore.repository.messages import (
    MESSAGE_COLUMNS,
    StoredMessage,
    filters_sql,
    searchable_sql,
)
from memstore.store.fts_names import (
    MEMORIES_FTS,
    MEMORIES_STEM_FTS,
    MESSAGES_FTS,
    MESSAGES_STEM_FTS,
)
from memstore.text import ranking
from memstore.text.fts_query import QueryPart, ranking_tiers, time_words_match
from memstore.text.tokens import word_spans
from memstore.times import format_utc, parse_utc

# The index search is bounded to the pks (rowids) between :low_pk and :high_pk, where every
# message the time, session and speaker filters can keep lies (see pk_bounds); the filters still
# decide each hit, so the bounds change how much of each term's list FTS5 reads, never the
# result.
# A hit's own rank is the weighted sum of the bm25() of each query part it matches (see
# memstore.text.ranking), doubled when the query names its speaker, tripled when it names
# the month or year it was written in (:periods, [start, end) in UTC), and times 1.5 when the
# query asks when and the hit holds a word saying when (it is among the messages that :said,
# the tier's gates AND the time words, finds on the stem index: the same words by stem in
# every mode, and a superset of the tier's hits); its rank adds the own
# ranks of the hits one and two messages away in its session (:near, :far). :parts is a JSON
# list of [match, weight, role, stemmed], read into a materialized table whose rows hand
# each literal match to an FTS-only MATCH on the exact or the stem index; the scores are
# materialized too, so that bm25() runs in its own query. A hit matches a gate part (role
# 1) and no veto part (role -1), and passes the filters; a tier of one part (:single, then a
# gate) takes its scores as they are, without grouping them by message (a tenth of a
# common word's time). Each hit's own rank is spread to the
# messages up to two away in its session (found through the unique index on session and
# sequence) and summed per message; only a message holding its own rank (a hit) is kept, so
# that only hits that pass the filters rank one another.
# Each hit carries the pk of its pair partner: for an assistant reply the closest completed
# user request before it, or, for an assistant message that opens the talk (no user message
# before it, and no sequence missing before it, where a deleted request would have been),
# the first completed user message after it (its answer); for a
# user message the next completed user or assistant message (a reply only if it is the
# assistant's); and the partner's own rank when the partner is a hit that passes the
# filters. The subqueries run for the page's rows only.
HISTORY_HITS = f"""
    WITH parts AS MATERIALIZED (
        SELECT json_extract(value, '$[0]') AS match, json_extract(value, '$[1]') AS weight,
               json_extract(value, '$[2]') AS role, json_extract(value, '$[3]') AS stemmed
        FROM json_each(:parts)),
    scored AS MATERIALIZED (
        SELECT {MESSAGES_FTS}.rowid AS pk, bm25({MESSAGES_FTS}) * parts.weight AS score, parts.role
        FROM parts CROSS JOIN {MESSAGES_FTS}
        WHERE NOT parts.stemmed AND {MESSAGES_FTS} MATCH parts.match
          AND {MESSAGES_FTS}.rowid BETWEEN :low_pk AND :high_pk
        UNION ALL
        SELECT {MESSAGES_STEM_FTS}.rowid, bm25({MESSAGES_STEM_FTS}) * parts.weight, parts.role
        FROM parts CROSS JOIN {MESSAGES_STEM_FTS}
        WHERE parts.stemmed AND {MESSAGES_STEM_FTS} MATCH parts.match
          AND {MESSAGES_STEM_FTS}.rowid BETWEEN :low_pk AND :high_pk),
    matched AS MATERIALIZED (
        SELECT pk, score FROM scored WHERE :single AND role = 1
        UNION ALL
        SELECT pk, sum(score) FROM scored WHERE NOT :single
        GROUP BY pk HAVING max(role) = 1 AND min(role) >= 0),
    said AS MATERIALIZED (
        SELECT rowid AS pk FROM {MESSAGES_STEM_FTS}
        WHERE :said IS NOT NULL AND {MESSAGES_STEM_FTS} MATCH :said
          AND rowid BETWEEN :low_pk AND :high_pk),
    periods AS MATERIALIZED (
        SELECT json_extract(value, '$[0]') AS starts, json_extract(value, '$[1]') AS ends
        FROM json_each(:periods)),
    hits AS MATERIALIZED (
        SELECT matched.pk, h.session_id, h.sequence,
               matched.score
               * (CASE WHEN h.speaker IN (SELECT value FROM json_each(:speakers))
                  THEN :speaker_weight ELSE 1 END)
               * (CASE WHEN EXISTS (SELECT 1 FROM periods
                                    WHERE h.created_at >= periods.starts
                                      AND h.created_at < periods.ends)
                  THEN :date_weight ELSE 1 END)
               * (CASE WHEN h.pk IN (SELECT pk FROM said) THEN :time_weight ELSE 1 END) AS own
        FROM matched JOIN messages AS h ON h.pk = matched.pk
        WHERE {filters_sql("h")}),
    ranked AS (
        SELECT n.pk, sum(CASE n.sequence WHEN h.sequence THEN h.own END) AS own_rank,
               sum(h.own * CASE abs(n.sequence - h.sequence)
                   WHEN 0 THEN 1 WHEN 1 THEN :near ELSE :far END) AS rank
        FROM hits AS h JOIN messages AS n ON n.session_id = h.session_id
             AND n.sequence BETWEEN h.sequence - 2 AND h.sequence + 2
        GROUP BY n.pk HAVING own_rank IS NOT NULL
        ORDER BY rank, n.pk
        LIMIT :limit OFFSET :offset),
    page AS (
        SELECT m.pk, m.id, m.session_id, m.sequence, m.role, m.content, m.created_at,
               m.status, m.source_ref, m.speaker, ranked.rank, ranked.own_rank,
               CASE m.role
                 WHEN 'assistant' THEN coalesce(
                   (SELECT p.pk FROM messages AS p
                    WHERE p.session_id = m.session_id AND p.sequence < m.sequence
                      AND p.role = 'user' AND p.status = 'completed'
                    ORDER BY p.sequence DESC LIMIT 1),
                   (SELECT p.pk FROM messages AS p
                    WHERE p.session_id = m.session_id AND p.sequence > m.sequence
                      AND p.role = 'user' AND p.status = 'completed'
                      AND m.sequence - 1 = (SELECT count(*) FROM messages AS s
                                            WHERE s.session_id = m.session_id
                                              AND s.sequence < m.sequence
                                              AND s.role <> 'user')
                    ORDER BY p.sequence LIMIT 1))
                 ELSE
                   (SELECT p.pk FROM messages AS p
                    WHERE p.session_id = m.session_id AND p.sequence > m.sequence
                      AND {searchable_sql("p")}
                    ORDER BY p.sequence LIMIT 1)
               END AS partner_pk
        FROM ranked JOIN messages AS m ON m.pk = ranked.pk)
    SELECT page.id, page.session_id, page.sequence, page.role, page.content, page.created_at,
           page.status, page.source_ref, page.speaker, page.rank, page.own_rank, page.partner_pk,
           (SELECT hits.own FROM hits WHERE hits.pk = page.partner_pk) AS partner_own
    FROM page
    ORDER BY page.rank, page.pk
"""
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
# How many messages a filter keeps, up to :most + 1, and their smallest and largest pk, read
# through the filter's index.
FILTER_PKS = """
    SELECT count(*), min(pk), max(pk)
    FROM (SELECT pk FROM messages WHERE {condition} LIMIT :most + 1)
"""
WINDOW_PKS = FILTER_PKS.format(
    condition="created_at >= coalesce(:since, '') AND created_at < coalesce(:until, '~')"
)
SESSION_PKS = FILTER_PKS.format(condition="session_id = :session_id")
SPEAKER_PKS = FILTER_PKS.format(condition="speaker = :speaker")  # by its partial index
BOUNDED_MESSAGES = 20_000  # a filter keeping more is not read: its bounds would save little
SMALLEST_PK, LARGEST_PK = -(2**63), 2**63 - 1
# The names among :names that some message's speaker goes by (through its partial index).
NAMED_SPEAKERS = (
    "SELECT DISTINCT speaker FROM messages "
    "WHERE speaker IS NOT NULL AND speaker IN (SELECT value FROM json_each(:names))"
)
FIRST_BATCH = 32


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
            AND (:speaker IS NULL OR m.speaker = :speaker)))"""
MEMORY_MATCHES = f"""
    SELECT {{columns}}
    FROM (SELECT rowid AS pk, bm25({{index}}) AS rank
          FROM {{index}} WHERE {{index}} MATCH :query) AS hits
    JOIN memories AS mem ON mem.pk = hits.pk
    WHERE {MEMORY_FILTERS}
    ORDER BY hits.rank, mem.pk
    LIMIT :limit
"""
MEMORY_INDEXES = {False: MEMORIES_FTS, True: MEMORIES_STEM_FTS}  # by stemmed
MEMORY_HITS = {
    stemmed: MEMORY_MATCHES.format(
        columns=", ".join(f"mem.{c}" for c in MEMORY_FIELDS), index=index
    )
    for stemmed, index in MEMORY_INDEXES.items()
}
MEMORY_HIT_IDS = MEMORY_MATCHES.format(columns="mem.id", index=MEMORIES_STEM_FTS)


PARTNERS = (
    f"SELECT pk, {MESSAGE_COLUMNS} FROM messages WHERE pk IN (SELECT value FROM json_each(:pks))"
)


@dataclass(frozen=True)
class MessageHit(StoredMessage):
    """A message that matched a query, with its rank (its own weighted bm25 with its
    neighbours'; lower is better), its own rank, and its pair partner (see
    :data:`HISTORY_HITS`), if any, with the partner's own rank when the partner is a hit
    too."""

    rank: float
    own_rank: float
    partner: StoredMessage | None
    partner_rank: float | None


def part_documents(
    connection: sqlite3.Connection, tiers: Sequence[Sequence[QueryPart]]
) -> dict[QueryPart, int]:
    """How many indexed messages each part finds on its index."""
    parts = list(dict.fromkeys(part for tier in tiers for part in tier))
    matches = json.dumps([[part.match, part.stemmed] for part in parts])
    counts = dict(connection.execute(PART_DOCUMENTS, {"parts": matches}).fetchall())
    return {part: counts[at] for at, part in enumerate(parts)}


def history_span(connection: sqlite3.Connection) -> tuple[datetime, datetime] | None:
    """When the first and the last message were written (UTC), or None for no message."""
    first, last = connection.execute(HISTORY_SPAN).fetchone()
    return None if first is None else (parse_utc(first), parse_utc(last))


def history_hits(
    connection: sqlite3.Connection,
    query: str,
    mode: Mode,
    filters: RecallFilters,
    periods: Sequence[tuple[datetime, datetime]] = (),
) -> Iterator[MessageHit]:
    """Searchable messages matching ``query`` in ``mode``, with their pair partners, best
    rank first.

    The query is split into tiers of literal parts by :func:`ranking_tiers`, each part
    weighted as :mod:`memstore.text.ranking` says; a tier is only searched once the
    caller has taken every hit of the tiers before it. A hit written within one of the
    ``periods`` ([start, end) instants) ranks as the query naming its time.

    Raises:
        InvalidQuery: For a bad query or mode (see :func:`ranking_tiers`).
    """
    tiers = ranking_tiers(query, mode)
    documents = part_documents(connection, tiers)
    total = indexed_messages(connection)
    signals = ranking_signals(connection, query, periods)
    signals |= pk_bounds(connection, filters)
    for tier in tiers:
        weighted = tier_parts(query, ranking.weighted_parts(tier, documents, total))
        if weighted is not None:
            yield from tier_hits(connection, weighted, filters, signals)


def pk_bounds(connection: sqlite3.Connection, filters: RecallFilters) -> dict[str, int]:
    """``low_pk`` and ``high_pk``: the narrowest pk range holding every message that the time
    window, the session and the speaker of ``filters`` keep, found through their indexes,
    that search bounds itself to (the whole range without those filters, or when one keeps
    over :data:`BOUNDED_MESSAGES` messages). A role bounds nothing: it keeps about half the
    messages, taking turns with the other role, so its range is the whole history.

    Rowids are given in the order messages are stored, not written: an import stores a log's
    records together and in file order, so a day or a session of an archive is one short
    range; a log imported late, or a live session running beside an import, widens the
    range of the windows it covers, and the results stay the same.
    """
    low, high = SMALLEST_PK, LARGEST_PK
    params = filters.params() | {"most": BOUNDED_MESSAGES}
    window = filters.since is not None or filters.until is not None
    bounding = (
        (WINDOW_PKS, window),
        (SESSION_PKS, filters.session_id is not None),
        (SPEAKER_PKS, filters.speaker is not None),
    )
    for statement, used in bounding:
        if not used:
            continue
        kept, first, last = connection.execute(statement, params).fetchone()
        if kept == 0:
            return {"low_pk": 1, "high_pk": 0}  # no message: an empty range
        if kept <= BOUNDED_MESSAGES:
            low, high = max(low, first), min(high, last)
    return {"low_pk": low, "high_pk": high}


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


def ranking_signals(
    connection: sqlite3.Connection, query: str, periods: Sequence[tuple[datetime, datetime]]
) -> dict[str, Any]:
    """The parameters of :data:`HISTORY_HITS` besides the parts, the filters and the page:
    the speakers ``query`` names, the ``periods`` (instants), and the signals' weights."""
    near, far = ranking.NEIGHBOUR_WEIGHTS
    return {
        "speakers": named_speakers(connection, query),
        "speaker_weight": ranking.SPEAKER_WEIGHT,
        "near": near,
        "far": far,
        "periods": json.dumps([[format_utc(start), format_utc(end)] for start, end in periods]),
        "date_weight": ranking.DATE_WEIGHT,
        "time_weight": ranking.TIME_WEIGHT,
    }


NAME_WORDS = 3  # a speaker's name is looked for in up to three adjacent words ("Mary Ann Lee")


def named_speakers(connection: sqlite3.Connection, query: str) -> str:
    """The speakers' names (a JSON list) that words of ``query`` are, without case: each word,
    and each run of up to :data:`NAME_WORDS` adjacent words as written between them ("Mary
    Ann", "O'Brien")."""
    spans = word_spans(query)
    candidates = {
        query[start:end]: None
        for at, (start, _) in enumerate(spans)
        for _, end in spans[at : at + NAME_WORDS]
    }
    names = json.dumps(list(candidates))
    return json.dumps([name for (name,) in connection.execute(NAMED_SPEAKERS, {"names": names})])


def tier_parts(
    query: str, weights: Sequence[tuple[str, float, int, bool]]
) -> dict[str, Any] | None:
    """The parameters of :data:`HISTORY_HITS` for one tier of ``query``, from its weighted
    parts (see :func:`~memstore.text.ranking.weighted_parts`): ``parts`` (JSON), ``single``
    (one part), and ``said``, the match of the tier's messages that hold a word saying when,
    when the query asks when (see :func:`time_words_match`); None for a tier without a gate
    part, which finds nothing."""
    gates = [match for match, _, role, _ in weights if role == 1]
    if not gates:
        return None
    return {
        "parts": json.dumps(weights),
        "single": len(weights) == 1,
        "said": time_words_match(query, gates),
    }


def tier_hits(
    connection: sqlite3.Connection,
    weighted: dict[str, Any],
    filters: RecallFilters,
    signals: dict[str, Any],
) -> Iterator[MessageHit]:
    """The hits of one tier's ``weighted`` parts (see :func:`tier_parts`), best rank
    first, ranked with the ``signals`` (the named speakers and the weights of speaker and
    neighbours).

    Fetched in batches of growing size (32, 64, ...), two queries a batch: a caller that
    stops after a page never makes SQLite carry the text of every match through the sort.
    """
    offset, size = 0, FIRST_BATCH
    while True:
        params = {"limit": size, "offset": offset, **weighted, **filters.params(), **signals}
        rows = connection.execute(HISTORY_HITS, params).fetchall()
        partners = partners_by_pk(connection, [row[-2] for row in rows if row[-2]])
        for *message, rank, own, partner_pk, partner_own in rows:
            hit = StoredMessage.from_row(message)
            partner = partners.get(partner_pk)
            yield MessageHit(
                **vars(hit), rank=rank, own_rank=own, partner=partner, partner_rank=partner_own
            )
        if len(rows) < size:
            return
        offset, size = offset + size, size * 2


def partners_by_pk(connection: sqlite3.Connection, pks: list[int]) -> dict[int, StoredMessage]:
    """The messages with these pks, by pk."""
    if not pks:
        return {}
    rows = connection.execute(PARTNERS, {"pks": json.dumps(pks)})
    return {pk: StoredMessage.from_row(message) for pk, *message in rows}


def memory_hit_ids(
    connection: sqlite3.Connection, match: str, now: datetime, limit: int
) -> list[str]:
    """The ids of :func:`memory_hits` without filters, by stem (``any`` mode), best first
    (no rows are built)."""
    params = {"query": match, "now": format_utc(now), "limit": limit, **RecallFilters().params()}
    return [memory_id for (memory_id,) in connection.execute(MEMORY_HIT_IDS, params)]


def memory_hits(
    connection: sqlite3.Connection,
    match: str,
    filters: RecallFilters,
    now: datetime,
    limit: int,
    *,
    stemmed: bool,
) -> list[StoredMemory]:
    """Matching active, unexpired memories, best bm25 rank first, at most ``limit``; on the
    index by word stem when ``stemmed`` (recall's ``any`` mode), else as written.

    Session and role filters go through the memory's source messages, so a memory with no
    source message never matches them; since / until filter its creation time.
    """
    params = {"query": match, "now": format_utc(now), "limit": limit, **filters.params()}
    found = connection.execute(MEMORY_HITS[stemmed], params)
    return [StoredMemory.from_row(row) for row in found]
