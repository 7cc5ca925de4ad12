"""Database checks: SQLite integrity, foreign keys, each FTS5 index, schema version, counts.

Every check runs even when another one fails, and a check SQLite cannot finish on a damaged
file is a finding, not an exception. Each finding becomes one sentence in ``problems`` saying
what is wrong and where (table, row, column, index or page).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any, TypeVar

from sqlalchemy import text
from sqlalchemy.exc import DatabaseError
from sqlalchemy.orm import Session

from memstore.schemas import FtsCheck, HealthReport
from memstore.store.database import is_busy

T = TypeVar("T")

FTS_INDEXES = ("messages_fts", "memories_fts")
COUNTED_TABLES = (
    "sessions",
    "messages",
    "memories",
    "memory_sources",
    "imports",
    "deleted_sources",
)
DAMAGED = (
    "the file is damaged: stop every writer, keep it with its -wal/-shm files for "
    "investigation and restore a verified backup (README, Backup and recovery)"
)
# The triggers that keep each index in step with its table (revision 0002): after insert,
# delete and update.
FTS_TRIGGERS = tuple(f"{index}_{event}" for index in FTS_INDEXES for event in ("ai", "ad", "au"))
TRIGGERS = text("SELECT name FROM sqlite_master WHERE type = 'trigger'")
TABLES = text("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
TABLE_INTEGRITY = text("SELECT * FROM pragma_integrity_check(:table)")
FOREIGN_KEY = text('SELECT "from" FROM pragma_foreign_key_list(:table) WHERE id = :fkid')


def integrity(db: Session) -> str:
    """``ok``, or SQLite's integrity_check findings joined by newlines (each names its table,
    index or page). When damage stops the check, why, then the findings table by table."""
    findings: list[str] = []
    try:
        findings.extend(row[0] for row in db.execute(text("PRAGMA integrity_check")))
    except DatabaseError as error:
        reraise_busy(error)
        findings.append(f"could not finish: {error.orig}")
        findings.extend(table_findings(db))
    return "\n".join(findings)


def table_findings(db: Session) -> list[str]:
    """integrity_check of each table on its own, to say which ones are damaged."""
    try:
        names = db.scalars(TABLES).all()
    except DatabaseError as error:
        reraise_busy(error)
        return [f"the list of tables cannot be read: {error.orig}"]
    findings: list[str] = []
    for name in names:
        try:
            results = list(db.scalars(TABLE_INTEGRITY, {"table": name}))
        except DatabaseError as error:
            reraise_busy(error)
            results = [str(error.orig)]
        findings.extend(f"table {name}: {result}" for result in results if result != "ok")
    return findings


def foreign_key_errors(db: Session) -> list[dict[str, Any]]:
    """Rows whose foreign keys point nowhere: table, rowid, parent table, constraint index and
    the referencing column."""
    rows = db.execute(text("PRAGMA foreign_key_check")).all()
    return [
        {
            "table": table,
            "rowid": rowid,
            "parent": parent,
            "fkid": fkid,
            "column": db.scalar(FOREIGN_KEY, {"table": table, "fkid": fkid}),
        }
        for table, rowid, parent, fkid in rows
    ]


def fts_check(db: Session, index: str) -> FtsCheck:
    """FTS5 integrity-check of ``index`` (a fixed name), comparing it with its content.

    Raises:
        DatabaseError: Only when the check could not take the lock it needs (busy), so that a
            busy database is never reported as a broken index.
    """
    try:
        with db.begin_nested():
            db.execute(text(f"INSERT INTO {index}({index}, rank) VALUES ('integrity-check', 1)"))
    except DatabaseError as error:
        reraise_busy(error)
        return FtsCheck(index=index, ok=False, error=str(error.orig))
    return FtsCheck(index=index, ok=True, error=None)


def missing_triggers(db: Session) -> list[str]:
    """The FTS triggers the schema should have and does not (an index then silently misses
    every later change of its table, which its integrity-check cannot see)."""
    present = set(db.scalars(TRIGGERS))
    return [name for name in FTS_TRIGGERS if name not in present]


def schema_version(db: Session) -> int:
    """The highest recorded schema version."""
    return int(db.scalar(text("SELECT coalesce(max(version), 0) FROM schema_migrations")) or 0)


def count(db: Session, table: str) -> int:
    """Rows in ``table`` (a fixed name)."""
    return int(db.scalar(text(f"SELECT count(*) FROM {table}")) or 0)


def reraise_busy(error: DatabaseError) -> None:
    """Re-raise a lock timeout: it says nothing about the file's health."""
    if is_busy(error):
        raise error


