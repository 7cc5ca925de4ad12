"""Step 4: recall, memstore's ``recall`` against three raw sides on the raw database: the
statements it runs, executed in plain sqlite3 (its Python overhead); the plain FTS5 query a
user would write on the same schema (bm25 top 8, a date window as a plain ``WHERE`` on the
base table, each hit with its pair neighbour, so that both return as many messages); and the
careful query, the plain one on the stem index that memstore matches by (the porter
tokenizer stems the query's words as it stems the text's), ranked before the page's rows are
read, where the plain query reads every hit's row before sorting (at 20k, "you" took 3.55 ms
that way against 7.66).

Each query runs on a connection of its own, as memstore does. On the replay's connection,
the replay's reads of the stem index pushed the plain query's pages out of the page cache:
at 20k the plain query of three words took 0.81 ms right after the replay, 0.58 on its own
connection and 0.47 back to back (measured 2026-12-06), a slower baseline that flattered
memstore. The five calls alternate (see :func:`~bench.timing.p50s_ms`); memstore and the two
queries are also timed back to back, each alone, where a query's few pages stay in the
processor's cache between calls (see :class:`RecallTimes`). Every side reads in one
transaction, as memstore does, and memstore's caches of what a recall returned are emptied
before each call, off the clock (see :func:`forget_answers`)."""

from __future__ import annotations

import itertools
import re
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from bench.cases import Query
from bench.common import HITS, read_transaction
from bench.timing import p50s_ms
from memstore import MemoryConfig, MemoryService, RecallResult
from memstore.concerns.recall import HITS_READ_FIRST, named_periods
from memstore.queries import RecallFilters
from memstore.repository import recall as search
from memstore.text import clipping, focus
from memstore.text.fts_query import build_match, content_match, pairs_match

RAW_HITS = (
    "SELECT m.* FROM messages_fts JOIN messages m ON m.pk = messages_fts.rowid "
    "WHERE messages_fts MATCH :match "
    "AND (:since IS NULL OR m.created_at >= :since) AND (:until IS NULL OR m.created_at < :until) "
    "AND (:role IS NULL OR m.role = :role) "
    "ORDER BY bm25(messages_fts) LIMIT :limit"
)
"""The plain query: the hits joined to their rows, filtered, sorted by bm25 (SQLite reads
every hit's row before it sorts them)."""
CAREFUL_HITS = {
    False: "SELECT m.* FROM (SELECT rowid AS pk, bm25(messages_stem_fts) AS score "
    "FROM messages_stem_fts WHERE messages_stem_fts MATCH :match ORDER BY score LIMIT :limit) "
    "AS best JOIN messages m ON m.pk = best.pk ORDER BY best.score",
    True: RAW_HITS.replace("messages_fts", "messages_stem_fts"),
}
"""The careful query, by filtered: on the stem index, which memstore matches by (the porter
tokenizer stems the query's words too), ranked before the rows are read, so that only the
page's rows are (a date window or a role needs each hit's row, so it keeps the plain
shape)."""
NEIGHBOUR_BEFORE = (
    "SELECT * FROM messages WHERE session_id = ? AND sequence < ? "
    "AND role IN ('user', 'assistant') AND status = 'completed' ORDER BY sequence DESC LIMIT 1"
)
NEIGHBOUR_AFTER = (
    "SELECT * FROM messages WHERE session_id = ? AND sequence > ? "
    "AND role IN ('user', 'assistant') AND status = 'completed' ORDER BY sequence LIMIT 1"
)
SAME_HITS_READ = 16 * HITS  # raw's hits compared with memstore's page
UNCLIPPED_CHARS = 64000  # recall_chars' maximum: a page of 8 fits whole


@dataclass(frozen=True)
class RecallTimes:
    """One recall case: memstore's p50 ms, raw's running the same statements, raw's plain
    bm25 query, and whether memstore's hits are the raw ranked ones."""

    case: Query
    memstore_ms: float
    raw_ms: float
    plain_ms: float
    same: bool
    unclipped_ms: float
    """memstore with a budget the page fits whole in (no clipping)."""
    memstore_alone_ms: float
    """memstore's calls back to back, nothing timed between them."""
    plain_alone_ms: float
    """The plain query's calls back to back, nothing timed between them."""
    careful_ms: float
    """The careful query (see :data:`CAREFUL_HITS`), alternating."""
    careful_alone_ms: float
    """The same, back to back."""


def case_filters(case: Query) -> RecallFilters:
    """The case's window and role, as recall takes them."""
    since, until = case.window or (None, None)
    return RecallFilters(since=since, until=until, role=case.role)


def plain_recall(
    raw: sqlite3.Connection, case: Query, *, careful: bool = False
) -> list[tuple[Any, ...]]:
    """The top hits of the case's match by plain bm25 (in its window), each followed by its
    paired neighbour (if any), in one read transaction: the query a user would write,
    without memstore's ranking; the careful query when ``careful``."""
    found: list[tuple[Any, ...]] = []
    params = {"match": case.match, "limit": HITS, **case_filters(case).params()}
    filtered = case.window is not None or case.role is not None
    hits = CAREFUL_HITS[filtered] if careful else RAW_HITS
    with read_transaction(raw):
        for hit in raw.execute(hits, params).fetchall():
            # messages columns: pk, id, session_id, sequence, role, ...
            neighbour = NEIGHBOUR_BEFORE if hit[4] == "assistant" else NEIGHBOUR_AFTER
            found.append(hit)
            found.extend(raw.execute(neighbour, (hit[2], hit[3])).fetchall())
    return found


