"""Step 5: ``search_words`` against the fts5vocab ``row`` query it wraps, and
``word_instances`` against the fts5vocab ``instance`` query it wraps (with highlight())."""

from __future__ import annotations

import sqlite3
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bench.cases import VOCAB_ROW, Query
from bench.common import HITS, fts_string, read_transaction
from bench.timing import p50s_ms
from memstore import MemoryService
from memstore.times import format_utc

VOCAB_INSTANCE = (
    "CREATE VIRTUAL TABLE IF NOT EXISTS temp.vocab_instance "
    "USING fts5vocab(main, messages_fts, instance)"
)
LAST_CHAR = "\U0010ffff"  # above every token character: [p, p + LAST_CHAR) holds p*
RAW_WORDS_PAGE = (
    "SELECT term, cnt, doc FROM temp.vocab WHERE term >= ? AND term < ? ORDER BY term LIMIT ?"
)
RAW_WORDS_TOTAL = "SELECT count(*) FROM temp.vocab WHERE term >= ? AND term < ?"
RAW_INSTANCE_PAGE = (
    "SELECT m.pk, m.id, m.created_at, i.offset FROM temp.vocab_instance AS i "
    "JOIN messages AS m ON m.pk = i.doc WHERE i.term = ? "
    "ORDER BY m.created_at DESC, m.id, i.offset LIMIT ? OFFSET ?"
)
RAW_INSTANCE_TOTAL = "SELECT count(*) FROM temp.vocab_instance WHERE term = ?"
RAW_HIGHLIGHT = (
    "SELECT highlight(messages_fts, 0, ?, ?), m.session_id, m.role, m.sequence, m.source_ref "
    "FROM messages_fts JOIN messages AS m ON m.pk = messages_fts.rowid "
    "WHERE messages_fts MATCH ? AND messages_fts.rowid = ?"
)
RAW_OPEN, RAW_CLOSE = "\ue000", "\ue001"  # private-use markers, absent from the corpus


@dataclass(frozen=True)
class WordsTimes:
    """search_words of one prefix: words for it, both sides' p50 ms, and whether the pages
    and totals agree."""

    prefix: str
    total: int
    memstore_ms: float
    raw_ms: float
    same: bool


@dataclass(frozen=True)
class InstancesTimes:
    """word_instances of one word: its label, occurrences, messages holding it, both sides'
    p50 ms, and whether the first pages (record times, matched texts) and totals agree."""

    label: str
    word: str
    total: int
    documents: int
    memstore_ms: float
    raw_ms: float
    same: bool


def raw_vocab_tables(raw: sqlite3.Connection) -> None:
    """The raw connection's temp fts5vocab tables over the messages index: row and instance."""
    raw.execute(VOCAB_ROW)
    raw.execute(VOCAB_INSTANCE)


# search_words


def raw_search_words(
    raw: sqlite3.Connection, prefix: str
) -> tuple[list[tuple[str, int, int]], int]:
    """The first page of (word, occurrences, documents) starting with ``prefix`` and the
    number of such words, in one read transaction."""
    bounds = (prefix, prefix + LAST_CHAR)
    with read_transaction(raw):
        page = raw.execute(RAW_WORDS_PAGE, (*bounds, HITS)).fetchall()
        total = raw.execute(RAW_WORDS_TOTAL, bounds).fetchone()[0]
    return page, total


def memstore_search_words(service: MemoryService, prefix: str) -> tuple[list[Any], int]:
    """memstore's first page for ``prefix`` as raw_search_words returns it."""
    page = service.search_words(prefix)
    return [(w.word, w.occurrences, w.documents) for w in page.words], page.total


def compare_words(
    service: MemoryService, raw: sqlite3.Connection, prefix: str, repeat: int
) -> WordsTimes:
    """search_words(prefix) on both sides, interleaved, after one warm-up."""
    memstore_ms, raw_ms = p50s_ms(
        [lambda: service.search_words(prefix), lambda: raw_search_words(raw, prefix)], repeat
    )
    expected = raw_search_words(raw, prefix)
    same = memstore_search_words(service, prefix) == expected
    return WordsTimes(prefix, expected[1], memstore_ms, raw_ms, same)


# word_instances


