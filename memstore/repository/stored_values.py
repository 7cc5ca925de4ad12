"""Stored values no command can read: a time that is no time, a value of another type than
its column's (found by review: ``check`` said ok of them, and the commands reading them
failed, as StoreDamaged for a time, with a traceback for the others)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from memstore.errors import StoreDamaged

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


# What each column of a row read back holds, by position, as commands read it: the row
# readers (``from_row``) test each value's type (found by review: a blob stored as a
# message's content, text as its sequence number, or a list as a session's metadata
# failed each command reading it with a traceback). A column no test names is kept by a
# CHECK constraint or read as a time (times.parse_utc).
TEXT_VALUE = (str,)
MAYBE_TEXT = (str, type(None))
INTEGER_VALUE = (int,)
MAYBE_INTEGER = (int, type(None))
KIND_NAMES = {
    TEXT_VALUE: "text",
    MAYBE_TEXT: "text",
    INTEGER_VALUE: "an integer",
    MAYBE_INTEGER: "an integer",
}


def column_kinds(names: Sequence[str], **kinds: tuple[type, ...]) -> tuple[Any, ...]:
    """The ``kinds`` of the columns ``names`` in their order, None for a column not named,
    as :func:`typed_row` takes them."""
    return tuple(kinds.get(name) for name in names)


def typed_row(table: str, names: Sequence[str], row: Sequence[Any], kinds: Sequence[Any]) -> None:
    """Check that each value of ``row`` (its columns ``names``) has one of the types of its
    ``kinds`` entry (a tuple of types, or None for a column not tested here).

    Raises:
        StoreDamaged: Naming the table, the column, the row's id (its first column) and the
            value, for the first value of another type.
    """
    for name, value, kind in zip(names, row, kinds, strict=True):
        if kind is not None and type(value) not in kind:
            raise damaged(table, name, row[0], value, KIND_NAMES[kind])


def json_object(table: str, column: str, key: object, text: object) -> dict[str, Any]:
    """The JSON object ``text`` holds, as ``check`` reads it (strict JSON: no NaN).

    Raises:
        StoreDamaged: For anything else (see :func:`damaged`).
    """
    try:
        value = json.loads(text, parse_constant=reject_constant) if isinstance(text, str) else None
    except ValueError:
        value = None
    if not isinstance(value, dict):
        raise damaged(table, column, key, text, "a JSON object")
    return value


def reject_constant(name: str) -> None:
    """Refuses NaN and the infinities, which JSON does not hold (see :func:`json_object`)."""
    raise ValueError(f"{name} is not JSON")


@dataclass(frozen=True)
class Rows:
    """Rows a damaged value lies in, when no one id names it (``text``: "a message of
    session ses_1")."""

    text: str


def damaged(table: str, column: str, key: object, value: object, kind: str) -> StoreDamaged:
    """The error of a stored value a command cannot read, in the words ``check`` uses;
    ``key`` the row's id, or a :class:`Rows` saying which rows."""
    where = key.text if isinstance(key, Rows) else f"the row with id {shown(key)}"
    return StoreDamaged(
        f"The database holds {shown(value)} in {table}.{column} of {where}, which is not "
        f"{kind}: it is damaged. Keep it and its -wal/-shm files "
        "for investigation and restore a verified backup (README, Backup and recovery); "
        "`memstore check` lists every such value."
    )


def shown(value: object) -> str:
    """``value`` as a problem shows it: its start, at most 40 characters."""
    text = repr(value)
    return text if len(text) <= 40 else text[:39] + "…"
