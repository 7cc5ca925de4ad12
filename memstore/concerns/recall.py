"""Recall: memories and conversation history matching a query, best first, in one page.

A query is literal text of at most 512 characters and 32 distinct words; ``any`` mode
matches any word, ``all`` every word, ``phrase`` the words consecutive (repeats kept).
Filters apply to the matched message (a memory's source message for session and role).

The query is literal text: FTS5 operators, quotes and punctuation are never syntax (a query
of them alone finds nothing). Memories
rank by bm25; conversations by bm25 of the words' stems (in any mode other forms of a word
match too), rare words weighing more, words side by side adding, a hit's neighbours in its
session adding (for words found in over 16,384 messages in all, unless the time window,
session or speaker bounds the search to fewer: first among the 1,024 best hits on their own
and the hits next to them), a named speaker counting
twice, a named month or year three times, a word saying when 1.5 times in a question asking
when, and hits holding only very frequent words (stopwords) after the rest. Memories are the
active, unexpired, confirmed ones; session and role filters reach them through their source
messages, so a memory without one cannot match those. Each history hit comes with its pair:
an assistant reply with the user request before it, or an assistant message opening the talk
with the user's answer after it (orphan replies, with neither, are left out), a user message
with the completed reply after it; of a pair of hits, the better one on its own is the
matched one, and no message is matched twice (see :mod:`memstore.concerns.recall_page`).
System, interrupted and error messages are never returned.

The ranking rules are in :mod:`memstore.text.ranking`, the SQL in
:mod:`memstore.repository.recall` and :mod:`memstore.repository.tier_hits`, the pairing of
hits and the page's character budget in :mod:`memstore.concerns.recall_page`.
"""

from __future__ import annotations

import itertools
import sqlite3
import sys
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime, tzinfo

from memstore.arguments import valid_unicode
from memstore.concerns import recall_page
from memstore.concerns.memories import memory_model
from memstore.concerns.pages import page_limit
from memstore.config import PageSize
from memstore.errors import InvalidInput, InvalidQuery
from memstore.kinds import Mode
from memstore.machine_zone import machine_zone
from memstore.queries import RecallFilters
from memstore.repository.hit_pages import MessageHit
from memstore.repository.memories import StoredMemory
from memstore.repository.recall import history_hits, history_span, memory_hits
from memstore.repository.speaker_names import searched_text
from memstore.schemas import RecallResult
from memstore.store.database import Database
from memstore.text import cjk
from memstore.text.clipping import json_size
from memstore.text.dates import YEARS, named_time
from memstore.text.fts_query import (
    MODES,
    build_match,
    content_match,
    pairs_match,
    pairs_of_long_runs,
    query_tokens,
    symbols_only,
    written_sequence,
)
from memstore.text.tokens import fold
from memstore.times import month_start, utc_now

HITS_READ_FIRST = 2
"""Hits read with their text at first, per conversation of the page (then twice as many
each time): a page of 8 took 8 to 15 hits in random recalls of the bench's 20k set and of
LoCoMo, LongMemEval and the multilingual logs together (a hit shown as another's partner, or
an orphan reply, is skipped), and reading 16 in place of 32 saved 0.13-0.18 ms of a 2.5 ms
recall."""


def recall(
    db: Database,
    pages: PageSize,
    query: str,
    mode: Mode,
    history: bool,
    filters: RecallFilters,
    limit: int | None,
) -> RecallResult:
    """At most ``limit`` (capped by the items of ``pages``) memories and conversations
    matching ``query`` in ``mode`` (``history`` False: memories only), best first, within
    the characters of JSON of ``pages`` (none: every text whole); clipped texts end with "…"
    and are ``truncated``.

    Raises:
        InvalidQuery: For a blank, too long or too wordy query, or text that is not valid
            Unicode (a query of punctuation or symbols alone finds nothing).
        InvalidInput: For a limit below 1.
    """
    if not valid_unicode(query):  # a lone surrogate: SQLite only takes valid Unicode
        raise InvalidQuery("query", f"{query!r} is not valid Unicode; retype it.")
    empty = RecallResult(memories=[], conversations=[], truncated=False)
    size = page_limit(pages, limit)
    if mode in MODES and symbols_only(query):  # no word: it matches nothing, and the store
        with db.read():  # is checked as every recall checks it (found by review)
            return empty
    match = build_match(query, mode)  # a bad query is refused before the store is opened
    terms, now = clip_terms(query, mode), utc_now()
    room = sys.maxsize if pages.chars is None else pages.chars - json_size(empty)
    with db.read() as connection:
        rows = memories_of(connection, (query, match), mode, filters, now, size)
        found = [memory_model(row, now) for row in rows]
        hits = history_of(connection, query, mode, filters, size) if history else iter(())
        chosen = list(itertools.islice(recall_page.conversations(hits), size))
    return recall_page.fitted(found, chosen, limit=size, room=room, folded_terms=terms)