def attempt(problems: list[str], what: str, check: Callable[[], T]) -> T | None:
    """``check()``, or None with a problem saying why SQLite could not run it."""
    try:
        return check()
    except DatabaseError as error:
        reraise_busy(error)
        problems.append(f"{what} could not run: {error.orig}")
        return None


def report(
    db: Session, path: str, code_version: int, *, fts_db: Session | None = None
) -> HealthReport:
    """Every check at once; ``ok`` only when all of them pass. The FTS5 integrity-checks,
    which SQLite runs as writes, run on ``fts_db`` when given (a copy of a read-only file)."""
    failed: list[str] = []  # checks SQLite could not run on a damaged file
    found_integrity = integrity(db)
    found_fk = attempt(failed, "foreign_key_check", partial(foreign_key_errors, db)) or []
    found_fts = [fts_check(fts_db or db, index) for index in FTS_INDEXES]
    missing = attempt(failed, "listing the FTS triggers", partial(missing_triggers, db)) or []
    version = attempt(failed, "reading schema_migrations", partial(schema_version, db)) or 0
    counts = {t: attempt(failed, f"counting {t}", partial(count, db, t)) for t in COUNTED_TABLES}
    damaged = found_integrity != "ok" or bool(failed)
    problems = describe(found_integrity, found_fk, found_fts, version, code_version) + failed
    problems += [
        f"trigger {name} is missing: changes to its table no longer reach the index; restore "
        "a verified backup (README, Backup and recovery)"
        for name in missing
    ]
    if damaged:
        problems.append(DAMAGED)
    return HealthReport(
        ok=not problems,
        database=path,
        integrity=found_integrity,
        foreign_key_errors=found_fk,
        fts=found_fts,
        schema_version=version,
        code_version=code_version,
        counts={table: n for table, n in counts.items() if n is not None},
        problems=problems,
    )


def describe(
    found_integrity: str,
    found_fk: list[dict[str, Any]],
    found_fts: list[FtsCheck],
    version: int,
    code_version: int,
) -> list[str]:
    """One sentence per finding: what is wrong and where."""
    damaged = found_integrity != "ok"
    problems = [
        f"integrity_check: {finding}"
        for finding in found_integrity.splitlines()
        if damaged and not finding.startswith("*** in database")
    ]
    problems += [
        f"foreign key: {e['table']} row {e['rowid']} has a {e['column']} that matches no "
        f"{e['parent']} row"
        for e in found_fk
    ]
    problems += [fts_problem(check, damaged) for check in found_fts if not check.ok]
    if version != code_version:
        problems.append(f"schema version is {version}; this code expects {code_version}")
    return problems


def fts_problem(check: FtsCheck, damaged: bool) -> str:
    """The finding of a failed FTS5 integrity-check; on an otherwise sound file the index
    can be rebuilt from its table."""
    found = f"FTS5 index {check.index} failed its integrity-check ({check.error})"
    if damaged:
        return found
    return f"{found}; rebuild it with INSERT INTO {check.index}({check.index}) VALUES('rebuild')"


def unreadable(path: str, code_version: int, reason: str) -> HealthReport:
    """The report of a file SQLite cannot open or read as a database at all."""
    return HealthReport(
        ok=False,
        database=path,
        integrity=reason,
        foreign_key_errors=[],
        fts=[FtsCheck(index=index, ok=False, error=reason) for index in FTS_INDEXES],
        schema_version=0,
        code_version=code_version,
        counts={},
        problems=[f"{path}: {reason}"],
    )
