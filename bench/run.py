"""Scale benchmark: memstore against plain sqlite3 on the same schema and data, in one run.

Usage:
    .venv/bin/python bench/run.py [--scale N] [--out DIR] [--repeat K] [--profile]

Steps, all in one run so that both sides share the machine's state (each step's time is
printed to stderr as it finishes, and summed up in the report):

1. Generate (or reuse, cached under ``--out``) a scale set of about N messages with
   ``../shared/tools/corpus2logs.py``.
2. Import its daily logs with ``MemoryService.import_markdown`` into a fresh database.
3. Insert the same rows with plain ``sqlite3`` ``executemany`` into a second fresh database
   migrated to the same schema, one transaction per file, through the same FTS triggers.
4. Time recall of a rare word and a common word (mode any), a rare pair of words (mode all)
   and the same pair as a phrase: memstore's ``recall`` against the statements it runs,
   executed in plain ``sqlite3`` on the raw database (memory hits, each ranking part's
   document count, the first batch of weighted hits of the first tier with hits, their pair
   partners), checking that both give the same hits in the same order. The time of a plain
   bm25 query with each hit's neighbour (no ranking parts) is printed beside, for scale.
5. Time ``search_words`` for the two-letter prefix with the most words (first page) against
   the fts5vocab ``row`` query it wraps (page and total), and ``word_instances`` of the rare
   and the common word (first page) against the fts5vocab ``instance`` query it wraps (page
   ordered by the record's time, total, one highlight() per record on the page).
6. Time ``record_message`` into a live session on the imported database against one
   ``BEGIN IMMEDIATE; SELECT max(sequence); INSERT; COMMIT`` per message on the raw one.
7. Time ``remember`` on two fresh databases: memstore against the same writes in plain
   ``sqlite3`` (duplicate and key-holder lookups, supersession, insert through the FTS
   trigger), one transaction per call, for distinct utterances of the manifest, every 5th
   with a key that repeats so that supersession happens.
8. Remember 1,000 utterances on two more fresh databases (memstore, and raw the same way),
   then time the per-turn context for a real user utterance: memstore's ``context`` against
   one SELECT of the memories in force, one bm25 MATCH of the query's words and a string join.
9. Peak memory of importing one daily log just under 16 MiB (utterances of the manifest,
   repeated as needed): the peak RSS of a subprocess importing it with memstore, minus that
   of a subprocess that only imports memstore and opens the service; against a subprocess
   that reads the file, splits it naively and ``executemany``-inserts the rows, minus one
   that only opens the connection.
10. Print one table: throughput, p50 latencies and peak memory, memstore against raw, with
    the machine.

Both databases are migrated before the clock starts, so the import times cover only the
import itself. The raw side's rows are precomputed from ``manifest.jsonl`` (ids, times,
source references), so its time is SQLite's work and nothing else: it is the floor.
With ``--profile``, the report ends with cProfile statistics of a second memstore import
and of each memstore call over 1.3 times its raw path.
"""

from __future__ import annotations

import argparse
import cProfile
import functools
import gc
import hashlib
import io
import itertools
import json
import os
import platform
import pstats
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from memstore.concerns.context import HEADER
from memstore.concerns.memory_rules import MAX_CONTENT_CHARS, normalize_content
from memstore.config import MemoryConfig
from memstore.guard import secret_kind
from memstore.kinds import Category, Mode, values
from memstore.repository import recall as search
from memstore.service import MemoryService
from memstore.store.models import format_utc
from memstore.text import ranking
from memstore.text.fts_query import (
    MAX_DISTINCT_TOKENS,
    QueryPart,
    build_match,
    fold,
    ranking_tiers,
    tokenize,
)

CATEGORIES = values(Category)
REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"
CORPUS2LOGS = SHARED / "tools" / "corpus2logs.py"
SPEAKERS = {"Diego": "user", "Morgan": "assistant"}
OWNER = "diego"
HITS = 8  # memstore's default max_results

