"""What a SQLite database records about its schema (its version tables, its objects, its
header's marks), read without writing: :func:`schema_of`."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import Any

OBJECTS = "SELECT count(*) FROM sqlite_master"
TABLE = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?"
MIGRATIONS = "SELECT version FROM schema_migrations ORDER BY version"
ALEMBIC = "SELECT version_num FROM alembic_version"
MARKS = ("PRAGMA application_id", "PRAGMA user_version")
CORE_TABLES = ("sessions", "messages", "memories")  # revision 0001's, there ever since


@dataclass(frozen=True)
class Schema:
    """What a SQLite database records about its schema.

    Attributes:
        objects: Entries in ``sqlite_master``; 0 is an empty database.
        recorded: The versions in ``schema_migrations``, ascending; None without that table.
        alembic: The rows of ``alembic_version``; None without that table.
        marked: Whether the header carries an ``application_id`` or ``user_version``: an
            application has claimed the file, even with no table in it yet.
    """

    objects: int
    recorded: tuple[int, ...] | None
    alembic: tuple[str, ...] | None
    marked: bool = False
    core: bool = True
    """Whether memstore's first tables are there (sessions, messages, memories)."""
    foreign: bool = False
    """Whether a version table is not memstore's shape: another column, or versions that are
    not whole numbers (Ruby's Sequel, a YYYYMMDD string): another tool's records."""

    @property
    def is_memstore(self) -> bool:
        """Whether either version table is there: the file is (or was) memstore's."""
        return self.recorded is not None or self.alembic is not None

    @property
    def newest(self) -> int:
        """The highest version in ``schema_migrations`` (0 when it records none)."""
        return self.recorded[-1] if self.recorded else 0


def schema_of(connection: sqlite3.Connection) -> Schema:
    """The schema records of the database open on ``connection`` (only reads)."""

    def has(table: str) -> bool:
        return connection.execute(TABLE, (table,)).fetchone() is not None

    recorded = versions(connection, MIGRATIONS, int) if has("schema_migrations") else None
    alembic = versions(connection, ALEMBIC, str) if has("alembic_version") else None
    (objects,) = connection.execute(OBJECTS).fetchone()
    marked = any(connection.execute(pragma).fetchone()[0] for pragma in MARKS)
    core = all(map(has, CORE_TABLES))
    foreign = ForeignVersions in (recorded, alembic)
    return Schema(
        int(objects),
        None if recorded is ForeignVersions else recorded,
        None if alembic is ForeignVersions else alembic,
        marked,
        core,
        foreign,
    )


class ForeignVersions:
    """The mark of a version table that is not memstore's (see :attr:`Schema.foreign`)."""


def versions(connection: sqlite3.Connection, sql: str, kind: type) -> Any:
    """The values of a version table, each of ``kind``, or :class:`ForeignVersions` when
    the table lacks the column or holds other values (found by review: another tool's
    ``schema_migrations`` without a ``version`` column was switched to WAL, and one of
    text versions was a traceback)."""
    try:
        values = tuple(value for (value,) in connection.execute(sql))
    except sqlite3.OperationalError:  # no such column
        return ForeignVersions
    return values if all(type(value) is kind for value in values) else ForeignVersions