def memories_of(
    connection: sqlite3.Connection,
    asked: tuple[str, str],
    mode: Mode,
    filters: RecallFilters,
    now: datetime,
    size: int,
) -> list[StoredMemory]:
    """The memories matching the query of ``asked`` (its text and MATCH) in ``mode`` (see
    :func:`~memstore.repository.recall.memory_hits`), in ``any`` mode with the speakers'
    CJK names set apart from the words glued to them, as history searches them (found by
    review: "李雷电影" found no memory about 电影)."""
    query, match = asked
    said = searched_text(connection, query, mode) if mode == "any" else query
    match = match if said == query else build_match(said, mode)
    content, pairs = content_match(said, mode), pairs_match(said, mode)
    return memory_hits(
        connection,
        match,
        filters,
        now,
        size,
        stemmed=mode == "any",
        content=content,
        pairs=pairs,
        written=written_sequence(query, mode),
    )


def history_of(
    connection: sqlite3.Connection, query: str, mode: Mode, filters: RecallFilters, size: int
) -> Iterator[MessageHit]:
    """The history hits of ``query``, best first, for a page of ``size`` conversations (see
    :func:`~memstore.repository.recall.history_hits`), the months and years it names
    weighing the hits written in them."""
    periods = named_periods(connection, query)
    first = HITS_READ_FIRST * size
    return history_hits(connection, query, mode, filters, periods, first=first)


def clip_terms(query: str, mode: Mode) -> frozenset[str]:
    """The words a clip of a hit centres on: the query's tokens as the index folds them (CJK
    characters as they are), a long CJK run's pairs outside ``phrase`` mode, as
    :func:`~memstore.text.fts_query.build_match` searches them."""
    tokens = query_tokens(query)
    searched = tokens if mode == "phrase" else pairs_of_long_runs(tokens)
    return frozenset(word if cjk.is_cjk(word) else fold(word) for word in searched)


def named_periods(connection: sqlite3.Connection, query: str) -> list[tuple[datetime, datetime]]:
    """The [start, end) instants (UTC) of the months and years ``query`` names (see
    :mod:`memstore.text.dates`), in the machine's time zone: each named month of each named
    year, of every year the history spans when it names none, or the named years whole."""
    named = named_time(query)
    if named is None:
        return []
    place = local_place()
    years: Sequence[int] = named.years
    if not years:
        span = history_span(connection)
        if span is None:
            return []
        first, last = (local_year(moment, place) for moment in span)
        years = range(first, last + 1)
    months = [(month, month + 1) for month in named.months] or [(1, 13)]
    return [
        (month_start(year, start, place), month_start(year, end, place))
        for year in years
        for start, end in months
    ]


def local_year(moment: datetime, place: tzinfo) -> int:
    """The year of ``moment`` in ``place``, within :data:`~memstore.text.dates.YEARS` (a time
    at the ends of the calendar, where a zone's offset would leave it, is clamped first)."""
    earliest = datetime(YEARS.start, 1, 2, tzinfo=UTC)
    latest = datetime(YEARS.stop - 1, 12, 30, tzinfo=UTC)
    return min(max(moment, earliest), latest).astimezone(place).year


def local_place() -> tzinfo:
    """The machine's time zone, or UTC when it has none that can be read."""
    try:
        return machine_zone()
    except InvalidInput:
        return UTC