INSERT_SESSION = "INSERT INTO sessions (id, started_at, ended_at, metadata) VALUES (?, ?, NULL, ?)"
INSERT_MESSAGE = (
    "INSERT INTO messages (id, session_id, sequence, role, content, created_at, status, "
    "source_ref) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
)
INSERT_IMPORT = (
    "INSERT INTO imports (path, session_id, sealed_size, sealed_sha256, imported_at) "
    "VALUES (?, ?, ?, ?, ?)"
)
RAW_HITS = (
    "SELECT m.* FROM (SELECT rowid, bm25(messages_fts) r FROM messages_fts "
    "WHERE messages_fts MATCH ?) h JOIN messages m ON m.pk = h.rowid ORDER BY r LIMIT ?"
)
NEIGHBOUR_BEFORE = (
    "SELECT * FROM messages WHERE session_id = ? AND sequence < ? "
    "AND role IN ('user', 'assistant') AND status = 'completed' ORDER BY sequence DESC LIMIT 1"
)
NEIGHBOUR_AFTER = (
    "SELECT * FROM messages WHERE session_id = ? AND sequence > ? "
    "AND role IN ('user', 'assistant') AND status = 'completed' ORDER BY sequence LIMIT 1"
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
ROLES = ("user", "assistant")
RAW_LAST_SEQUENCE = "SELECT max(sequence) FROM messages WHERE session_id = ?"
ACTIVE_DUPLICATE = "SELECT pk, id FROM memories WHERE status = 'active' AND normalized_content = ?"
ACTIVE_KEY = "SELECT pk, id FROM memories WHERE status = 'active' AND key = ?"
RETIRE = "UPDATE memories SET status = 'superseded', modified_at = ? WHERE pk = ?"
INSERT_MEMORY = (
    "INSERT INTO memories (id, content, normalized_content, category, key, status, origin, "
    "confidence, pinned, created_at, modified_at, expires_at, superseded_by) "
    "VALUES (?, ?, ?, ?, ?, 'active', 'explicit', 1.0, 0, ?, ?, NULL, NULL)"
)
POINT = "UPDATE memories SET superseded_by = ?, modified_at = ? WHERE pk = ?"
CONTEXT_ROWS = (
    "SELECT id, category, pinned, content FROM memories "
    "WHERE status = 'active' AND (expires_at IS NULL OR expires_at > ?) "
    "ORDER BY pinned DESC, created_at DESC, pk DESC"
)
CONTEXT_HITS = (
    "SELECT m.id FROM (SELECT rowid, bm25(memories_fts) r FROM memories_fts "
    "WHERE memories_fts MATCH ?) h JOIN memories m ON m.pk = h.rowid "
    "WHERE m.status = 'active' AND (m.expires_at IS NULL OR m.expires_at > ?) ORDER BY h.r, m.pk"
)
# The memories columns both sides must agree on (random ids and times aside), with the
# content of the memory that superseded each; {db} is the schema name.
MEMORY_COLUMNS = (
    "m.content, m.normalized_content, m.category, m.key, m.status, m.origin, m.confidence, "
    "m.pinned, m.expires_at, "
    "(SELECT s.content FROM {db}.memories AS s WHERE s.id = m.superseded_by)"
)
KEY_EVERY = 5  # every 5th remember call holds BENCH_KEY
BENCH_KEY = "bench_topic"
CONTEXT_MEMORIES = 1000
MAX_QUERY_WORDS = MAX_DISTINCT_TOKENS  # 32
QUERY_CANDIDATES = 101
UNCLIPPED_CHARS = 64000  # recall_chars' maximum: a page of 8 fits whole
# The columns both imports must agree on, per table (random ids, pks and times of the import
# itself aside).
COMPARED = {
    "sessions": "id, started_at, ended_at, metadata",
    "messages": "session_id, sequence, role, content, created_at, status, source_ref",
    "imports": "path, session_id, sealed_size, sealed_sha256",
}


# Data set


def require_shared() -> None:
    """Exit with a clear message when ../shared (and its corpus2logs tool) is missing."""
    if not CORPUS2LOGS.is_file():
        sys.exit(
            f"bench: {CORPUS2LOGS} not found. The benchmark needs the shared folder beside the "
            f"repository ({SHARED}) with tools/corpus2logs.py and corpora/."
        )


def scale_set(out: Path, scale: int) -> Path:
    """The ``scale`` folder of a corpus2logs run for ``scale`` messages, generated once.

    A ``complete`` marker is written after a successful run, so an interrupted generation is
    redone rather than reused.
    """
    root = out / f"corpus-{scale}"
    marker = root / "complete"
    if not marker.is_file():
        shutil.rmtree(root, ignore_errors=True)
        print(f"generating the scale set ({scale} messages) in {root} ...", flush=True)
        command = [sys.executable, str(CORPUS2LOGS), str(root), "--scale", str(scale)]
        subprocess.run(command, check=True)
        marker.write_text(f"{scale}\n")
    return root / "scale"


def read_manifest(scale_dir: Path) -> list[dict[str, Any]]:
    """The manifest records of the scale set, in file then byte order."""
    with open(scale_dir / "manifest.jsonl", encoding="utf-8") as lines:
        return [json.loads(line) for line in lines]


# Raw rows, precomputed


@dataclass
class FileRows:
    """Everything the raw side inserts for one daily log, ready for ``executemany``."""

    session: tuple[str, str, str]
    messages: list[tuple[Any, ...]]
    imports: tuple[str, str, int, str, str]


def session_id_for(path: str) -> str:
    """The synthetic session id memstore gives a daily log path."""
    return "log_" + hashlib.sha256(path.encode()).hexdigest()[:24]


def stored_time(iso: str) -> str:
    """A manifest UTC time as memstore stores it (fixed-width UTC text)."""
    return format_utc(datetime.fromisoformat(iso))


def message_row(
    session_id: str, sequence: int, record: dict[str, Any], path: str
) -> tuple[Any, ...]:
    """One messages row: id, session_id, sequence, role, content, created_at, status, source_ref."""
    return (
        "msg_" + uuid.uuid4().hex,
        session_id,
        sequence,
        SPEAKERS[record["speaker"]],
        record["content"],
        stored_time(record["created_at"]),
        "completed",
        f"{path}#byte={record['byte']}",
    )


def file_rows(path: str, records: Sequence[dict[str, Any]], now: str) -> FileRows:
    """The session, message and imports rows of one file's manifest records.

    The imports row (sealed size and SHA-256 of the whole file) is what memstore records
    after an ``include_tail`` import, so both sides write the same rows.
    """
    session_id = session_id_for(path)
    metadata = json.dumps({"source": "daily_log", "path": path, "boundaries": "unknown"})
    data = Path(path).read_bytes()
    return FileRows(
        session=(session_id, stored_time(records[0]["created_at"]), metadata),
        messages=[
            message_row(session_id, sequence, record, path)
            for sequence, record in enumerate(records, start=1)
        ],
        imports=(path, session_id, len(data), hashlib.sha256(data).hexdigest(), now),
    )


def raw_plan(corpus_root: Path, manifest: Sequence[dict[str, Any]]) -> list[FileRows]:
    """Per-file raw rows for the whole manifest, files in name order (as memstore imports)."""
    by_file: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for record in manifest:
        by_file[record["file"]].append(record)
    now = format_utc(datetime.now(UTC))
    return [
        file_rows(str((corpus_root / name).resolve()), by_file[name], now)
        for name in sorted(by_file)
    ]


# Import


def migrated(path: Path) -> Path:
    """A fresh database file at ``path`` with memstore's schema (migrations run)."""
    for stale in path.parent.glob(path.name + "*"):
        stale.unlink()
    MemoryService(path).health()
    return path


def raw_connect(path: Path) -> sqlite3.Connection:
    """A plain sqlite3 connection: autocommit mode (explicit BEGIN), WAL, foreign keys."""
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute("PRAGMA journal_mode = WAL")
    connection.execute("PRAGMA foreign_keys = ON")
    return connection


def import_memstore(service: MemoryService, logs: Path) -> tuple[int, float]:
    """Messages imported and seconds taken by ``import_markdown`` of the folder ``logs``."""
    start = time.perf_counter()
    report = service.import_markdown([logs], speakers=SPEAKERS, include_tail=True)
    elapsed = time.perf_counter() - start
    if report.errors:
        sys.exit(f"bench: memstore import reported {report.errors} file errors")
    return report.imported, elapsed


def import_raw(connection: sqlite3.Connection, plan: Sequence[FileRows]) -> tuple[int, float]:
    """Messages inserted and seconds taken inserting ``plan``, one transaction per file."""
    start = time.perf_counter()
    for rows in plan:
        connection.execute("BEGIN IMMEDIATE")
        connection.execute(INSERT_SESSION, rows.session)
        connection.executemany(INSERT_MESSAGE, rows.messages)
        connection.execute(INSERT_IMPORT, rows.imports)
        connection.execute("COMMIT")
    elapsed = time.perf_counter() - start
    return sum(len(rows.messages) for rows in plan), elapsed


def differing_rows(memstore_db: Path, raw: sqlite3.Connection) -> int:
    """Rows of sessions, messages and imports present in one database but not the other."""
    raw.execute("ATTACH DATABASE ? AS other", (str(memstore_db),))
    try:
        count = 0
        for table, columns in COMPARED.items():
            for left, right in (("main", "other"), ("other", "main")):
                query = (
                    f"SELECT count(*) FROM (SELECT {columns} FROM {left}.{table} "
                    f"EXCEPT SELECT {columns} FROM {right}.{table})"
                )
                count += raw.execute(query).fetchone()[0]
        return count
    finally:
        raw.execute("DETACH DATABASE other")


# Query choice


@dataclass(frozen=True)
class Query:
    """One recall benchmark case: its label, user text, memstore mode and FTS5 MATCH."""

    label: str
    text: str
    mode: Mode
    match: str
    hits: int = 0
    tiers: tuple[tuple[QueryPart, ...], ...] = ()


def plain_word(term: str, shortest: int) -> bool:
    """True for an ASCII alphabetic term of at least ``shortest`` letters."""
    return term.isascii() and term.isalpha() and len(term) >= shortest


def vocabulary(raw: sqlite3.Connection) -> list[tuple[str, int]]:
    """(term, document count) of the messages index, most documents first, then by term."""
    raw.execute(
        "CREATE VIRTUAL TABLE IF NOT EXISTS temp.vocab USING fts5vocab(main, messages_fts, row)"
    )
    return raw.execute("SELECT term, doc FROM temp.vocab ORDER BY doc DESC, term").fetchall()


def rare_word(vocab: Sequence[tuple[str, int]]) -> str:
    """The most frequent plain word found in 3 to 10 documents."""
    return next(term for term, docs in vocab if 3 <= docs <= 10 and plain_word(term, 5))


def common_word(vocab: Sequence[tuple[str, int]]) -> str:
    """The first plain word of three letters or more among the 20 most frequent terms."""
    return next(term for term, _ in vocab[:20] if plain_word(term, 3))


def rare_phrase(raw: sqlite3.Connection) -> str:
    """The most frequent two-word phrase of plain words found in 3 to 10 messages."""
    documents: Counter[tuple[str, str]] = Counter()
    for (content,) in raw.execute("SELECT content FROM messages_searchable"):
        words = [fold(token) for token in tokenize(content)]
        documents.update(set(itertools.pairwise(words)))
    candidates = sorted(
        (-docs, pair)
        for pair, docs in documents.items()
        if 3 <= docs <= 10 and all(plain_word(word, 4) for word in pair)
    )
    return " ".join(candidates[0][1])


def fts_string(word: str) -> str:
    """A word as an FTS5 string literal."""
    return '"' + word.replace('"', '""') + '"'


def choose_queries(raw: sqlite3.Connection, vocab: Sequence[tuple[str, int]]) -> list[Query]:
    """The rare word, common word and phrase cases, chosen deterministically from the data
    (``vocab`` is the vocabulary of the messages index)."""
    phrase = rare_phrase(raw)
    cases = [
        Query("rare", rare_word(vocab), "any", ""),
        Query("common", common_word(vocab), "any", ""),
        Query("all", phrase, "all", " AND ".join(map(fts_string, phrase.split()))),
        Query("phrase", phrase, "phrase", " + ".join(map(fts_string, phrase.split()))),
    ]
    return [with_hits(raw, case) for case in cases]


def with_hits(raw: sqlite3.Connection, case: Query) -> Query:
    """``case`` with its MATCH expression filled in and its number of matching messages."""
    match = case.match or fts_string(case.text)
    sql = "SELECT count(*) FROM messages_fts WHERE messages_fts MATCH ?"
    hits = raw.execute(sql, (match,)).fetchone()[0]
    tiers = tuple(tuple(tier) for tier in ranking_tiers(case.text, case.mode))
    return Query(case.label, case.text, case.mode, match, hits, tiers)


# Recall


def plain_recall(raw: sqlite3.Connection, match: str) -> list[tuple[Any, ...]]:
    """The top hits of ``match`` by plain bm25, each followed by its paired neighbour (if
    any): the floor of any recall, without memstore's ranking."""
    found: list[tuple[Any, ...]] = []
    for hit in raw.execute(RAW_HITS, (match, HITS)).fetchall():
        # messages columns: pk, id, session_id, sequence, role, ...
        neighbour = NEIGHBOUR_BEFORE if hit[4] == "assistant" else NEIGHBOUR_AFTER
        found.append(hit)
        found.extend(raw.execute(neighbour, (hit[2], hit[3])).fetchall())
    return found


def ranked_recall(raw: sqlite3.Connection, case: Query) -> list[str | None]:
    """memstore's recall statements, run in plain sqlite3 on the raw database: the memory
    hits, each ranking part's document count and the index size, then the first batch of
    the first tier with hits, weighted the same way, with its pair partners. Returns the
    hits' source references in rank order (the first batch, as memstore's first page reads
    it); ids differ between the two databases."""
    now = format_utc(datetime.now(UTC))
    no_filters = {"session_id": None, "role": None, "since": None, "until": None}
    memory = {"query": build_match(case.text, case.mode), "now": now, "limit": HITS}
    raw.execute(search.MEMORY_HITS, memory | no_filters).fetchall()
    matches = json.dumps(list({part.match: None for tier in case.tiers for part in tier}))
    documents = dict(raw.execute(search.PART_DOCUMENTS, {"matches": matches}).fetchall())
    (total,) = raw.execute(search.INDEXED_MESSAGES).fetchone()
    for tier in case.tiers:
        weights = ranking.weighted_parts(tier, documents, total)
        if any(role == 1 for _, role in weights.values()):
            page = {"parts": json.dumps(weights), "limit": search.FIRST_BATCH, "offset": 0}
            rows = raw.execute(search.HISTORY_HITS, page | no_filters).fetchall()
            partners = json.dumps([row[-1] for row in rows if row[-1]])
            raw.execute(search.PARTNERS, {"pks": partners}).fetchall()
            return [row[7] for row in rows]  # HISTORY_HITS: id, ..., source_ref, rank, partner
    return []


def same_hits(service: MemoryService, raw: sqlite3.Connection, case: Query) -> bool:
    """True when memstore's conversations, by the source reference of the matched message,
    are raw's ranked hits in the same order (memstore leaves out orphan replies and hits
    already shown as a partner)."""
    conversations = service.recall(case.text, mode=case.mode).conversations
    shown = [m.source_ref for c in conversations for m in c.messages if m.id == c.matched_id]
    ranked = ranked_recall(raw, case)
    return bool(shown) and shown == [hit for hit in ranked if hit in set(shown)]


def seconds(call: Callable[[], object]) -> float:
    """Wall-clock seconds one call of ``call`` takes."""
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def p50s_ms(calls: Sequence[Callable[[], object]], repeat: int) -> list[float]:
    """Median milliseconds of each of ``calls`` over ``repeat`` rounds, after one warm-up.

    The calls alternate within each round, so load from other processes on the machine
    falls on all of them alike rather than on whichever ran during a busy spell.
    """
    for call in calls:
        call()
    rounds = [[seconds(call) for call in calls] for _ in range(repeat)]
    return [statistics.median(column) * 1000 for column in zip(*rounds, strict=True)]


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


def compare_recall(
    service: MemoryService, raw: sqlite3.Connection, case: Query, repeat: int
) -> RecallTimes:
    """Median recall milliseconds of one case, memstore against raw."""
    roomy = MemoryService(service.path, config=MemoryConfig(recall_chars=UNCLIPPED_CHARS))
    memstore_ms, raw_ms, plain_ms, unclipped_ms = p50s_ms(
        [
            lambda: service.recall(case.text, mode=case.mode),
            lambda: ranked_recall(raw, case),
            lambda: plain_recall(raw, case.match),
            lambda: roomy.recall(case.text, mode=case.mode),
        ],
        repeat,
    )
    roomy.close()
    same = same_hits(service, raw, case)
    return RecallTimes(case, memstore_ms, raw_ms, plain_ms, same, unclipped_ms)


# Words: search_words and word_instances


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
    p50 ms, and whether the first pages (record times, token indexes, spans, matched texts)
    and totals agree."""

    label: str
    word: str
    total: int
    documents: int
    memstore_ms: float
    raw_ms: float
    same: bool


def raw_vocab_tables(raw: sqlite3.Connection) -> None:
    """The raw connection's temp fts5vocab tables over the messages index: row and instance."""
    raw.execute(
        "CREATE VIRTUAL TABLE IF NOT EXISTS temp.vocab USING fts5vocab(main, messages_fts, row)"
    )
    raw.execute(
        "CREATE VIRTUAL TABLE IF NOT EXISTS temp.vocab_instance "
        "USING fts5vocab(main, messages_fts, instance)"
    )


def word_prefix(vocab: Sequence[tuple[str, int]]) -> str:
    """The two-letter prefix of the most plain words of three letters or more (first in
    alphabetical order among equals)."""
    counts = Counter(term[:2] for term, _ in vocab if plain_word(term, 3))
    return max(sorted(counts), key=counts.__getitem__)


def raw_search_words(
    raw: sqlite3.Connection, prefix: str
) -> tuple[list[tuple[str, int, int]], int]:
    """The first page of (word, occurrences, documents) starting with ``prefix`` and the
    number of such words, in one read transaction."""
    bounds = (prefix, prefix + LAST_CHAR)
    raw.execute("BEGIN")
    try:
        page = raw.execute(RAW_WORDS_PAGE, (*bounds, HITS)).fetchall()
        total = raw.execute(RAW_WORDS_TOTAL, bounds).fetchone()[0]
    finally:
        raw.execute("COMMIT")
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


def raw_word_instances(raw: sqlite3.Connection, word: str) -> tuple[list[tuple[Any, ...]], int]:
    """The first page of the occurrences of ``word`` (newest message first, then id, then
    token position) and their total, in one read transaction: the fts5vocab instance query
    joined to messages, a count, and one highlight() per message on the page.

    Each instance is (id, token index, start, end, matched text, excerpt, excerpt start,
    created_at, session_id, role, sequence, source_ref). On the first page every message's
    occurrences start at its first one, so the k-th of a message is its k-th highlight.
    """
    phrase = fts_string(word)
    raw.execute("BEGIN")
    try:
        rows = raw.execute(RAW_INSTANCE_PAGE, (word, HITS, 0)).fetchall()
        total = raw.execute(RAW_INSTANCE_TOTAL, (word,)).fetchone()[0]
        records = {
            pk: raw.execute(RAW_HIGHLIGHT, (RAW_OPEN, RAW_CLOSE, phrase, pk)).fetchone()
            for pk in dict.fromkeys(row[0] for row in rows)
        }
    finally:
        raw.execute("COMMIT")
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
    """memstore's first page of ``word`` as (created_at, token index, start, end, matched
    text), and its total (ids are random, so they differ between the two databases)."""
    page = service.word_instances(word)
    found = [
        (format_utc(i.created_at), i.token_index, i.start, i.end, i.matched_text)
        for i in page.instances
    ]
    return found, page.total


def raw_instances(raw: sqlite3.Connection, word: str) -> tuple[list[tuple[Any, ...]], int]:
    """raw_word_instances as memstore_instances returns it."""
    page, total = raw_word_instances(raw, word)
    return [(row[7], *row[1:5]) for row in page], total


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


# Messages: record_message


@dataclass(frozen=True)
class RecordTimes:
    """p50 milliseconds of both sides' record_message calls and whether they stored the same
    (sequence, role, content) rows."""

    calls: int
    memstore_ms: float
    raw_ms: float
    differing: int


def raw_record(raw: sqlite3.Connection, session_id: str, role: str, content: str) -> int:
    """One message appended to ``session_id`` with plain sqlite3 in one transaction: the next
    sequence number, then the insert (through the FTS trigger). Returns the row's pk."""
    now = format_utc(datetime.now(UTC))
    raw.execute("BEGIN IMMEDIATE")
    try:
        highest = raw.execute(RAW_LAST_SEQUENCE, (session_id,)).fetchone()[0]
        row = (
            "msg_" + uuid.uuid4().hex,
            session_id,
            (highest or 0) + 1,
            role,
            content,
            now,
            "completed",
            None,
        )
        pk = raw.execute(INSERT_MESSAGE, row).lastrowid
        raw.execute("COMMIT")
    except BaseException:
        raw.execute("ROLLBACK")
        raise
    assert pk is not None
    return pk


def session_messages(connection: sqlite3.Connection, session_id: str) -> list[tuple[Any, ...]]:
    """(sequence, role, content, status) of a session's messages, in sequence."""
    return connection.execute(
        "SELECT sequence, role, content, status FROM messages WHERE session_id = ? "
        "ORDER BY sequence",
        (session_id,),
    ).fetchall()


def compare_records(
    service: MemoryService, raw: sqlite3.Connection, contents: Sequence[str]
) -> RecordTimes:
    """Each content recorded (user and assistant in turn) into a new live session of the
    imported databases, memstore then raw; the first pair is the warm-up, the p50 is over
    the rest."""
    session_id = service.start_session().id
    raw_session = "ses_" + uuid.uuid4().hex
    raw.execute(INSERT_SESSION, (raw_session, format_utc(datetime.now(UTC)), "{}"))
    memstore_s: list[float] = []
    raw_s: list[float] = []
    for index, content in enumerate(contents):
        role = ROLES[index % 2]
        record = functools.partial(service.record_message, session_id, role, content)
        memstore_s.append(seconds(record))
        raw_s.append(seconds(functools.partial(raw_record, raw, raw_session, role, content)))
    stored = sqlite3.connect(service.path)
    try:
        left = set(session_messages(stored, session_id))
    finally:
        stored.close()
    right = set(session_messages(raw, raw_session))
    return RecordTimes(
        calls=len(contents) - 1,
        memstore_ms=statistics.median(memstore_s[1:]) * 1000,
        raw_ms=statistics.median(raw_s[1:]) * 1000,
        differing=len(left ^ right),
    )


# Memories: remember and context


@dataclass(frozen=True)
class Write:
    """One ``remember`` call: content (already trimmed), category and optional key."""

    content: str
    category: str
    key: str | None = None


def secret_like(content: str) -> bool:
    """True when memstore's credential guard would refuse ``content``."""
    return secret_kind(content) is not None


def memory_contents(manifest: Sequence[dict[str, Any]], count: int) -> list[str]:
    """``count`` utterances of the manifest with distinct normalised contents, in a fixed
    pseudo-random order (by the SHA-256 of file and byte offset) so they span the corpus.

    Utterances memstore would refuse (over 4,000 characters, or credential-like) are skipped.
    """

    def place(record: dict[str, Any]) -> bytes:
        return hashlib.sha256(f"{record['file']}#{record['byte']}".encode()).digest()

    seen: set[str] = set()
    chosen: list[str] = []
    for record in sorted(manifest, key=place):
        content = record["content"].strip()
        normalized = normalize_content(content)
        if not content or len(content) > MAX_CONTENT_CHARS or normalized in seen:
            continue
        if secret_like(content):
            continue
        seen.add(normalized)
        chosen.append(content)
        if len(chosen) == count:
            return chosen
    sys.exit(f"bench: the manifest has fewer than {count} distinct usable utterances")


def remember_writes(contents: Sequence[str]) -> list[Write]:
    """One write per content, categories in turn; every ``KEY_EVERY``-th (after the first,
    the warm-up) holds ``BENCH_KEY``, so each but the first of those supersedes the last."""
    return [
        Write(
            content,
            CATEGORIES[index % len(CATEGORIES)],
            BENCH_KEY if index % KEY_EVERY == 0 and index else None,
        )
        for index, content in enumerate(contents)
    ]


def memstore_remember(service: MemoryService, write: Write) -> object:
    """``write`` through memstore."""
    return service.remember(write.content, category=write.category, key=write.key)


def raw_remember(raw: sqlite3.Connection, write: Write) -> tuple[int, str]:
    """``write`` with plain sqlite3 in one transaction, as memstore's rules require: reuse an
    active duplicate, else supersede the active holder of the key (if any) by a new row
    inserted through the FTS trigger. Returns the (pk, id) of the memory that holds it."""
    normalized = normalize_content(write.content)
    now = format_utc(datetime.now(UTC))
    raw.execute("BEGIN IMMEDIATE")
    try:
        duplicate = raw.execute(ACTIVE_DUPLICATE, (normalized,)).fetchone()
        if duplicate is not None:  # never for the benchmark's distinct contents
            raw.execute("COMMIT")
            return duplicate[0], duplicate[1]
        holder = None if write.key is None else raw.execute(ACTIVE_KEY, (write.key,)).fetchone()
        if holder is not None:
            raw.execute(RETIRE, (now, holder[0]))
        memory_id = "mem_" + uuid.uuid4().hex
        row = (memory_id, write.content, normalized, write.category, write.key, now, now)
        pk = raw.execute(INSERT_MEMORY, row).lastrowid
        if holder is not None:
            raw.execute(POINT, (memory_id, now, holder[0]))
        raw.execute("COMMIT")
    except BaseException:
        raw.execute("ROLLBACK")
        raise
    assert pk is not None
    return pk, memory_id


def differing_memories(memstore_db: Path, raw: sqlite3.Connection) -> int:
    """Memories present in one database but not the other, compared on every column but the
    random ids and the times, and on the content of the memory that superseded each."""
    raw.execute("ATTACH DATABASE ? AS other", (str(memstore_db),))
    try:
        count = 0
        for left, right in (("main", "other"), ("other", "main")):
            query = (
                f"SELECT count(*) FROM (SELECT {MEMORY_COLUMNS.format(db=left)} "
                f"FROM {left}.memories AS m EXCEPT SELECT {MEMORY_COLUMNS.format(db=right)} "
                f"FROM {right}.memories AS m)"
            )
            count += raw.execute(query).fetchone()[0]
        return count
    finally:
        raw.execute("DETACH DATABASE other")


@dataclass(frozen=True)
class RememberTimes:
    """p50 milliseconds of both sides' remember calls, and what those calls did."""

    calls: int
    memstore_ms: float
    raw_ms: float
    keyed: int
    superseded: int
    differing: int
    guard_ms: float
    """p50 of the credential guard alone (detect-secrets' detectors) on the same contents."""


def compare_remembers(work: Path, writes: Sequence[Write]) -> RememberTimes:
    """Each write through memstore, then raw, into two fresh databases; the first pair is the
    warm-up, the p50 is over the rest."""
    service = MemoryService(migrated(work / "remember-memstore.sqlite3"))
    raw = raw_connect(migrated(work / "remember-raw.sqlite3"))
    try:
        memstore_s: list[float] = []
        raw_s: list[float] = []
        for write in writes:
            memstore_s.append(seconds(functools.partial(memstore_remember, service, write)))
            raw_s.append(seconds(functools.partial(raw_remember, raw, write)))
        status = "SELECT count(*) FROM memories WHERE status = 'superseded'"
        return RememberTimes(
            calls=len(writes) - 1,
            memstore_ms=statistics.median(memstore_s[1:]) * 1000,
            raw_ms=statistics.median(raw_s[1:]) * 1000,
            keyed=sum(write.key is not None for write in writes[1:]),
            superseded=raw.execute(status).fetchone()[0],
            differing=differing_memories(service.path, raw),
            guard_ms=statistics.median(
                seconds(functools.partial(secret_kind, write.content)) for write in writes[1:]
            )
            * 1000,
        )
    finally:
        raw.close()
        service.close()


def any_word_match(text: str) -> str:
    """The OR of the first 32 distinct words of ``text`` as FTS5 strings."""
    distinct: dict[str, str] = {}
    for token in tokenize(text):
        distinct.setdefault(fold(token), token)
        if len(distinct) == MAX_QUERY_WORDS:
            break
    return " OR ".join(map(fts_string, distinct.values()))


def raw_context(raw: sqlite3.Connection, match: str, budget: int) -> tuple[str, list[str]]:
    """The context block the plain way, in one read transaction: the memories in force
    (pinned, then newest first), the ids matching ``match`` by bm25, then lines in the order
    pinned, matching, rest, joined while they fit in ``budget`` characters.

    Returns the text and the ids it shows, in order.
    """
    now = format_utc(datetime.now(UTC))
    raw.execute("BEGIN")
    try:
        rows = raw.execute(CONTEXT_ROWS, (now,)).fetchall()
        matching = [row[0] for row in raw.execute(CONTEXT_HITS, (match, now))] if rows else []
    finally:
        raw.execute("COMMIT")
    by_id = {row[0]: row for row in rows}
    chosen = [by_id[i] for i in matching if not by_id[i][2]]
    picked = {row[0] for row in chosen}
    pinned = [row for row in rows if row[2]]
    rest = [row for row in rows if not row[2] and row[0] not in picked]
    lines = [HEADER]
    shown: list[str] = []
    size = len(HEADER)
    for memory_id, category, is_pinned, content in pinned + chosen + rest:
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
    sql = "SELECT count(*) FROM memories_fts WHERE memories_fts MATCH ?"
    for record in manifest:
        text = record["content"].strip()
        words = len({fold(token) for token in tokenize(text)})
        if record["role"] != "user" or not 8 <= words <= MAX_QUERY_WORDS:
            continue
        if normalize_content(text) in taken:
            continue
        match = any_word_match(text)
        candidates.append((raw.execute(sql, (match,)).fetchone()[0], len(candidates), text, match))
        if len(candidates) == QUERY_CANDIDATES:
            break
    hits, _, text, match = sorted(candidates)[len(candidates) // 2]
    return text, match, hits


@dataclass(frozen=True)
class ContextTimes:
    """The context case and both sides' p50 milliseconds."""

    memories: int
    query: str
    hits: int
    memstore_ms: float
    raw_ms: float
    shown: tuple[int, int]
    same_order: bool


def memory_contents_by_id(path: Path) -> dict[str, str]:
    """Memory id -> content of the database at ``path``."""
    connection = sqlite3.connect(path)
    try:
        return dict(connection.execute("SELECT id, content FROM memories").fetchall())
    finally:
        connection.close()


def compare_contexts(
    work: Path, manifest: Sequence[dict[str, Any]], contents: Sequence[str], repeat: int
) -> ContextTimes:
    """``contents`` remembered by memstore and, the raw way, into a second database; then the
    context of a real utterance on both, interleaved, after one warm-up.

    The raw block shows whole lines only (memstore clips long contents to fit more), so the
    check is that its memories are the first of memstore's, in the same order.
    """
    service = MemoryService(migrated(work / "context-memstore.sqlite3"))
    raw = raw_connect(migrated(work / "context-raw.sqlite3"))
    try:
        writes = [Write(text, CATEGORIES[i % len(CATEGORIES)]) for i, text in enumerate(contents)]
        for write in writes:
            memstore_remember(service, write)
            raw_remember(raw, write)
        query, match, hits = context_query(manifest, raw, contents)
        budget = service.config.context_chars
        gc.collect()
        memstore_ms, raw_ms = p50s_ms(
            [lambda: service.context(query), lambda: raw_context(raw, match, budget)], repeat
        )
        memstore_ids = service.context(query).memory_ids
        raw_ids = raw_context(raw, match, budget)[1]
        memstore_text = memory_contents_by_id(service.path)
        raw_text = memory_contents_by_id(work / "context-raw.sqlite3")
        same = [memstore_text[i] for i in memstore_ids[: len(raw_ids)]] == [
            raw_text[i] for i in raw_ids
        ]
        return ContextTimes(
            len(writes), query, hits, memstore_ms, raw_ms, (len(memstore_ids), len(raw_ids)), same
        )
    finally:
        raw.close()
        service.close()


# Peak memory of importing one large log

PEAK_LOG_BYTES = 16 * 1024 * 1024  # memstore refuses larger files
PEAK_DAY = "2023-12-31"  # before the scale set's first day
PEAK_STAMP = "[{:02d}:{:02d}:{:02d} +0100] "
# Runs the command in argv, then prints the peak RSS (KiB) of its process tree.
MEASURE = """
import resource, subprocess, sys
subprocess.run(sys.argv[1:], check=True)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""
# argv: database [log]. Opens the service; with a log, imports it and prints the seconds.
MEMSTORE_CHILD = """
import sys, time
from memstore.config import MemoryConfig
from memstore.service import MemoryService
service = MemoryService(sys.argv[1])
service.get_session("none")
if len(sys.argv) > 2:
    start = time.perf_counter()
    report = service.import_markdown(
        [sys.argv[2]], speakers={"Diego": "user", "Morgan": "assistant"}, include_tail=True
    )
    if report.errors:
        sys.exit(f"memstore import failed: {report.files[0].error}")
    print(time.perf_counter() - start)
"""
# argv: database [log session_id]. Opens the connection; with a log, reads it, splits its
# records naively (on a blank line then "[" and two digits and ":", which corpus2logs never
# leaves inside a message), inserts them in one transaction, prints the seconds.
RAW_CHILD = """
import re, sqlite3, sys, time, uuid
from datetime import UTC, datetime
connection = sqlite3.connect(sys.argv[1], isolation_level=None)
connection.execute("PRAGMA journal_mode = WAL")
connection.execute("PRAGMA foreign_keys = ON")
if len(sys.argv) > 2:
    start = time.perf_counter()
    path, session_id = sys.argv[2], sys.argv[3]
    day = path.rsplit("/", 1)[-1][:10]
    roles = {"Diego": "user", "Morgan": "assistant"}
    with open(path, "rb") as log:
        pieces = re.split(rb"\\n\\n\\[(?=\\d\\d:)", log.read())
    rows = []
    at = len(pieces[0])
    for sequence, piece in enumerate(pieces[1:], start=1):
        at += 3
        stamp, _, rest = piece.decode().partition("\\n")
        speaker, _, content = rest.partition(": ")
        zone = stamp[9:12] + ":" + stamp[12:14]
        when = datetime.fromisoformat(day + "T" + stamp[:8] + zone).astimezone(UTC)
        rows.append((
            "msg_" + uuid.uuid4().hex, session_id, sequence, roles[speaker], content,
            when.isoformat(timespec="microseconds"), "completed", f"{path}#byte={at - 1}",
        ))
        at += len(piece)
    connection.execute("BEGIN IMMEDIATE")
    connection.execute(
        "INSERT INTO sessions (id, started_at, ended_at, metadata) VALUES (?, ?, NULL, '{}')",
        (session_id, rows[0][5]),
    )
    connection.executemany(
        "INSERT INTO messages (id, session_id, sequence, role, content, created_at, status, "
        "source_ref) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        rows,
    )
    connection.execute("COMMIT")
    print(time.perf_counter() - start)
"""


def large_log(manifest: Sequence[dict[str, Any]], folder: Path) -> tuple[Path, int]:
    """A daily log just under 16 MiB in folder/PEAK_DAY.md, in the format corpus2logs writes,
    of the manifest's utterances with their speakers in order (repeated from the start as
    needed), stamps spread over the day. Returns its path and number of records."""
    folder.mkdir(parents=True, exist_ok=True)
    header = f"Morgan Log — {PEAK_DAY}".encode()
    stamp_bytes = len(PEAK_STAMP.format(0, 0, 0).encode())
    bodies: list[bytes] = []
    size = len(header)
    for record in itertools.cycle(manifest):
        body = f"{record['speaker']}: {record['content']}".encode()
        grown = size + 2 + stamp_bytes + 1 + len(body)  # blank line, stamp line, body
        if grown > PEAK_LOG_BYTES - 1024:
            break
        bodies.append(body)
        size = grown
    data = bytearray(header)
    for index, body in enumerate(bodies):
        second = index * 86399 // len(bodies)
        stamp = PEAK_STAMP.format(second // 3600, second // 60 % 60, second % 60)
        data += b"\n\n" + stamp.encode() + b"\n" + body
    path = folder / f"{PEAK_DAY}.md"
    path.write_bytes(bytes(data))
    return path, len(bodies)


@dataclass(frozen=True)
class PeakMemory:
    """The large log, and for each side its stored messages, import seconds, and the peak RSS
    (MiB) of the importing subprocess and of its baseline."""

    log_bytes: int
    records: int
    memstore_messages: int
    memstore_seconds: float
    memstore_mib: float
    memstore_baseline_mib: float
    raw_messages: int
    raw_seconds: float
    raw_mib: float
    raw_baseline_mib: float

    def net(self) -> tuple[float, float]:
        """(memstore, raw) peak MiB above their baselines."""
        return (
            self.memstore_mib - self.memstore_baseline_mib,
            self.raw_mib - self.raw_baseline_mib,
        )


def measured(code: str, *argv: str) -> tuple[float, float | None]:
    """Peak RSS (MiB) of ``python -c code argv...`` run in a fresh measuring process (so no
    earlier child counts), and the seconds the child printed (None when it printed none)."""
    command = [sys.executable, "-c", MEASURE, sys.executable, "-c", code, *argv]
    result = subprocess.run(command, check=False, stdout=subprocess.PIPE, text=True)
    if result.returncode:
        sys.exit(f"bench: a peak-memory subprocess failed with {argv} (its error is above)")
    lines = result.stdout.split()
    return int(lines[-1]) / 1024, float(lines[0]) if len(lines) > 1 else None


def message_count(path: Path) -> int:
    """Messages stored in the database at ``path``."""
    connection = sqlite3.connect(path)
    try:
        return int(connection.execute("SELECT count(*) FROM messages").fetchone()[0])
    finally:
        connection.close()


def compare_peaks(work: Path, manifest: Sequence[dict[str, Any]]) -> PeakMemory:
    """Import the large log with memstore and raw, each in a subprocess, on fresh migrated
    databases; and the same subprocesses without the import, as baselines."""
    log, records = large_log(manifest, work / "peak-log")
    paths = {
        name: migrated(work / f"peak-{name}.sqlite3")
        for name in ("memstore", "memstore-base", "raw", "raw-base")
    }
    memstore_base, _ = measured(MEMSTORE_CHILD, str(paths["memstore-base"]))
    memstore_mib, memstore_s = measured(MEMSTORE_CHILD, str(paths["memstore"]), str(log))
    raw_base, _ = measured(RAW_CHILD, str(paths["raw-base"]))
    session_id = session_id_for(str(log.resolve()))
    raw_mib, raw_s = measured(RAW_CHILD, str(paths["raw"]), str(log.resolve()), session_id)
    return PeakMemory(
        log_bytes=log.stat().st_size,
        records=records,
        memstore_messages=message_count(paths["memstore"]),
        memstore_seconds=memstore_s or 0.0,
        memstore_mib=memstore_mib,
        memstore_baseline_mib=memstore_base,
        raw_messages=message_count(paths["raw"]),
        raw_seconds=raw_s or 0.0,
        raw_mib=raw_mib,
        raw_baseline_mib=raw_base,
    )


# Report


def cpu_model() -> str:
    """The CPU model name from /proc/cpuinfo, or the platform's processor string."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            for line in info:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def machine_lines(scale: int, messages: int, files: int) -> list[str]:
    """The header lines: data size and machine."""
    return [
        f"N = {scale} (scale set: {messages} messages in {files} daily logs)",
        f"platform: {platform.platform()}",
        f"cpu: {cpu_model()} ({os.cpu_count()} logical CPUs)",
        f"python {platform.python_version()}, sqlite {sqlite3.sqlite_version}",
    ]


def table(rows: Sequence[Sequence[str]]) -> str:
    """Rows as plain text, first column left-aligned, the others right-aligned."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = []
    for row in rows:
        cells = [row[0].ljust(widths[0])]
        cells += [cell.rjust(width) for cell, width in zip(row[1:], widths[1:], strict=True)]
        lines.append("  ".join(cells).rstrip())
    lines.insert(1, "-" * len(lines[0]))
    return "\n".join(lines)


@dataclass(frozen=True)
class Row:
    """One table row: memstore and raw values of a throughput ("rate"), a latency ("time")
    or a peak memory ("memory"); the ratio is always memstore / raw."""

    label: str
    memstore: float
    raw: float
    kind: str

    def ratio(self) -> float:
        """memstore / raw."""
        return self.memstore / self.raw

    def slow(self) -> bool:
        """True for a latency over 1.3 times the raw path's."""
        return self.kind == "time" and self.ratio() > 1.3

    def cells(self) -> list[str]:
        """The printed cells: label, both values, ratio, target (none for memory)."""
        value, target = {"rate": (",.0f", "> 1"), "time": (".2f", "< 1.3"), "memory": (".1f", "")}[
            self.kind
        ]
        return [
            self.label,
            format(self.memstore, value),
            format(self.raw, value),
            f"{self.ratio():.2f}",
            target,
        ]


# Profile


def profile_import(logs: Path, path: Path, top: int = 25) -> str:
    """cProfile statistics (by own time, then cumulative) of a memstore import into a fresh
    database at ``path``."""
    service = MemoryService(migrated(path))
    profiler = cProfile.Profile()
    profiler.runcall(service.import_markdown, [logs], speakers=SPEAKERS, include_tail=True)
    return profile_text(profiler, top)


def profile_text(profiler: cProfile.Profile, top: int) -> str:
    """The ``top`` functions of a profile by own time, then by cumulative time."""
    stream = io.StringIO()
    for key in ("tottime", "cumulative"):
        pstats.Stats(profiler, stream=stream).sort_stats(key).print_stats(top)
    return stream.getvalue()


def profile_calls(label: str, call: Callable[[], object], runs: int, top: int = 25) -> str:
    """cProfile statistics of ``runs`` calls of ``call``, titled with the row's label."""
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(runs):
        call()
    profiler.disable()
    return f"profile of memstore, {label}, {runs} calls:\n" + profile_text(profiler, top)


# Main


class Steps:
    """Wall-clock time of each step of the run, printed to stderr as each one ends."""

    def __init__(self) -> None:
        self.times: list[tuple[str, float]] = []

    @contextmanager
    def step(self, name: str) -> Iterator[None]:
        """Time the body as the step ``name``."""
        print(f"bench: {name} ...", file=sys.stderr, flush=True)
        start = time.perf_counter()
        yield
        elapsed = time.perf_counter() - start
        self.times.append((name, elapsed))
        print(f"bench: {name} took {elapsed:.1f} s", file=sys.stderr, flush=True)

    def line(self) -> str:
        """One report line: each step's seconds and the total."""
        steps = ", ".join(f"{name} {seconds:.1f}" for name, seconds in self.times)
        total = sum(seconds for _, seconds in self.times)
        return f"steps (s): {steps}; total {total:.1f}"


def arguments(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--scale", type=int, default=20000, help="messages (default 20000)")
    parser.add_argument(
        "--out",
        type=Path,
        default=Path(tempfile.gettempdir()) / "memstore-bench",
        help="work folder; the generated logs are cached here (default: %(default)s)",
    )
    parser.add_argument(
        "--repeat", type=int, default=50, help="timed runs per latency case (default 50)"
    )
    parser.add_argument(
        "--profile",
        action="store_true",
        help="also cProfile a second memstore import and each memstore call over 1.3x raw",
    )
    return parser.parse_args(argv)


@dataclass(frozen=True)
class ImportTimes:
    """Both imports: files, messages stored and seconds taken, and how many rows differ."""

    files: int
    memstore_messages: int
    memstore_seconds: float
    raw_messages: int
    raw_seconds: float
    differing: int

    def rates(self) -> tuple[float, float]:
        """(memstore, raw) messages per second."""
        return (
            self.memstore_messages / self.memstore_seconds,
            self.raw_messages / self.raw_seconds,
        )


def compare_imports(service: MemoryService, raw: sqlite3.Connection, logs: Path) -> ImportTimes:
    """Import the logs with memstore, insert the same rows raw, and check both hold the same.

    The raw side's precomputed rows are built after memstore's import and live only inside
    this call, so neither memstore's import nor its recall runs beside that large heap
    (a large live heap makes every full collection, and so allocation-heavy code, slower).
    """
    imported, memstore_s = import_memstore(service, logs)
    plan = raw_plan(logs.parent.parent, read_manifest(logs.parent))
    inserted, raw_s = import_raw(raw, plan)
    differing = differing_rows(service.path, raw)
    return ImportTimes(len(plan), imported, memstore_s, inserted, raw_s, differing)


def compare_recalls(
    service: MemoryService, raw: sqlite3.Connection, cases: Sequence[Query], repeat: int
) -> list[RecallTimes]:
    """Each case's times."""
    return [compare_recall(service, raw, case, repeat) for case in cases]


@dataclass
class Results:
    """Everything one run measured."""

    times: ImportTimes
    recalls: list[RecallTimes]
    words: WordsTimes
    instances: list[InstancesTimes]
    records: RecordTimes
    remembers: RememberTimes
    contexts: ContextTimes
    peak: PeakMemory

    def rows(self) -> list[Row]:
        """The table's rows, in the order of the run."""
        rows = [Row("import msgs/s", *self.times.rates(), "rate")]
        rows += [
            Row(f"recall {r.case.label} p50 ms", r.memstore_ms, r.raw_ms, "time")
            for r in self.recalls
        ]
        rows.append(Row("search_words p50 ms", self.words.memstore_ms, self.words.raw_ms, "time"))
        rows += [
            Row(f"word_instances {case.label} p50 ms", case.memstore_ms, case.raw_ms, "time")
            for case in self.instances
        ]
        rows.append(
            Row("record_message p50 ms", self.records.memstore_ms, self.records.raw_ms, "time")
        )
        rows.append(
            Row("remember p50 ms", self.remembers.memstore_ms, self.remembers.raw_ms, "time")
        )
        rows.append(Row("context p50 ms", self.contexts.memstore_ms, self.contexts.raw_ms, "time"))
        rows.append(Row("import 16 MiB log peak MiB", *self.peak.net(), "memory"))
        return rows


def yes(flag: bool) -> str:
    """yes or NO."""
    return "yes" if flag else "NO"


def report(args: argparse.Namespace, results: Results, steps: Steps) -> str:
    """The printed report: machine, data, chosen cases, step times, then the table."""
    times, words, records = results.times, results.words, results.records
    remembers, contexts, peak = results.remembers, results.contexts, results.peak
    lines = machine_lines(args.scale, times.raw_messages, times.files)
    lines.append(
        f"import: memstore {times.memstore_messages} msgs in {times.memstore_seconds:.2f} s, "
        f"raw {times.raw_messages} in {times.raw_seconds:.2f} s; "
        f"rows differing between the two databases: {times.differing}"
    )
    lines += [
        f"recall {r.case.label}: {r.case.text!r} (mode {r.case.mode}, {r.case.hits} matching "
        f"messages); raw runs memstore's statements (memory hits, part counts, weighted hits, "
        f"partners); same hits in the same order: {yes(r.same)}; plain bm25 with neighbours "
        f"instead: {r.plain_ms:.2f} ms; memstore with recall_chars {UNCLIPPED_CHARS} (nothing "
        f"clipped): {r.unclipped_ms:.2f} ms"
        for r in results.recalls
    ]
    lines.append(
        f"search_words: prefix {words.prefix!r} ({words.total} words), first page of {HITS}; "
        f"same page and total on both sides: {yes(words.same)}"
    )
    lines += [
        f"word_instances {case.label}: {case.word!r} ({case.total} occurrences in "
        f"{case.documents} messages), first page of {HITS}; same instances (time, token, "
        f"span, text) and total on both sides: {yes(case.same)}"
        for case in results.instances
    ]
    lines.append(
        f"record_message: {records.calls} interleaved calls per side into a new session of the "
        f"imported databases after one warm-up; messages differing: {records.differing}"
    )
    lines.append(
        f"remember: {remembers.calls} interleaved calls per side on fresh databases after one "
        f"warm-up, {remembers.keyed} with key {BENCH_KEY!r} ({remembers.superseded} superseded); "
        f"memories differing between the two databases: {remembers.differing}; the "
        f"credential guard alone (not on the raw side) takes {remembers.guard_ms:.2f} ms of it"
    )
    lines.append(
        f"context: {contexts.memories} memories, query {contexts.query!r} "
        f"({contexts.hits} matching memories); block shows {contexts.shown[0]} memories "
        f"(memstore, clipped) / {contexts.shown[1]} (raw, whole lines); "
        f"raw's are memstore's first, same order: {yes(contexts.same_order)}"
    )
    lines.append(
        f"peak memory: one {peak.log_bytes / 2**20:.2f} MiB log of {peak.records} records; "
        f"memstore stored {peak.memstore_messages} in {peak.memstore_seconds:.1f} s, peak RSS "
        f"{peak.memstore_mib:.1f} MiB - baseline {peak.memstore_baseline_mib:.1f} (import "
        f"memstore, open the service); raw stored {peak.raw_messages} in "
        f"{peak.raw_seconds:.1f} s, peak RSS {peak.raw_mib:.1f} MiB - baseline "
        f"{peak.raw_baseline_mib:.1f} (open the connection)"
    )
    lines.append(steps.line())
    lines.append(
        f"p50 over {args.repeat} interleaved runs after one warm-up; ratio = memstore/raw "
        "(throughput for import: > 1 means memstore faster; time for the p50 rows; peak RSS "
        "above the baseline for the 16 MiB log)"
    )
    header = ["", "memstore", "raw", "ratio", "target"]
    return "\n".join([*lines, "", table([header, *(row.cells() for row in results.rows())])])


def run(args: argparse.Namespace) -> str:
    """Run every step and return the report (plus the profiles with ``--profile``)."""
    steps = Steps()
    with steps.step("generate"):
        logs = scale_set(args.out, args.scale) / OWNER
    work = args.out / "run"
    work.mkdir(parents=True, exist_ok=True)
    service = MemoryService(migrated(work / "memstore.sqlite3"))
    raw = raw_connect(migrated(work / "raw.sqlite3"))
    with steps.step("import"):
        times = compare_imports(service, raw, logs)
    gc.collect()
    with steps.step("choose cases"):
        vocab = vocabulary(raw)
        cases = choose_queries(raw, vocab)
        prefix = word_prefix(vocab)
        raw_vocab_tables(raw)
    with steps.step("recall"):
        recalls = compare_recalls(service, raw, cases, args.repeat)
    with steps.step("search_words"):
        words = compare_words(service, raw, prefix, args.repeat)
    with steps.step("word_instances"):
        instances = [compare_instances(service, raw, case, args.repeat) for case in cases[:2]]
    with steps.step("manifest"):
        manifest = read_manifest(logs.parent)
        contents = memory_contents(manifest, max(2 * (args.repeat + 1), CONTEXT_MEMORIES))
    gc.collect()
    with steps.step("record_message"):
        records = compare_records(service, raw, contents[: args.repeat + 1])
    with steps.step("remember"):
        remembers = compare_remembers(work, remember_writes(contents[: args.repeat + 1]))
    with steps.step("context"):
        contexts = compare_contexts(work, manifest, contents[:CONTEXT_MEMORIES], args.repeat)
    with steps.step("peak memory"):
        peak = compare_peaks(work, manifest)
    results = Results(times, recalls, words, instances, records, remembers, contexts, peak)
    text = report(args, results, steps)
    if args.profile:
        spare = contents[args.repeat + 1 :]
        profiles = memstore_calls(service, work, cases, prefix, contexts.query, spare)
        for row in results.rows():
            if row.slow() and row.label in profiles:
                text += "\n\n" + profile_calls(row.label, profiles[row.label], args.repeat)
        text += "\n\nprofile of memstore, import:\n" + profile_import(
            logs, work / "profile.sqlite3"
        )
    raw.close()
    service.close()
    return text


def memstore_calls(
    service: MemoryService,
    work: Path,
    cases: Sequence[Query],
    prefix: str,
    query: str,
    spare: Sequence[str],
) -> dict[str, Callable[[], object]]:
    """Row label -> one memstore call of that row, for profiling. Writes go to the same
    databases as the timed ones: record_message into a new session, remember with contents
    not yet remembered there."""
    calls: dict[str, Callable[[], object]] = {}
    for case in cases:
        calls[f"recall {case.label} p50 ms"] = functools.partial(
            service.recall, case.text, mode=case.mode
        )
    calls["search_words p50 ms"] = functools.partial(service.search_words, prefix)
    for case in cases[:2]:
        calls[f"word_instances {case.label} p50 ms"] = functools.partial(
            service.word_instances, case.text
        )
    session_id = service.start_session().id
    texts = itertools.cycle(spare)
    calls["record_message p50 ms"] = lambda: service.record_message(session_id, "user", next(texts))
    remembering = MemoryService(work / "remember-memstore.sqlite3")
    unseen = iter(spare)
    calls["remember p50 ms"] = lambda: remembering.remember(next(unseen))
    contexts = MemoryService(work / "context-memstore.sqlite3")
    calls["context p50 ms"] = functools.partial(contexts.context, query)
    return calls


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point: check ../shared, run, print the report."""
    require_shared()
    args = arguments(argv)
    if args.scale < 1 or args.repeat < 1:
        sys.exit("bench: --scale and --repeat must be at least 1")
    print(run(args))


if __name__ == "__main__":
    main()
