"""Step 2 and 3: import the scale set's daily logs with memstore, insert the same rows with
plain sqlite3 (one transaction per file), and check both databases hold the same."""

from __future__ import annotations

import sqlite3
import sys
import time
from collections.abc import Sequence
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

from bench.common import INSERT_MESSAGE, INSERT_SESSION, SPEAKERS, differing
from bench.corpus import FileRows, raw_plan, read_manifest
from memstore import MemoryService

INSERT_IMPORT = (
    "INSERT INTO imports (path, session_id, sealed_size, sealed_sha256, imported_at) "
    "VALUES (?, ?, ?, ?, ?)"
)
# How many segments the history index is made of: every term lookup reads each one.
SEGMENTS = "SELECT count(DISTINCT segid) FROM messages_fts_idx"
# The columns both imports must agree on, per table (random ids, pks and times of the import
# itself aside).
COMPARED = {
    "sessions": "id, started_at, ended_at, metadata",
    "messages": "session_id, sequence, role, content, created_at, status, source_ref, speaker, "
    "index_text",
    "imports": "path, session_id, sealed_size, sealed_sha256",
}


@dataclass(frozen=True)
class ImportTimes:
    """Both imports: files, messages stored and seconds taken, and how many rows differ."""

    files: int
    memstore_messages: int
    memstore_seconds: float
    raw_messages: int
    raw_seconds: float
    differing: int
    memstore_bytes: int
    raw_bytes: int
    segments: tuple[int, int]
    """Segments of the history index (messages_fts) after each import: memstore's, raw's."""

    def rates(self) -> tuple[float, float]:
        """(memstore, raw) messages per second."""
        return (
            self.memstore_messages / self.memstore_seconds,
            self.raw_messages / self.raw_seconds,
        )


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
    selects = [f"SELECT {columns} FROM {{db}}.{table}" for table, columns in COMPARED.items()]
    return differing(raw, memstore_db, selects)


def compare_imports(service: MemoryService, raw: sqlite3.Connection, logs: Path) -> ImportTimes:
    """Import the logs with memstore, insert the same rows raw, and check both hold the same.

    The raw side's precomputed rows are built after memstore's import and live only inside
    this call, so neither memstore's import nor its recall runs beside that large heap
    (a large live heap makes every full collection, and so allocation-heavy code, slower).
    """
    imported, memstore_s = import_memstore(service, logs)
    plan = raw_plan(logs.parent.parent, read_manifest(logs.parent))
    inserted, raw_s = import_raw(raw, plan)
    unequal = differing_rows(service.path, raw)
    sizes = database_bytes(service.path), database_bytes(raw)
    with closing(sqlite3.connect(service.path)) as connection:
        segments = (connection.execute(SEGMENTS).fetchone()[0], raw.execute(SEGMENTS).fetchone()[0])
    times = (imported, memstore_s, inserted, raw_s)
    return ImportTimes(len(plan), *times, unequal, *sizes, segments)


def database_bytes(database: Path | sqlite3.Connection) -> int:
    """The size of a database as SQLite sees it (its pages, the WAL's included)."""
    if isinstance(database, Path):
        with closing(sqlite3.connect(database)) as connection:
            return database_bytes(connection)
    (pages,) = database.execute("PRAGMA page_count").fetchone()
    (size,) = database.execute("PRAGMA page_size").fetchone()
    return int(pages * size)
