"""Database checks: SQLite integrity, foreign keys, each FTS5 index and its triggers, the
schema's other indexes, the views Datasette searches through, the schema version and row
counts.

Every check runs even when another one fails, and a check SQLite cannot finish on a damaged
file is a finding, not an exception (:class:`Findings`); only a lock timeout is raised, as
it says nothing about the file's health. :mod:`memstore.concerns.health` turns findings into
sentences.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any, TypeVar

from memstore.repository.stored_values import unreadable_values
from memstore.store.fts_names import (
    FTS_INDEXES,
    FTS_TRIGGERS,
    SCHEMA_INDEXES,
    SEARCH_VIEWS,
)
from memstore.store.savepoints import savepoint
from memstore.store.sqlite_errors import is_busy, is_refused_write

T = TypeVar("T")

COUNTED_TABLES = (
    "sessions",
    "messages",
    "memories",
    "memory_sources",
    "imports",
    "deleted_sources",
)
TRIGGERS = "SELECT name FROM sqlite_master WHERE type = 'trigger'"
# The columns of the index called :name (in any case) on :table, in order (a partial
# index's condition is read from its SQL: see index_shape).
INDEX_COLUMNS = """
    SELECT info.name, listed."unique"
    FROM pragma_index_list(:table) AS listed, pragma_index_info(listed.name) AS info
    WHERE lower(listed.name) = lower(:name)
    ORDER BY info.seqno
"""
INDEX_SQL = """
    SELECT sql FROM sqlite_master
    WHERE type = 'index' AND lower(name) = lower(:name) AND lower(tbl_name) = :table
"""
TABLES = "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"
TABLE_INTEGRITY = "SELECT * FROM pragma_integrity_check(:table)"
FOREIGN_KEY = 'SELECT "from" FROM pragma_foreign_key_list(:table) WHERE id = :fkid'
SCHEMA_VERSION = "SELECT coalesce(max(version), 0) FROM schema_migrations"
DATASETTE_FTS = "SELECT name FROM sqlite_master WHERE rootpage = 0 AND sql LIKE :pattern"
"""The entries Datasette takes as a table's full-text index (its ``detect_fts``), given
``%VIRTUAL TABLE%USING FTS%content="T"%``."""


# The segments of an FTS5 index (the high bits of its pages' ids) that its segment index
# does not list. Each segment has one entry at least, for its first page; FTS5's own
# integrity-check passes an index whose _idx rows are gone, where a search of a large index
# then finds nothing (found by review).
UNLISTED_SEGMENTS = """
    SELECT count(*) FROM (
        SELECT id >> 37 FROM {index}_data WHERE id >> 37 > 0
        EXCEPT SELECT segid FROM {index}_idx)
"""


@dataclass(frozen=True)
class IndexCheck:
    """The FTS5 integrity-check of one index: ``error`` is SQLite's message when it failed."""

    index: str
    ok: bool
    error: str | None


@dataclass(frozen=True)
class Findings:
    """What the checks found. ``failed`` holds a sentence for each check SQLite could not run."""

    integrity: str
    foreign_key_errors: list[dict[str, Any]]
    fts: list[IndexCheck]
    missing_triggers: list[str]
    missing_indexes: list[str]
    """The indexes queries name (``INDEXED BY``) that the schema lacks."""
    broken_search_views: list[str]
    """The views of :data:`SEARCH_VIEWS` that Datasette would not find or could not search."""
    schema_version: int
    counts: dict[str, int]
    failed: list[str] = field(default_factory=list)
    bad_values: list[str] = field(default_factory=list)
    """A sentence for each stored value no command can read: a time that is no time, a
    value of another type (see :func:`~memstore.repository.stored_values.unreadable_values`)."""


def integrity(connection: sqlite3.Connection) -> str:
    """``ok``, or SQLite's integrity_check findings joined by newlines (each names its table,
    index or page). When damage stops the check, why, then the findings table by table."""
    findings: list[str] = []
    try:
        findings.extend(row[0] for row in connection.execute("PRAGMA integrity_check"))
    except sqlite3.DatabaseError as error:
        reraise_unrelated(error)
        findings.append(f"could not finish: {error}")
        findings.extend(table_findings(connection))
    return "\n".join(findings)


