"""Scale benchmark: memstore import and recall against plain sqlite3 on the same schema.

Usage:
    .venv/bin/python bench/run.py [--scale N] [--out DIR] [--repeat K] [--profile]

Steps, all in one run so that both sides share the machine's state:

1. Generate (or reuse, cached under ``--out``) a scale set of about N messages with
   ``../shared/tools/corpus2logs.py``.
2. Import its daily logs with ``MemoryService.import_markdown`` into a fresh database.
3. Insert the same rows with plain ``sqlite3`` ``executemany`` into a second fresh database
   migrated to the same schema, one transaction per file, through the same FTS triggers.
4. Time recall of a rare word, a common word and a phrase on both databases.
5. Time ``remember`` on two fresh databases: memstore against the same writes in plain
   ``sqlite3`` (duplicate and key-holder lookups, supersession, insert through the FTS
   trigger), one transaction per call, for distinct utterances of the manifest, every 5th
   with a key that repeats so that supersession happens.
6. Remember 1,000 utterances on two more fresh databases (memstore, and raw the same way),
   then time the per-turn context for a real user utterance: memstore's ``context`` against
   one SELECT of the memories in force, one bm25 MATCH of the query's words and a string join.
7. Print one table: throughput and p50 latencies, memstore against raw, with the machine.

Both databases are migrated before the clock starts, so the import times cover only the
import itself. The raw side's rows are precomputed from ``manifest.jsonl`` (ids, times,
source references), so its time is SQLite's work and nothing else: it is the floor.
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
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from memstore.context import HEADER
from memstore.guard import secret_kind
from memstore.memory_rules import MAX_CONTENT_CHARS, normalize_content
from memstore.models import CATEGORIES, format_utc
from memstore.repository.fts_query import MAX_DISTINCT_TOKENS, fold, tokenize
from memstore.service import MemoryService

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
    mode: str
    match: str
    hits: int = 0


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


def choose_queries(raw: sqlite3.Connection) -> list[Query]:
    """The rare word, common word and phrase cases, chosen deterministically from the data."""
    vocab = vocabulary(raw)
    phrase = rare_phrase(raw)
    cases = [
        Query("rare", rare_word(vocab), "any", ""),
        Query("common", common_word(vocab), "any", ""),
        Query("phrase", phrase, "phrase", " + ".join(map(fts_string, phrase.split()))),
    ]
    return [with_hits(raw, case) for case in cases]


def with_hits(raw: sqlite3.Connection, case: Query) -> Query:
    """``case`` with its MATCH expression filled in and its number of matching messages."""
    match = case.match or fts_string(case.text)
    sql = "SELECT count(*) FROM messages_fts WHERE messages_fts MATCH ?"
    hits = raw.execute(sql, (match,)).fetchone()[0]
    return Query(case.label, case.text, case.mode, match, hits)


# Recall


def raw_recall(raw: sqlite3.Connection, match: str) -> list[tuple[Any, ...]]:
    """The top hits of ``match`` by bm25, each followed by its paired neighbour (if any)."""
    found: list[tuple[Any, ...]] = []
    for hit in raw.execute(RAW_HITS, (match, HITS)).fetchall():
        # messages columns: pk, id, session_id, sequence, role, ...
        neighbour = NEIGHBOUR_BEFORE if hit[4] == "assistant" else NEIGHBOUR_AFTER
        found.append(hit)
        found.extend(raw.execute(neighbour, (hit[2], hit[3])).fetchall())
    return found


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


def recall_p50s(
    service: MemoryService, raw: sqlite3.Connection, case: Query, repeat: int
) -> tuple[float, float]:
    """(memstore, raw) median recall milliseconds for one case."""
    memstore_ms, raw_ms = p50s_ms(
        [lambda: service.recall(case.text, mode=case.mode), lambda: raw_recall(raw, case.match)],
        repeat,
    )
    return memstore_ms, raw_ms


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


def import_row(memstore_rate: float, raw_rate: float) -> list[str]:
    """The import throughput row (ratio > 1 means memstore is faster)."""
    ratio = memstore_rate / raw_rate
    return ["import msgs/s", f"{memstore_rate:,.0f}", f"{raw_rate:,.0f}", f"{ratio:.2f}", "> 1"]


def recall_row(case: Query, memstore_ms: float, raw_ms: float) -> list[str]:
    """A recall latency row (ratio < 1.3 is the target)."""
    return latency_row(f"recall {case.label} p50 ms", memstore_ms, raw_ms)


def latency_row(label: str, memstore_ms: float, raw_ms: float) -> list[str]:
    """A latency row (ratio < 1.3 is the target)."""
    ratio = memstore_ms / raw_ms
    return [label, f"{memstore_ms:.2f}", f"{raw_ms:.2f}", f"{ratio:.2f}", "< 1.3"]


# Profile


def profile_import(logs: Path, path: Path, top: int = 25) -> str:
    """cProfile statistics (by own time, then cumulative) of a memstore import into a fresh
    database at ``path``."""
    service = MemoryService(migrated(path))
    profiler = cProfile.Profile()
    profiler.runcall(service.import_markdown, [logs], speakers=SPEAKERS, include_tail=True)
    stream = io.StringIO()
    for key in ("tottime", "cumulative"):
        pstats.Stats(profiler, stream=stream).sort_stats(key).print_stats(top)
    return stream.getvalue()


# Main


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
    parser.add_argument("--repeat", type=int, default=50, help="recall runs per case (50)")
    parser.add_argument(
        "--profile", action="store_true", help="also cProfile a second memstore import"
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
    service: MemoryService, raw: sqlite3.Connection, repeat: int
) -> list[tuple[Query, float, float]]:
    """Each chosen case with its (memstore, raw) p50 milliseconds."""
    return [(case, *recall_p50s(service, raw, case, repeat)) for case in choose_queries(raw)]


def report(
    args: argparse.Namespace,
    times: ImportTimes,
    recalls: Sequence[tuple[Query, float, float]],
    remembers: RememberTimes,
    contexts: ContextTimes,
) -> str:
    """The printed report: machine, data, chosen queries, then the table."""
    lines = machine_lines(args.scale, times.raw_messages, times.files)
    lines.append(
        f"import: memstore {times.memstore_messages} msgs in {times.memstore_seconds:.2f} s, "
        f"raw {times.raw_messages} in {times.raw_seconds:.2f} s; "
        f"rows differing between the two databases: {times.differing}"
    )
    lines += [
        f"recall {case.label}: {case.text!r} (mode {case.mode}, {case.hits} matching messages)"
        for case, _, _ in recalls
    ]
    lines.append(
        f"remember: {remembers.calls} interleaved calls per side on fresh databases after one "
        f"warm-up, {remembers.keyed} with key {BENCH_KEY!r} ({remembers.superseded} superseded); "
        f"memories differing between the two databases: {remembers.differing}"
    )
    lines.append(
        f"context: {contexts.memories} memories, query {contexts.query!r} "
        f"({contexts.hits} matching memories); block shows {contexts.shown[0]} memories "
        f"(memstore, clipped) / {contexts.shown[1]} (raw, whole lines); "
        f"raw's are memstore's first, same order: {'yes' if contexts.same_order else 'NO'}"
    )
    lines.append(
        f"recall p50 over {args.repeat} interleaved runs after one warm-up; ratio = memstore/raw "
        "(throughput for import: > 1 means memstore faster; time for recall, remember and context)"
    )
    rows = [["", "memstore", "raw", "ratio", "target"], import_row(*times.rates())]
    rows += [recall_row(case, memstore_ms, raw_ms) for case, memstore_ms, raw_ms in recalls]
    rows.append(latency_row("remember p50 ms", remembers.memstore_ms, remembers.raw_ms))
    rows.append(latency_row("context p50 ms", contexts.memstore_ms, contexts.raw_ms))
    return "\n".join([*lines, "", table(rows)])


def run(args: argparse.Namespace) -> str:
    """Run every step and return the report (plus the profile with ``--profile``)."""
    logs = scale_set(args.out, args.scale) / OWNER
    work = args.out / "run"
    work.mkdir(parents=True, exist_ok=True)
    service = MemoryService(migrated(work / "memstore.sqlite3"))
    raw = raw_connect(migrated(work / "raw.sqlite3"))
    times = compare_imports(service, raw, logs)
    gc.collect()
    recalls = compare_recalls(service, raw, args.repeat)
    manifest = read_manifest(logs.parent)
    contents = memory_contents(manifest, max(args.repeat + 1, CONTEXT_MEMORIES))
    gc.collect()
    remembers = compare_remembers(work, remember_writes(contents[: args.repeat + 1]))
    contexts = compare_contexts(work, manifest, contents[:CONTEXT_MEMORIES], args.repeat)
    text = report(args, times, recalls, remembers, contexts)
    if args.profile:
        text += "\n\n" + profile_import(logs, work / "profile.sqlite3")
    return text


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point: check ../shared, run, print the report."""
    require_shared()
    args = arguments(argv)
    if args.scale < 1 or args.repeat < 1:
        sys.exit("bench: --scale and --repeat must be at least 1")
    print(run(args))


if __name__ == "__main__":
    main()
