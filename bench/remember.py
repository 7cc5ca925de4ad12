"""Step 7: ``remember`` on two fresh databases, memstore against the same writes in plain
sqlite3 (duplicate and key-holder lookups, supersession, insert through the FTS trigger)."""

from __future__ import annotations

import functools
import sqlite3
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from bench.common import CATEGORIES, differing, migrated, raw_connect, utc_now, write_transaction
from bench.timing import median_ms, paired_seconds, seconds
from memstore import MemoryService
from memstore.concerns.memory_rules import normalize_content
from memstore.guard import secret_kind
from memstore.text.cjk import index_form

ACTIVE_DUPLICATE = "SELECT pk, id FROM memories WHERE status = 'active' AND normalized_content = ?"
ACTIVE_KEY = "SELECT pk, id FROM memories WHERE status = 'active' AND key = ?"
RETIRE = "UPDATE memories SET status = 'superseded', modified_at = ? WHERE pk = ?"
INSERT_MEMORY = (
    "INSERT INTO memories (id, content, normalized_content, category, key, status, origin, "
    "confidence, pinned, created_at, modified_at, expires_at, superseded_by, index_text) "
    "VALUES (?, ?, ?, ?, ?, 'active', 'explicit', 1.0, 0, ?, ?, NULL, NULL, ?)"
)
POINT = "UPDATE memories SET superseded_by = ?, modified_at = ? WHERE pk = ?"
SUPERSEDED = "SELECT count(*) FROM memories WHERE status = 'superseded'"
# The memories columns both sides must agree on (random ids and times aside), with the
# content of the memory that superseded each; {db} is the schema name.
MEMORY_COLUMNS = (
    "m.content, m.normalized_content, m.category, m.key, m.status, m.origin, m.confidence, "
    "m.pinned, m.expires_at, m.index_text, "
    "(SELECT s.content FROM {db}.memories AS s WHERE s.id = m.superseded_by)"
)
KEY_EVERY = 5  # every 5th remember call holds BENCH_KEY
BENCH_KEY = "bench_topic"


@dataclass(frozen=True)
class Write:
    """One ``remember`` call: content (already trimmed), category and optional key."""

    content: str
    category: str
    key: str | None = None


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
    now = utc_now()
    with write_transaction(raw):
        duplicate = raw.execute(ACTIVE_DUPLICATE, (normalized,)).fetchone()
        if duplicate is not None:  # never for the benchmark's distinct contents
            return duplicate[0], duplicate[1]
        holder = None if write.key is None else raw.execute(ACTIVE_KEY, (write.key,)).fetchone()
        if holder is not None:
            raw.execute(RETIRE, (now, holder[0]))
        memory_id = "mem_" + uuid.uuid4().hex
        form = index_form(write.content)  # the same row memstore writes, index form included
        row = (memory_id, write.content, normalized, write.category, write.key, now, now, form)
        pk = raw.execute(INSERT_MEMORY, row).lastrowid
        if holder is not None:
            raw.execute(POINT, (memory_id, now, holder[0]))
    assert pk is not None
    return pk, memory_id


def remember_both(service: MemoryService, raw: sqlite3.Connection, writes: Sequence[Write]) -> None:
    """Each write through memstore, then raw, untimed."""
    for write in writes:
        memstore_remember(service, write)
        raw_remember(raw, write)


def differing_memories(memstore_db: Path, raw: sqlite3.Connection) -> int:
    """Memories present in one database but not the other, compared on every column but the
    random ids and the times, and on the content of the memory that superseded each."""
    return differing(raw, memstore_db, [f"SELECT {MEMORY_COLUMNS} FROM {{db}}.memories AS m"])


def compare_remembers(work: Path, writes: Sequence[Write]) -> RememberTimes:
    """Each write through memstore, then raw, into two fresh databases; the first pair is the
    warm-up, the p50 is over the rest."""
    service = MemoryService(migrated(work / "remember-memstore.sqlite3"))
    raw = raw_connect(migrated(work / "remember-raw.sqlite3"))
    try:
        memstore_s, raw_s = paired_seconds(
            (
                functools.partial(memstore_remember, service, write),
                functools.partial(raw_remember, raw, write),
            )
            for write in writes
        )
        return RememberTimes(
            calls=len(writes) - 1,
            memstore_ms=median_ms(memstore_s[1:]),
            raw_ms=median_ms(raw_s[1:]),
            keyed=sum(write.key is not None for write in writes[1:]),
            superseded=raw.execute(SUPERSEDED).fetchone()[0],
            differing=differing_memories(service.path, raw),
            guard_ms=median_ms(
                seconds(functools.partial(secret_kind, write.content)) for write in writes[1:]
            ),
        )
    finally:
        raw.close()
        service.close()