def table_names(connection: sqlite3.Connection) -> list[str]:
    """The names of the database's tables, in order."""
    return [name for (name,) in connection.execute(TABLES)]


def table_findings(connection: sqlite3.Connection) -> list[str]:
    """integrity_check of each table on its own, to say which ones are damaged."""
    try:
        names = table_names(connection)
    except sqlite3.DatabaseError as error:
        reraise_unrelated(error)
        return [f"the list of tables cannot be read: {error}"]
    findings: list[str] = []
    for name in names:
        try:
            results = [row[0] for row in connection.execute(TABLE_INTEGRITY, {"table": name})]
        except sqlite3.DatabaseError as error:
            reraise_unrelated(error)
            results = [str(error)]
        findings.extend(f"table {name}: {result}" for result in results if result != "ok")
    return findings


def foreign_key_errors(connection: sqlite3.Connection) -> list[dict[str, Any]]:
    """Rows whose foreign keys point nowhere: table, rowid, parent table, constraint index and
    the referencing column."""
    rows = connection.execute("PRAGMA foreign_key_check").fetchall()
    return [
        {
            "table": table,
            "rowid": rowid,
            "parent": parent,
            "fkid": fkid,
            "column": scalar(connection, FOREIGN_KEY, {"table": table, "fkid": fkid}),
        }
        for table, rowid, parent, fkid in rows
    ]


def fts_check(connection: sqlite3.Connection, index: str) -> IndexCheck:
    """FTS5 integrity-check of ``index`` (a fixed name), comparing it with its content, inside
    a savepoint so that a failure leaves the transaction usable.

    Raises:
        sqlite3.OperationalError: Only when the check could not take the lock it needs
            (busy), so that a busy database is never reported as a broken index.
    """
    try:
        with savepoint(connection, "fts_check"):
            connection.execute(f"INSERT INTO {index}({index}, rank) VALUES ('integrity-check', 1)")
            unlisted = scalar(connection, UNLISTED_SEGMENTS.format(index=index), {})
    except sqlite3.DatabaseError as error:
        reraise_unrelated(error)
        return IndexCheck(index=index, ok=False, error=str(error))
    if unlisted:
        lacking = f"{unlisted} of its segments have no entry in {index}_idx"
        return IndexCheck(index=index, ok=False, error=lacking)
    return IndexCheck(index=index, ok=True, error=None)


def missing_triggers(connection: sqlite3.Connection) -> list[str]:
    """The FTS triggers the schema should have and does not (an index then silently misses
    every later change of its table, which its integrity-check cannot see)."""
    present = {name for (name,) in connection.execute(TRIGGERS)}
    return [name for name in FTS_TRIGGERS if name not in present]


def missing_indexes(connection: sqlite3.Connection) -> list[str]:
    """The schema's indexes (:data:`SCHEMA_INDEXES`) that it does not have as built: on their
    table, on their columns, over the rows of their condition (none for an index of every
    row), unique or not. Recall names two in ``INDEXED BY``, and fails with "no such index"
    or finds no plan without them; without the others, queries scan rows, and without a
    unique one, nothing but memstore's own checks keeps two active memories from one key or
    content (found by review: ``check`` missed those)."""
    return [
        name
        for name, (table, columns, condition, unique) in SCHEMA_INDEXES.items()
        if index_shape(connection, table, name) != (list(columns), condition, unique)
    ]


def index_shape(
    connection: sqlite3.Connection, table: str, name: str
) -> tuple[list[str], str | None, bool]:
    """The columns of the index ``name`` on ``table`` (any case of the name), the condition
    of its ``WHERE`` as written, runs of spaces as one (None for none), and whether it is
    unique."""
    params = {"table": table, "name": name}
    found = connection.execute(INDEX_COLUMNS, params).fetchall()
    sql = " ".join((scalar(connection, INDEX_SQL, params) or "").split())
    parts = re.split(r" where ", sql, maxsplit=1, flags=re.IGNORECASE)
    unique = bool(found) and all(flag == 1 for _, flag in found)
    return [column for column, _ in found], parts[1] if len(parts) == 2 else None, unique


