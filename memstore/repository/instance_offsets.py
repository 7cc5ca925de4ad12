"""Where each instance of a word stands in its record's text, in Python characters: found
with SQLite's own highlight() over the record's indexed text."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from memstore.repository.instances import TABLES, Page, PageRecord
from memstore.repository.words import (
    PROBE_CLEAR,
    PROBE_HIGHLIGHT,
    PROBE_INSERT,
    is_sequence,
)
from memstore.store.fts_names import MEMORIES_FTS, MESSAGES_FTS
from memstore.text import highlight
from memstore.text.tokens import tokens_at

SCAN_BOUND = 4096
"""The most records of the word one highlight statement passes over per record it shows:
those in its pk span (each about 0.1 microseconds here), at most the word's documents."""

# The short records' highlight(): the word's list read over [low, high] only; ``rowid + 0``
# keeps the pks a filter, or SQLite would run the MATCH once per pk.
HIGHLIGHT = {
    kind: f"SELECT rowid, highlight({index}, 0, :open, :close) FROM {index} "
    f"WHERE {index} MATCH :phrase AND rowid BETWEEN :low AND :high "
    "AND rowid + 0 IN (SELECT value FROM json_each(:pks))"
    for kind, index in (("message", MESSAGES_FTS), ("memory", MEMORIES_FTS))
}


Located = list[tuple[int, tuple[int, int]]]
"""A record's shown instances: each one's token index and ``[start, end)`` in its text."""


def located(connection: sqlite3.Connection, word: str, found: Page) -> list[Located]:
    """For each record of the page, in order, its shown instances of ``word``: the
    highlighted regions from its ``skip``-th, as many as it shows positions, at those
    positions; in a record indexed as its index form, the tokens at those positions, with
    their token indexes in its own text (see :func:`tokens_at`)."""
    phrase = '"' + word.replace('"', '""') + '"'
    bound = {"open": highlight.OPEN, "close": highlight.CLOSE, "phrase": phrase}
    short = [record for record in found.records if highlighted_whole(record)]
    marked = highlighted(connection, bound, short, found.documents)
    return [
        record_spans(connection, record, word, marked.get((record.source_type, record.pk)), bound)
        for record in found.records
    ]


def highlighted_whole(record: PageRecord) -> bool:
    """Whether the record is highlighted whole on its FTS table: its own text indexed, short,
    and without the marker characters."""
    content = record.content
    return (
        record.index_text is None
        and len(content) <= highlight.PIECE_CHARS
        and not highlight.UNSAFE.search(content)
    )


def highlighted(
    connection: sqlite3.Connection,
    bound: dict[str, Any],
    records: list[PageRecord],
    documents: int | None,
) -> dict[tuple[str, int], str]:
    """The highlight() text of each of ``records`` (short, their own text indexed) by
    ``(source_type, pk)``, with the markers and phrase ``bound``: a statement per run of pks
    close enough (:data:`SCAN_BOUND`), or per source type when the word is in at most that
    many messages."""
    marked: dict[tuple[str, int], str] = {}
    for kind in TABLES:
        pks = sorted(record.pk for record in records if record.source_type == kind)
        sparse = kind == "message" and documents is not None and documents <= SCAN_BOUND
        for run in [pks] if sparse else pk_runs(pks):
            if run:
                params = bound | {"low": run[0], "high": run[-1], "pks": json.dumps(run)}
                for pk, text in connection.execute(HIGHLIGHT[kind], params):
                    marked[kind, pk] = str(text)
    return marked


def pk_runs(pks: list[int]) -> list[list[int]]:
    """Sorted ``pks`` in runs, each pk within :data:`SCAN_BOUND` of the one before."""
    runs: list[list[int]] = []
    for pk in pks:
        if runs and pk - runs[-1][-1] <= SCAN_BOUND:
            runs[-1].append(pk)
        else:
            runs.append([pk])
    return runs


def record_spans(
    connection: sqlite3.Connection,
    record: PageRecord,
    word: str,
    marked: str | None,
    bound: dict[str, Any],
) -> Located:
    """The record's shown instances (see :func:`located`): from its tokens when it is
    indexed as its index form, else at its positions, with its :func:`own_spans` (markers
    and phrase ``bound``)."""
    if record.index_text is not None:
        return tokens_at(record.content, record.positions, len(word) if is_sequence(word) else 1)
    spans = own_spans(connection, record, marked, bound)
    # fewer spans than positions: an index its text was changed behind, which the caller tells
    return list(zip(record.positions, spans, strict=False))


def own_spans(
    connection: sqlite3.Connection,
    record: PageRecord,
    marked: str | None,
    bound: dict[str, Any],
) -> list[tuple[int, int]]:
    """The spans of the shown instances of a record indexed as its own text: from its
    highlight() text ``marked`` when it was highlighted whole, else from its pieces in the
    probe table."""
    take = len(record.positions)
    if marked is not None:
        return highlight.marked_spans(marked)[record.skip : record.skip + take]
    spans: list[tuple[int, int]] = []
    seen = 0
    for start, piece in highlight.pieces(record.content):
        for low, high in piece_regions(connection, piece, bound):
            if seen >= record.skip:
                spans.append((start + low, start + high))
                if len(spans) == take:
                    return spans
            seen += 1
    return spans


def piece_regions(
    connection: sqlite3.Connection, piece: str, bound: dict[str, Any]
) -> list[tuple[int, int]]:
    """The highlighted regions of one piece of a text (from :func:`highlight.pieces`), by
    SQLite's own tokenizer in the probe table."""
    connection.execute(PROBE_INSERT, {"value": piece})
    try:
        found = connection.execute(PROBE_HIGHLIGHT, bound).fetchone()
    finally:
        connection.execute(PROBE_CLEAR)
    return [] if found is None else highlight.marked_spans(str(found[0]))
