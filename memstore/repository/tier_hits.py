"""One tier of a recall over history: its hits with their own ranks, ranked with their
neighbours, read best first with their pair partners.

Each hit's own rank comes from SQLite in one statement (a MATCH per query part, bm25()
weighted and summed, the signals and filters applied); its neighbours' share is added in
Python (:func:`~memstore.text.neighbours.neighbour_ranks`), in one pass over the hits instead
of a join of every hit with the five messages around it, grouped and sorted again. A large
tier ranks its best hits by own rank and the hits next to them first (see
:data:`~memstore.text.ranking.EXACT_HITS`). The messages themselves are read a page at a
time.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator, Sequence
from typing import Any

from memstore.queries import RecallFilters
from memstore.repository.hit_pages import MessageHit, read_best_first
from memstore.repository.messages import filters_sql, written_sql
from memstore.repository.partners import partner_sql
from memstore.repository.ranked_hits import near_hits, neighbour_ranks
from memstore.store.fts_names import MESSAGES_FTS, MESSAGES_STEM_FTS, PLACES_INDEX
from memstore.text import ranking
from memstore.text.fts_query import time_words_match


def weighted(index: str) -> str:
    """The SQL of a part's score on ``index``: its bm25() times its weight, or 0 for a part
    of weight 0 (a filter), whose bm25() is never called. bm25() counts the documents of
    each phrase of its query on its first call (a full read of each phrase's list: about
    0.7 ms for "yeah", in 33,000 of a million messages), which a filter's score never
    needs."""
    return f"CASE parts.weight WHEN 0 THEN 0.0 ELSE bm25({index}) * parts.weight END"


PARTS = "parts"
"""The source of a tier of several parts (the others are the index of a tier's one part)."""
# The scores of a tier's hits as matched (pk, score), by source. Each part's bm25() is
# weighted; :parts is a JSON list of [match, weight, role, stemmed], read into a
# materialized table whose rows hand each literal match to an FTS-only MATCH on the exact or
# the stem index, and the scores are materialized too, so that bm25() runs in its own query.
# A hit matches a gate part and no veto part: the least role code of its parts is the
# gate's (see ranking.PART_ROLES). A tier of one part (a gate) is one MATCH of :match on its
# index, weighted by :weight. The search is bounded to the pks (rowids) between :low_pk and
# :high_pk, where every message the time, session and speaker filters can keep lies (see
# search_bounds.pk_bounds); the filters still decide each hit, so the bounds change how much of each
# term's list FTS5 reads, never the result.
SCORES = {
    PARTS: f"""
    parts AS MATERIALIZED (
        SELECT json_extract(value, '$[0]') AS match, json_extract(value, '$[1]') AS weight,
               json_extract(value, '$[2]') AS role, json_extract(value, '$[3]') AS stemmed
        FROM json_each(:parts)),
    scored AS MATERIALIZED (
        SELECT {MESSAGES_FTS}.rowid AS pk, {weighted(MESSAGES_FTS)} AS score, parts.role
        FROM parts CROSS JOIN {MESSAGES_FTS}
        WHERE NOT parts.stemmed AND {MESSAGES_FTS} MATCH parts.match
          AND {MESSAGES_FTS}.rowid BETWEEN :low_pk AND :high_pk
        UNION ALL
        SELECT {MESSAGES_STEM_FTS}.rowid, {weighted(MESSAGES_STEM_FTS)}, parts.role
        FROM parts CROSS JOIN {MESSAGES_STEM_FTS}
        WHERE parts.stemmed AND {MESSAGES_STEM_FTS} MATCH parts.match
          AND {MESSAGES_STEM_FTS}.rowid BETWEEN :low_pk AND :high_pk),
    matched AS MATERIALIZED (
        SELECT pk, sum(score) AS score FROM scored
        GROUP BY pk HAVING min(role) = 1),""",
    **{
        index: f"""
    matched AS (
        SELECT rowid AS pk, bm25({index}) * :weight AS score FROM {index}
        WHERE {index} MATCH :match AND rowid BETWEEN :low_pk AND :high_pk),"""
        for index in (MESSAGES_FTS, MESSAGES_STEM_FTS)
    },
}
# Each hit's own rank: its score doubled when the query names its speaker, tripled when it
# names the month or year it was written in (:periods, [start, end) in UTC), and times 1.5
# when the query asks when and the hit holds a word saying when (it is among the messages
# that :said, the tier's gates AND the time words, finds on the stem index: the same words
# by stem in every mode, and a superset of the tier's hits); only hits that pass the
# filters and hold :written (a phrase as written), when given. Without a filter, a named
# speaker or period or :written (OWN_RANKS[False]), no message is read for it; with one, each
# hit's session and sequence come with it.
OWN_RANKS_SHAPE = f"""
    said AS MATERIALIZED (
        SELECT rowid AS pk FROM {MESSAGES_STEM_FTS}
        WHERE :said IS NOT NULL AND {MESSAGES_STEM_FTS} MATCH :said
          AND rowid BETWEEN :low_pk AND :high_pk),
    periods AS MATERIALIZED (
        SELECT json_extract(value, '$[0]') AS starts, json_extract(value, '$[1]') AS ends
        FROM json_each(:periods)),
    owned AS {{materialized}}(
        SELECT matched.pk,
               matched.score
               * (CASE WHEN :said IS NULL THEN 1
                       WHEN matched.pk IN (SELECT pk FROM said) THEN :time_weight ELSE 1 END)
               {{filtered}})"""
OWN_RANKS = {
    False: "AS own\n        FROM matched",
    True: f"""* (CASE WHEN h.speaker IN (SELECT value FROM json_each(:speakers))
                  THEN :speaker_weight ELSE 1 END)
               * (CASE WHEN EXISTS (SELECT 1 FROM periods
                                    WHERE h.created_at >= periods.starts
                                      AND h.created_at < periods.ends)
                  THEN :date_weight ELSE 1 END) AS own, h.session_id, h.sequence
        FROM matched JOIN messages AS h ON h.pk = matched.pk
        WHERE {filters_sql("h")} AND {written_sql("h")}""",
}
# Every hit with its session and sequence, as neighbours.neighbour_ranks takes them, by
# filtered: read from the places index, or as read with the filters (a second read of each
# hit took 0.13 of 0.82 ms in a one-week recall of "you" on the bench's 20k set).
EVERY_HIT = {
    False: f"""
    SELECT owned.pk, m.session_id, m.sequence, owned.own
    FROM owned JOIN messages AS m INDEXED BY {PLACES_INDEX} ON m.pk = owned.pk""",
    True: "\n    SELECT pk, session_id, sequence, own FROM owned",
}


# The :candidates hits of best own rank, every message up to :around messages from one of
# them in its session with how many messages it is from the nearest candidate (0: a
# candidate), and the pair partners of those up to :reach away: (pk, session_id, sequence,
# away, NULL) for each message near; then (pk, session_id, sequence, NULL, own) for each hit
# among them and the partners. Two row sets, put together by near_hits, not a join:
# SQLite's planner, which takes an FTS5 scan for a few rows, would join them by scanning one
# whole for each row of the other. The partners are read here, in the tier's one pass, as
# their own ranks decide which message of a pair is its matched one (a request seven
# messages before its reply, after a chain of tool calls, is beyond the messages near).
# They are not told apart from the messages near, which they repeat: the IN that reads them
# ignores repeats, and sorting them out took 2 of 108 ms for the bench's three words at 1M.
# NEAR_BEST is that statement after its candidates (best); each statement that ends with it
# adds where the hits among those it read come from.
NEAR_BEST = f"""
    near AS MATERIALIZED (
        SELECT n.pk, n.session_id, n.sequence, min(abs(n.sequence - b.sequence)) AS away
        FROM best JOIN messages AS b INDEXED BY {PLACES_INDEX} ON b.pk = best.pk
             JOIN messages AS n ON n.session_id = b.session_id
                  AND n.sequence BETWEEN b.sequence - :around AND b.sequence + :around
        GROUP BY n.pk),
    read AS MATERIALIZED (
        SELECT pk FROM near
        UNION ALL
        SELECT {partner_sql("m")}
        FROM near JOIN messages AS m ON m.pk = near.pk
        WHERE near.away <= :reach)
    SELECT pk, session_id, sequence, away, NULL FROM near
    UNION ALL
    SELECT owned.pk, m.session_id, m.sequence, NULL, owned.own"""
BEST_HITS = f""",
    best AS (SELECT pk FROM owned ORDER BY own, pk LIMIT :candidates),{NEAR_BEST}
    FROM owned JOIN messages AS m INDEXED BY {PLACES_INDEX} ON m.pk = owned.pk
    WHERE owned.pk IN (SELECT pk FROM read)"""
# BEST_HITS for a tier whose hits only the filters decide, its own ranks read without them
# (no named speaker or period, which weigh a hit by its row): the filters are checked on the
# :wide hits of best own rank first, not on every hit. When at least :candidates of those
# pass (or they are every hit), the best that pass are the best of all that pass, since
# every other hit ranks after them; else every hit is checked, which then costs more than
# checking them first would have (the unfiltered hits kept and sorted, and read again). The
# hits near the candidates are checked too: one the filters drop adds nothing. tier_hits
# takes it for a role alone, which keeps about half the hits and bounds no pk range: checking
# each hit's row first took 140 of 425 ms for "you" with a role at 1M.
LATE_BEST_HITS = f""",
    wide AS MATERIALIZED (SELECT pk, own FROM owned ORDER BY own, pk LIMIT :wide),
    kept AS MATERIALIZED (
        SELECT wide.pk, wide.own FROM wide JOIN messages AS h ON h.pk = wide.pk
        WHERE {filters_sql("h")}),
    exact AS MATERIALIZED (
        SELECT (SELECT count(*) FROM kept) >= :candidates
               OR (SELECT count(*) FROM wide) < :wide AS found),
    best AS (
        SELECT pk FROM (SELECT pk FROM kept WHERE (SELECT found FROM exact)
                        ORDER BY own, pk LIMIT :candidates)
        UNION ALL
        SELECT pk FROM (SELECT owned.pk FROM owned JOIN messages AS h ON h.pk = owned.pk
                        WHERE NOT (SELECT found FROM exact) AND {filters_sql("h")}
                        ORDER BY owned.own, owned.pk LIMIT :candidates)),{NEAR_BEST}
    FROM owned JOIN messages AS m ON m.pk = owned.pk
    WHERE owned.pk IN (SELECT pk FROM read) AND {filters_sql("m")}"""
TIER_HITS = {
    (source, filtered, bounded): "WITH"
    + scores
    + OWN_RANKS_SHAPE.format(materialized="MATERIALIZED " if bounded else "", filtered=own)
    + (BEST_HITS if bounded else EVERY_HIT[filtered])
    for source, scores in SCORES.items()
    for filtered, own in OWN_RANKS.items()
    for bounded in (False, True)
}
"""A tier's hits by (source, filtered, bounded): every hit, or the candidates and the hits
near them (see :func:`tier_hits`)."""
LATE_TIER_HITS = {
    source: "WITH"
    + scores
    + OWN_RANKS_SHAPE.format(materialized="MATERIALIZED ", filtered=OWN_RANKS[False])
    + LATE_BEST_HITS
    for source, scores in SCORES.items()
}
"""The candidates of a large tier and the hits near them, by source, the filters checked
last (see :data:`LATE_BEST_HITS`)."""
WIDE_CANDIDATES = 4 * ranking.CANDIDATES
"""How many hits of best own rank :data:`LATE_TIER_HITS` checks the filters on first: a role
keeps about half of the hits, so that a quarter of them passing is enough."""


def tier_parts(
    query: str, weights: Sequence[tuple[str, float, int, bool]]
) -> dict[str, Any] | None:
    """The parameters of :data:`TIER_HITS` for one tier of ``query``, from its weighted
    parts (see :func:`~memstore.text.ranking.weighted_parts`): its ``source`` (the index of
    its one part, or :data:`PARTS`), the part's ``match`` and ``weight`` or every part
    (``parts``, JSON), and ``said``, the match of the tier's messages that hold a word saying
    when, when the query asks when (see :func:`time_words_match`); None for a tier without a
    gate part, which finds nothing."""
    gates = [match for match, _, role, _ in weights if role == ranking.PART_ROLES["gate"]]
    if not gates:
        return None
    said = time_words_match(query, gates)
    if len(weights) == 1:
        ((match, weight, _, stemmed),) = weights
        source = MESSAGES_STEM_FTS if stemmed else MESSAGES_FTS
        return {"source": source, "match": match, "weight": weight, "said": said}
    # A tier with a selection (all mode) may have parts derived from it or bounded within it,
    # whose weights merge into net ones (found by review: testing for a negative one missed
    # them): its ranks are rounded (see neighbours.comparable).
    selected = any(" AND " in match for match, _, _, _ in weights)
    return {"source": PARTS, "parts": json.dumps(weights), "said": said, "rounded": selected}


# A bounded tier_hits: first the ranking.CANDIDATES hits of best own rank and the hits near
# them (a role alone checked on the best hits first when no named speaker or period weighs
# the hits: see LATE_BEST_HITS); then, if the caller takes them all and there are more,
# every other hit, ranked with every hit at once (as when not bounded).
def tier_hits(
    connection: sqlite3.Connection,
    tier: dict[str, Any],
    filters: RecallFilters,
    signals: dict[str, Any],
    *,
    bounded: bool,
    first: int,
) -> Iterator[MessageHit]:
    """The hits of one tier (see :func:`tier_parts`), best rank first (then by pk), ranked
    with the ``signals`` (named speakers and periods, weights, pk bounds, the text the hits
    hold as written) and their neighbours' own ranks (:func:`neighbour_ranks`); ``bounded``,
    the candidates first (see the note above); ``first``: how many hits to read with their
    text at first (see :func:`read_best_first`)."""
    signalled = (signals["speakers"], signals["periods"], signals["written"]) != ("[]", "[]", None)
    rounded = tier.get("rounded", False)
    filtered = filters.any() or signalled
    every = TIER_HITS[tier["source"], filtered, False]
    params = {**tier, **filters.params(), **signals}
    shown: set[int] = set()
    if bounded:
        role_alone = filters.role is not None and filters == RecallFilters(role=filters.role)
        late = role_alone and not signalled
        best = LATE_TIER_HITS[tier["source"]] if late else TIER_HITS[tier["source"], filtered, True]
        bounds = {
            "candidates": ranking.CANDIDATES,
            "wide": WIDE_CANDIDATES,
            "reach": ranking.REACH,
            "around": 2 * ranking.REACH,  # the hits whose own ranks the ranked ones add
        }
        near = near_hits(connection.execute(best, params | bounds))
        ranked = neighbour_ranks(near.hits, near.ranked, rounded=rounded)
        yield from read_best_first(connection, *ranked, first)
        if near.candidates < ranking.CANDIDATES:
            return
        shown = near.ranked
    ranks, owns = neighbour_ranks(connection.execute(every, params), None, rounded=rounded)
    if shown:
        ranks = [(rank, pk) for rank, pk in ranks if pk not in shown]
    yield from read_best_first(connection, ranks, owns, first)