def unmark(marked: str) -> tuple[str, list[tuple[int, int]]]:
    """The text highlight() marked with RAW_OPEN / RAW_CLOSE, and the [start, end) character
    spans of its marked regions in that text."""
    parts = marked.split(RAW_OPEN)
    text = [parts[0]]
    spans: list[tuple[int, int]] = []
    at = len(parts[0])
    for part in parts[1:]:
        inside, _, after = part.partition(RAW_CLOSE)
        spans.append((at, at + len(inside)))
        text += [inside, after]
        at += len(inside) + len(after)
    return "".join(text), spans


def raw_instance_rows(
    raw: sqlite3.Connection, word: str
) -> tuple[list[tuple[Any, ...]], int, dict[int, tuple[Any, ...]]]:
    """In one read transaction: the first page of the fts5vocab instance query joined to
    messages, its total, and each page message's highlight() record by pk."""
    phrase = fts_string(word)
    with read_transaction(raw):
        rows = raw.execute(RAW_INSTANCE_PAGE, (word, HITS, 0)).fetchall()
        total = raw.execute(RAW_INSTANCE_TOTAL, (word,)).fetchone()[0]
        records = {
            pk: raw.execute(RAW_HIGHLIGHT, (RAW_OPEN, RAW_CLOSE, phrase, pk)).fetchone()
            for pk in dict.fromkeys(row[0] for row in rows)
        }
    return rows, total, records


def raw_word_instances(raw: sqlite3.Connection, word: str) -> tuple[list[tuple[Any, ...]], int]:
    """The first page of the occurrences of ``word`` (newest message first, then id, then
    token position) and their total, in one read transaction: the fts5vocab instance query
    joined to messages, a count, and one highlight() per message on the page.

    Each instance is (id, token index, start, end, matched text, excerpt, excerpt start,
    created_at, session_id, role, sequence, source_ref). On the first page every message's
    occurrences start at its first one, so the k-th of a message is its k-th highlight.
    """
    rows, total, records = raw_instance_rows(raw, word)
    located = {pk: unmark(record[0]) for pk, record in records.items()}
    nth: Counter[int] = Counter()
    found: list[tuple[Any, ...]] = []
    for pk, message_id, created_at, position in rows:
        text, spans = located[pk]
        start, end = spans[nth[pk]]
        nth[pk] += 1
        low = max(0, start - 60)
        excerpt = text[low : min(len(text), end + 60, low + 400)]
        matched = text[start:end]
        fields = records[pk][1:]
        found.append((message_id, position, start, end, matched, excerpt, low, created_at, *fields))
    return found, total


def memstore_instances(service: MemoryService, word: str) -> tuple[list[tuple[Any, ...]], int]:
    """memstore's first page of ``word`` as (created_at, matched text), and its total (ids
    are random, so they differ between the two databases). Offsets and token indexes are
    left out: in a record holding CJK text the raw side reads the index form, whose offsets
    are not the text's and which holds a boundary token after each CJK run (memstore maps
    the offsets back and counts the text's own tokens; a plain query cannot)."""
    page = service.word_instances(word)
    found = [(format_utc(i.created_at), i.matched_text) for i in page.instances]
    return found, page.total


def raw_instances(raw: sqlite3.Connection, word: str) -> tuple[list[tuple[Any, ...]], int]:
    """raw_word_instances as memstore_instances returns it."""
    page, total = raw_word_instances(raw, word)
    return [(row[7], row[4]) for row in page], total


def compare_instances(
    service: MemoryService, raw: sqlite3.Connection, case: Query, repeat: int
) -> InstancesTimes:
    """word_instances(word) of a single-word recall case on both sides, interleaved, after
    one warm-up."""
    word = case.text
    memstore_ms, raw_ms = p50s_ms(
        [lambda: service.word_instances(word), lambda: raw_word_instances(raw, word)], repeat
    )
    page, total = raw_instances(raw, word)
    same = memstore_instances(service, word) == (page, total)
    return InstancesTimes(case.label, word, total, case.hits, memstore_ms, raw_ms, same)


def compare_all_instances(
    service: MemoryService, raw: sqlite3.Connection, cases: Sequence[Query], repeat: int
) -> list[InstancesTimes]:
    """word_instances of the single-word cases (the first two: rare and common)."""
    return [compare_instances(service, raw, case, repeat) for case in cases[:2]]
