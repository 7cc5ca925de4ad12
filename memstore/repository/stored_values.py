"""Stored values no command can read: a time that is no time, a value of another type than
its column's (found by review: ``check`` said ok of them, and the commands reading them
failed, as StoreDamaged for a time, with a traceback for the others)."""

from __future__ import annotations

import sqlite3

TIME_COLUMNS = (
    ("sessions", "started_at"),
    ("sessions", "ended_at"),
    ("messages", "created_at"),
    ("memories", "created_at"),
    ("memories", "modified_at"),
    ("memories", "expires_at"),
    ("imports", "imported_at"),
    ("deleted_sources", "deleted_at"),
)
# A stored time is text starting with a date that SQLite reads as a time ('now' and a bare
# number are read as times by julianday(), never by memstore).
NO_TIME = (
    "SELECT rowid, {column} FROM {table} WHERE {column} IS NOT NULL AND (typeof({column}) "
    "<> 'text' OR {column} NOT GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]*' "
    "OR julianday({column}) IS NULL) LIMIT 5"
)
TEXT = "typeof({column}) <> 'text'"
# Each column whose value commands read as it is and that no CHECK constraint keeps (table,
# column, what it must be, the condition of a value that is not that); a NULL passes.
VALUE_COLUMNS = (
    ("sessions", "id", "text", TEXT),
    (
        "sessions",
        "metadata",
        "a JSON object",
        "typeof({column}) <> 'text' OR NOT json_valid({column}) OR json_type({column}) <> 'object'",
    ),
    ("messages", "id", "text", TEXT),
    ("messages", "session_id", "text", TEXT),
    ("messages", "sequence", "an integer", "typeof({column}) <> 'integer'"),
    ("messages", "content", "text", TEXT),
    ("messages", "source_ref", "text", TEXT),
    ("messages", "speaker", "text", TEXT),
    ("memories", "id", "text", TEXT),
    ("memories", "content", "text", TEXT),
    ("memories", "key", "text", TEXT),
    ("memories", "superseded_by", "text", TEXT),
    ("memory_sources", "source_ref", "text", TEXT),
    ("deleted_sources", "source_ref", "text", TEXT),
)
NOT_VALUE = "SELECT rowid, {column} FROM {table} WHERE {column} IS NOT NULL AND ({test}) LIMIT 5"


def unreadable_values(connection: sqlite3.Connection) -> list[str]:
    """A sentence for each stored value no command can read, at most five per column: a
    time that is no time (which every command reading it calls StoreDamaged), a value of
    another type than its column's."""
    found: list[str] = []
    for table, column in TIME_COLUMNS:
        rows = connection.execute(NO_TIME.format(table=table, column=column)).fetchall()
        found += [
            f"{table}.{column} of row {rowid} holds {value!r}, which is no time; restore a "
            "verified backup (README, Backup and recovery)"
            for rowid, value in rows
        ]
    for table, column, kind, test in VALUE_COLUMNS:
        query = NOT_VALUE.format(table=table, column=column, test=test.format(column=column))
        found += [
            f"{table}.{column} of row {rowid} holds {shown(value)}, which is not {kind}; "
            "restore a verified backup (README, Backup and recovery)"
            for rowid, value in connection.execute(query).fetchall()
        ]
    return found


def shown(value: object) -> str:
    """``value`` as a problem shows it: its start, at most 40 characters."""
    text = repr(value)
    return text if len(text) <= 40 else text[:39] + "…"
