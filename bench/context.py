"""Step 8: the per-turn context for a real user utterance over 1,000 remembered utterances,
memstore's ``context`` against one SELECT of the memories in force, one bm25 MATCH of the
query's words and a string join."""

from __future__ import annotations

import gc
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.common import (
    CATEGORIES,
    fetch_all,
    migrated,
    raw_connect,
    read_transaction,
    utc_now,
)
from bench.remember import Write, remember_both
from bench.timing import p50s_ms
from memstore import MemoryService
from memstore.concerns.context import HEADER
from memstore.concerns.memory_rules import normalize_content
from memstore.text.fts_query import MAX_DISTINCT_TOKENS, ranking_match
from memstore.text.tokens import fold, tokenize

CONTEXT_ROWS = (
    "SELECT id, category, pinned, content FROM memories "
    "WHERE status = 'active' AND (expires_at IS NULL OR expires_at > ?) "
    "ORDER BY pinned DESC, created_at DESC, pk DESC"
)
CONTEXT_HITS = (
    "SELECT m.id FROM (SELECT rowid, bm25(memories_stem_fts) r FROM memories_stem_fts "
    "WHERE memories_stem_fts MATCH ?) h JOIN memories m ON m.pk = h.rowid "
    "WHERE m.status = 'active' AND (m.expires_at IS NULL OR m.expires_at > ?) ORDER BY h.r, m.pk"
)
MEMORY_TEXTS = "SELECT id, content FROM memories"
CONTEXT_MEMORIES = 1000
MAX_QUERY_WORDS = MAX_DISTINCT_TOKENS  # 32
QUERY_CANDIDATES = 101


@dataclass(frozen=True)
class ContextTimes:
    """The context case and both sides' p50 milliseconds."""

    memories: int
    query: str
    hits: int
    memstore_ms: float
    raw_ms: float
    shown: tuple[int, int]
    same_memories: bool
    same_order: bool


def raw_context(raw: sqlite3.Connection, match: str, budget: int) -> tuple[str, list[str]]:
    """The context block the plain way, in one read transaction: the memories in force
    (pinned, then newest first), the ids matching ``match`` by bm25, then lines in the order
    pinned, matching, rest, joined while they fit in ``budget`` characters.

    Returns the text and the ids it shows, in order.
    """
    now = utc_now()
    with read_transaction(raw):
        rows = raw.execute(CONTEXT_ROWS, (now,)).fetchall()
        matching = [row[0] for row in raw.execute(CONTEXT_HITS, (match, now))] if rows else []
    by_id = {row[0]: row for row in rows}
    chosen = [by_id[i] for i in matching if not by_id[i][2]]
    picked = {row[0] for row in chosen}
    pinned = [row for row in rows if row[2]]
    rest = [row for row in rows if not row[2] and row[0] not in picked]
    return context_block(pinned + chosen + rest, budget)


def context_block(rows: Sequence[tuple[Any, ...]], budget: int) -> tuple[str, list[str]]:
    """The header and one line per (id, category, pinned, content) row, in order, while they
    fit in ``budget`` characters: the text, and the ids it shows."""
    lines = [HEADER]
    shown: list[str] = []
    size = len(HEADER)
    for memory_id, category, is_pinned, content in rows:
        label = f"pinned {category}" if is_pinned else category
        line = f"- [{label}] {content} (id {memory_id})"
        size += 1 + len(line)
        if size > budget:
            break
        lines.append(line)
        shown.append(memory_id)
    return "\n".join(lines), shown


def context_query(
    manifest: Sequence[dict[str, Any]], raw: sqlite3.Connection, stored: Sequence[str]
) -> tuple[str, str, int]:
    """A user utterance of 8 to 32 words that is not a stored memory: of the first
    ``QUERY_CANDIDATES`` in manifest order, the one matching the median number of memories.

    Returns the query, its MATCH expression and its number of matching memories.
    """
    taken = {normalize_content(content) for content in stored}
    candidates: list[tuple[int, int, str, str]] = []
    sql = "SELECT count(*) FROM memories_stem_fts WHERE memories_stem_fts MATCH ?"
    for record in manifest:
        text = record["content"].strip()
        words = len({fold(token) for token in tokenize(text)})
        if record["role"] != "user" or not 8 <= words <= MAX_QUERY_WORDS:
            continue
        if normalize_content(text) in taken:
            continue
        ranked = ranking_match(text)  # the OR of its words, CJK runs as the index holds them
        assert ranked is not None
        match = ranked[0]
        candidates.append((raw.execute(sql, (match,)).fetchone()[0], len(candidates), text, match))
        if len(candidates) == QUERY_CANDIDATES:
            break
    hits, _, text, match = sorted(candidates)[len(candidates) // 2]
    return text, match, hits


def compare_contexts(
    work: Path, manifest: Sequence[dict[str, Any]], contents: Sequence[str], repeat: int
) -> ContextTimes:
    """``contents`` remembered by memstore and, the raw way, into a second database; then the
    context of a real utterance on both, interleaved, after one warm-up.

    The raw block shows whole lines only (memstore clips long contents to fit more), so the
    check is that its memories are the first of memstore's, and whether in the same order
    (memstore ranks a memory holding two query words side by side higher, and memories of
    the query's content words above those of its stopwords alone; the plain query ranks by
    bm25 alone).
    """
    service = MemoryService(migrated(work / "context-memstore.sqlite3"))
    raw = raw_connect(migrated(work / "context-raw.sqlite3"))
    try:
        writes = [Write(text, CATEGORIES[i % len(CATEGORIES)]) for i, text in enumerate(contents)]
        remember_both(service, raw, writes)
        query, match, hits = context_query(manifest, raw, contents)
        budget = service.config.context_chars
        gc.collect()
        memstore_ms, raw_ms = p50s_ms(
            [lambda: service.context(query), lambda: raw_context(raw, match, budget)], repeat
        )
        memstore_ids = service.context(query).memory_ids
        raw_ids = raw_context(raw, match, budget)[1]
        memstore_text = dict(fetch_all(service.path, MEMORY_TEXTS))
        raw_text = dict(fetch_all(work / "context-raw.sqlite3", MEMORY_TEXTS))
        first = [memstore_text[i] for i in memstore_ids[: len(raw_ids)]]
        plain = [raw_text[i] for i in raw_ids]
        shown = (len(memstore_ids), len(raw_ids))
        same = (sorted(first) == sorted(plain), first == plain)
        return ContextTimes(len(writes), query, hits, memstore_ms, raw_ms, shown, *same)
    finally:
        raw.close()
        service.close()
