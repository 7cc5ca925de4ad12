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
COLUMNS = "SELECT name FROM pragma_table_info(?)"
MARKS = ("PRAGMA application_id", "PRAGMA user_version")
PAGES = "PRAGMA page_count"
ENCODING = "PRAGMA encoding"
CORE_TABLES = ("sessions", "messages", "memories")  # revision 0001's, there ever since
OWN_COLUMNS = {"schema_migrations": {"version", "applied_at"}, "alembic_version": {"version_num"}}
NAMED = "SELECT name FROM sqlite_master WHERE name NOT LIKE 'sqlite%'"  # not SQLite's own


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
    named: frozenset[str] = frozenset()
    """The names of its tables, indexes, views and triggers (not SQLite's own, such as an
    autoindex or ANALYZE's ``sqlite_stat1``)."""
    core: bool = True
    """Whether any of memstore's first tables is there (sessions, messages, memories): a
    store that lost some of them is a damaged store, which ``check`` reports (found by
    review: it was called another application's)."""
    pages: int = 1
    """The database's size in pages (``PRAGMA page_count``, the WAL's committed pages
    included)."""
    foreign: bool = False
    """Whether a version table is not memstore's shape: other columns (golang-migrate's
    ``dirty``), or versions that are not whole numbers (Ruby's Sequel, a YYYYMMDD string):
    another tool's records."""
    encoding: str = "UTF-8"
    """How the database stores text (``PRAGMA encoding``): ``UTF-8``, ``UTF-16le`` or
    ``UTF-16be``."""

    @property
    def at_base(self) -> bool:
        """Whether this is what ``alembic downgrade base`` leaves of a store: an empty
        ``alembic_version`` table of memstore's shape alone, in a file no application has
        claimed (found by review: one with another column was taken over). It is
        upgraded as an empty file is (found by review: it was refused), and only by the
        commands that may create a store (found by review: reading commands took it over)."""
        alone = self.named == {"alembic_version"}
        return self.alembic == () and alone and not (self.marked or self.foreign)

    @property
    def utf16(self) -> bool:
        """Whether it stores text in UTF-16, which memstore refuses (see
        :func:`memstore.store.probe.not_utf8`)."""
        return self.encoding != "UTF-8"

    @property
    def empty(self) -> bool:
        """Whether the database holds nothing: no schema object and no application's mark,
        in at most one page (what a transaction that never committed leaves of a new file)."""
        return self.objects == 0 and not self.marked and self.pages <= 1

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
    named = frozenset(name for (name,) in connection.execute(NAMED))
    core = any(map(has, CORE_TABLES))
    (pages,) = connection.execute(PAGES).fetchone()
    shapes = [own_shape(connection, table) for table in OWN_COLUMNS if has(table)]
    foreign = ForeignVersions in (recorded, alembic) or not all(shapes)
    return Schema(
        int(objects),
        None if recorded is ForeignVersions else recorded,
        None if alembic is ForeignVersions else alembic,
        marked,
        named,
        core,
        int(pages),
        foreign,
        connection.execute(ENCODING).fetchone()[0],
    )


def own_shape(connection: sqlite3.Connection, table: str) -> bool:
    """Whether the version ``table`` has memstore's columns, no more and no fewer."""
    columns = {name for (name,) in connection.execute(COLUMNS, (table,))}
    return columns == OWN_COLUMNS[table]


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
