"""Database checks: SQLite integrity, foreign keys, each FTS5 index, schema version, counts."""

from __future__ import annotations

from typing import Any

from sqlalchemy import text
from sqlalchemy.exc import DatabaseError
from sqlalchemy.orm import Session

from memstore.schemas import FtsCheck, HealthReport

FTS_INDEXES = ("messages_fts", "memories_fts")
COUNTED_TABLES = (
    "sessions",
    "messages",
    "memories",
    "memory_sources",
    "imports",
    "deleted_sources",
)


def integrity(db: Session) -> str:
    """``ok``, or SQLite's integrity_check findings joined by newlines."""
    findings = [row[0] for row in db.execute(text("PRAGMA integrity_check"))]
    return "\n".join(findings)


def foreign_key_errors(db: Session) -> list[dict[str, Any]]:
    """Rows whose foreign keys point nowhere: table, rowid, parent table, constraint index."""
    rows = db.execute(text("PRAGMA foreign_key_check"))
    return [{"table": r[0], "rowid": r[1], "parent": r[2], "fkid": r[3]} for r in rows]


def fts_check(db: Session, index: str) -> FtsCheck:
    """FTS5 integrity-check of ``index`` (a fixed name), comparing it with its content."""
    try:
        with db.begin_nested():
            db.execute(text(f"INSERT INTO {index}({index}, rank) VALUES ('integrity-check', 1)"))
    except DatabaseError as error:
        return FtsCheck(index=index, ok=False, error=str(error.orig))
    return FtsCheck(index=index, ok=True, error=None)


def schema_version(db: Session) -> int:
    """The highest recorded schema version."""
    return int(db.scalar(text("SELECT coalesce(max(version), 0) FROM schema_migrations")) or 0)


def counts(db: Session) -> dict[str, int]:
    """Row counts of the main tables."""
    return {
        table: int(db.scalar(text(f"SELECT count(*) FROM {table}")) or 0)
        for table in COUNTED_TABLES
    }


def report(db: Session, path: str, code_version: int) -> HealthReport:
    """Every check at once; ``ok`` only when all of them pass."""
    found_integrity = integrity(db)
    found_fk = foreign_key_errors(db)
    found_fts = [fts_check(db, index) for index in FTS_INDEXES]
    version = schema_version(db)
    return HealthReport(
        ok=found_integrity == "ok"
        and not found_fk
        and all(check.ok for check in found_fts)
        and version == code_version,
        database=path,
        integrity=found_integrity,
        foreign_key_errors=found_fk,
        fts=found_fts,
        schema_version=version,
        code_version=code_version,
        counts=counts(db),
    )