def ranked_recall(
    raw: sqlite3.Connection, case: Query, take: int = HITS_READ_FIRST * HITS
) -> list[str | None]:
    """memstore's recall statements, run on the raw database by memstore's repository: the
    memory hits, then the history's hits (each ranking part's document count, the index
    size and the window's pk bounds, the first tier with hits weighted and ranked with its
    neighbours, the first ``take`` hits' messages with their pair partners: by default the
    first batch, as memstore's first page reads it). Returns the hits' source references in
    rank order; ids differ between the two databases. One read transaction, as memstore's."""
    with read_transaction(raw):
        return ranked_recall_refs(raw, case, take)


def ranked_recall_refs(raw: sqlite3.Connection, case: Query, take: int) -> list[str | None]:
    """:func:`ranked_recall`'s statements, in the caller's transaction."""
    filters = case_filters(case)
    match, content = build_match(case.text, case.mode), content_match(case.text, case.mode)
    pairs, stemmed = pairs_match(case.text, case.mode), case.mode == "any"
    now = datetime.now(UTC)
    search.memory_hits(
        raw, match, filters, now, HITS, stemmed=stemmed, content=content, pairs=pairs
    )
    periods = named_periods(raw, case.text)
    hits = search.history_hits(
        raw, case.text, case.mode, filters, periods, first=HITS_READ_FIRST * HITS
    )
    return [hit.source_ref for hit in itertools.islice(hits, take)]


def same_hits(service: MemoryService, raw: sqlite3.Connection, case: Query) -> bool:
    """True when memstore's conversations come in the order of raw's ranked hits, each at
    the first of them it shows (memstore leaves out orphan replies and hits already shown as
    a partner, and a pair's matched message is its better hit), among raw's first
    :data:`SAME_HITS_READ` (a page that needs more reads as "no")."""
    conversations = memstore_recall(service, case).conversations
    ranked = ranked_recall(raw, case, SAME_HITS_READ)
    at = {ref: rank for rank, ref in reversed(list(enumerate(ranked)))}
    firsts = [min(at.get(m.source_ref, len(at)) for m in c.messages) for c in conversations]
    return bool(firsts) and firsts == sorted(firsts) and max(firsts) < len(at)


@dataclass(frozen=True)
class PlainSides:
    """The connections of the plain query and of the careful one: each its own, to the raw
    database, so that neither's pages are pushed out of its page cache by another's reads."""

    plain: sqlite3.Connection
    careful: sqlite3.Connection


def forget_answers() -> None:
    """Empty memstore's caches keyed on what a recall returned (the JSON length of each
    message's text, the pattern of each query word, and the ``re`` module's own cache of
    compiled patterns, which kept that pattern compiled: 34 µs a word), which a bench
    repeating one recall would otherwise find full: a recall in use meets other messages and
    words. memstore's other caches are tables any process builds once (token classes,
    stopwords, argument rules)."""
    clipping.json_length.cache_clear()
    focus.ascii_word.cache_clear()
    re.purge()


def compare_recall(
    service: MemoryService, raw: sqlite3.Connection, sides: PlainSides, case: Query, repeat: int
) -> RecallTimes:
    """Median recall milliseconds of one case, memstore against raw: the replay of its
    statements on ``raw``, the plain and the careful query on their own connections;
    alternating, then memstore's and each query's calls back to back."""
    roomy = MemoryService(service.path, config=MemoryConfig(recall_chars=UNCLIPPED_CHARS))
    memstore_ms, raw_ms, plain_ms, unclipped_ms, careful_ms = p50s_ms(
        [
            lambda: memstore_recall(service, case),
            lambda: ranked_recall(raw, case),
            lambda: plain_recall(sides.plain, case),
            lambda: memstore_recall(roomy, case),
            lambda: plain_recall(sides.careful, case, careful=True),
        ],
        repeat,
        reset=forget_answers,
    )
    roomy.close()
    memstore_alone_ms, plain_alone_ms, careful_alone_ms = (
        p50s_ms([call], repeat, reset=forget_answers)[0]
        for call in (
            lambda: memstore_recall(service, case),
            lambda: plain_recall(sides.plain, case),
            lambda: plain_recall(sides.careful, case, careful=True),
        )
    )
    return RecallTimes(
        case=case,
        memstore_ms=memstore_ms,
        raw_ms=raw_ms,
        plain_ms=plain_ms,
        same=same_hits(service, raw, case),
        unclipped_ms=unclipped_ms,
        memstore_alone_ms=memstore_alone_ms,
        plain_alone_ms=plain_alone_ms,
        careful_ms=careful_ms,
        careful_alone_ms=careful_alone_ms,
    )


def memstore_recall(service: MemoryService, case: Query) -> RecallResult:
    """memstore's recall of the case (in its window, with its role)."""
    filters = case_filters(case)
    return service.recall(
        case.text, mode=case.mode, since=filters.since, until=filters.until, role=filters.role
    )


def compare_recalls(
    service: MemoryService,
    raw: sqlite3.Connection,
    sides: PlainSides,
    cases: Sequence[Query],
    repeat: int,
) -> list[RecallTimes]:
    """Each case's times (see :func:`compare_recall`)."""
    return [compare_recall(service, raw, sides, case, repeat) for case in cases]