def broken_search_views(connection: sqlite3.Connection, damaged: set[str]) -> list[str]:
    """The search views (fixed names) missing, no longer found as their table's full-text
    index the way Datasette looks for one, or failing a MATCH through them unless the index
    under them (``T_fts``) is among the ``damaged`` (found by review: a damaged index made
    its sound view be called missing or changed, with a repair that could not help; and the
    next review: a view's own probe is left out for its own index only)."""
    broken = []
    for table, view in SEARCH_VIEWS.items():
        pattern = f'%VIRTUAL TABLE%USING FTS%content="{table}"%'
        found = {name for (name,) in connection.execute(DATASETTE_FTS, {"pattern": pattern})}
        try:
            if f"{table}_fts" not in damaged:
                connection.execute(
                    f"SELECT rowid FROM {view} WHERE {view} MATCH 'memstore' LIMIT 1"
                )
        except sqlite3.DatabaseError as error:
            reraise_unrelated(error)
            found.discard(view)
        if view not in found:
            broken.append(view)
    return broken


def scalar(connection: sqlite3.Connection, query: str, params: dict[str, Any]) -> Any:
    """The first column of the first row of ``query``, or None."""
    row = connection.execute(query, params).fetchone()
    return None if row is None else row[0]


def count(connection: sqlite3.Connection, table: str) -> int:
    """Rows in ``table`` (a fixed name)."""
    return int(scalar(connection, f"SELECT count(*) FROM {table}", {}) or 0)


def reraise_unrelated(error: sqlite3.DatabaseError) -> None:
    """Re-raise what says nothing about the file's health: a lock timeout, or a write
    refused (found by review: a writable file beside another user's -wal and -shm had each
    index's integrity-check reported failed, to be rebuilt)."""
    if is_busy(error) or is_refused_write(error):
        raise error


def attempt(failed: list[str], what: str, check: Callable[[], T]) -> T | None:
    """``check()``, or None with a sentence in ``failed`` saying why SQLite could not run it."""
    try:
        return check()
    except sqlite3.DatabaseError as error:
        reraise_unrelated(error)
        failed.append(f"{what} could not run: {error}")
        return None


def findings(
    connection: sqlite3.Connection, *, fts_connection: sqlite3.Connection | None = None
) -> Findings:
    """Every check at once. The FTS5 integrity-checks, which SQLite runs as writes, run on
    ``fts_connection`` when given (a copy of a read-only file)."""
    failed: list[str] = []  # checks SQLite could not run on a damaged file
    found_integrity = integrity(connection)
    found_fk = attempt(failed, "foreign_key_check", partial(foreign_key_errors, connection))
    found_fts = [fts_check(fts_connection or connection, index) for index in FTS_INDEXES]
    missing = attempt(failed, "listing the FTS triggers", partial(missing_triggers, connection))
    lacking = attempt(failed, "listing the indexes", partial(missing_indexes, connection))
    damaged = {check.index for check in found_fts if not check.ok}
    views = attempt(
        failed, "listing the search views", partial(broken_search_views, connection, damaged)
    )
    version = attempt(
        failed, "reading schema_migrations", partial(scalar, connection, SCHEMA_VERSION, {})
    )
    counts = {
        t: attempt(failed, f"counting {t}", partial(count, connection, t)) for t in COUNTED_TABLES
    }
    values = attempt(failed, "reading the stored values", partial(unreadable_values, connection))
    return Findings(
        integrity=found_integrity,
        foreign_key_errors=found_fk or [],
        fts=found_fts,
        missing_triggers=missing or [],
        missing_indexes=lacking or [],
        broken_search_views=views or [],
        schema_version=int(version or 0),
        counts={table: n for table, n in counts.items() if n is not None},
        failed=failed,
        bad_values=values or [],
    )
