"""The database file before memstore opens it, examined without writing anything.

memstore's own connections switch a database to WAL and its first use adds its tables, so
before any of them opens a file, a read-only probe tells what is there: nothing, an empty
file or an empty SQLite database (memstore may make it its own), a memstore database (its
schema versions are checked), another application's database (refused, left byte for byte as
it was), or something SQLite cannot read. It also tells whether this process may write the
file at all: a database it cannot write (a mounted backup, a folder of another user) is opened
read-only, without the WAL switch or any migration.

The schema has one truth told twice: Alembic's ``alembic_version`` (the revision id) and
memstore's ``schema_migrations`` (each applied version with its time). Both are read, and a
revision this code does not know, or the two disagreeing, is a :class:`SchemaError` naming
both values.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Mapping
from contextlib import closing
from pathlib import Path

from memstore.errors import FileError, SchemaError, StoreDamaged, quoted
from memstore.store.schema_records import Schema, schema_of

# What a writer leaves beside a database until it is read in, and the size from which it
# may hold some: a WAL's header and one frame of the smallest page (32 + 24 + 512 bytes).
JOURNALS = {"-wal": 568, "-journal": 1}
PROBE_TIMEOUT_S = 0.5


def reader_uri(path: Path) -> str:
    """A URI that opens the database at ``path`` read-only and creates nothing beside it. A
    WAL database normally needs its ``-shm``, which a read-only connection may have to create
    (or cannot, in a folder it cannot write); when nothing waits to be read into the file
    (:func:`settled`), ``immutable=1`` reads it as it is, without one."""
    uri = f"{path.resolve().as_uri()}?mode=ro"
    return f"{uri}&immutable=1" if settled(path) else uri


def settled(path: Path) -> bool:
    """Whether the database at ``path`` has no ``-wal`` or ``-journal`` beside it that may
    hold anything (found by review: a copy without its ``-shm``, its ``-wal`` empty, was
    refused; then, by the re-check, one shorter than a frame).

    Told by the names alone, never by reading the database's header: closing a descriptor
    of a file drops every POSIX lock the process holds on it, SQLite's own included, so a
    process that opened the file to read it let another close its last connection, delete
    the WAL and lose this one's acknowledged writes (found by review, with two services on
    one file in one process). SQLite keeps them beside a symbolic link's target, so that
    is where they are looked for (found by review: a link's hot journal went unseen).
    """
    target = path.resolve()
    return not any(holds(Path(f"{target}{end}"), least) for end, least in JOURNALS.items())


def holds(path: Path, least: int) -> bool:
    """Whether a file at ``path`` holds ``least`` bytes (or cannot be looked at, so may)."""
    try:
        return path.stat().st_size >= least
    except (FileNotFoundError, NotADirectoryError):
        return False
    except OSError:
        return True


def read_schema(path: Path) -> Schema | None:
    """The schema records of the SQLite file at ``path``, read-only; None when SQLite cannot
    read it as a database (not one, or damaged: opening it then says why).

    Raises:
        sqlite3.OperationalError: When another process kept the file locked past the probe's
            wait: the file may well be a database, and another application's must be left
            as it is (found by review: taken for no database, one being written was
            switched to WAL).
        FileError: When a hot journal waits beside another application's database (see
            :func:`rolled_back_schema`).
        StoreBusy: When the file's ``-wal`` came or went at every attempt to open it.
    """
    # here: those modules import this one
    from memstore.store.hot_journal import rolled_back_schema
    from memstore.store.readers import open_reader
    from memstore.store.sqlite_errors import is_busy

    try:
        # opened again, decided afresh, while an owner's files come and go (found by review:
        # a read-only store's probe took a -wal just deleted for no database)
        with closing(open_reader(path, PROBE_TIMEOUT_S)) as probe:
            # one snapshot: read apart, a first writer's upgrade committed between the count
            # of tables (none) and of pages took a new store for an emptied one (found by
            # review: "it holds no table, but 45 pages")
            probe.execute("BEGIN")
            try:
                return schema_of(probe)
            finally:
                probe.rollback()
    except sqlite3.DatabaseError as error:
        if is_busy(error):
            raise
        if getattr(error, "sqlite_errorcode", None) == sqlite3.SQLITE_READONLY_ROLLBACK:
            return rolled_back_schema(path)
        return None
    except UnicodeDecodeError:  # SQLite's message quoting damaged schema text (sqlite_errors)
        return None


HEADER_BYTES = 100
"""The size of a SQLite database's header: a shorter file that is not empty is no database,
though SQLite opens it as an empty one (found by review: a file holding one newline was made
a store)."""


def too_short(size: int) -> StoreDamaged:
    """The refusal of a file of ``size`` bytes, shorter than any SQLite database's header: as
    SQLite refuses any other file that is no database (it opens a 1-byte one as empty)."""
    from memstore.store.sqlite_errors import damaged  # here: that module imports this one

    reason = f"file is not a database: it holds {size} bytes, fewer than a header's {HEADER_BYTES}"
    return damaged(sqlite3.DatabaseError(reason))


def not_upgraded(path: Path, version: int, code: int) -> SchemaError:
    """The refusal of a file whose schema (at ``version``) is older than ``code``'s, by a
    command that only reads (the diary)."""
    return SchemaError(
        f"The database {path} is at schema version {version}, older than this code's {code}, "
        "and this command only reads, so it does not upgrade it. Any other command "
        "(`memstore check`, say) upgrades a file it may write; make a backup first "
        "(`memstore backup PATH`, which also copies a read-only file for upgrading).",
        database_version=version,
        code_version=code,
    )


def upgrade_refused(path: Path, version: int, code: int, cause: Exception) -> SchemaError:
    """The refusal of a file at schema ``version`` that the upgrade to ``code`` failed on,
    ``cause`` saying why; nothing was changed (it runs in one transaction)."""
    return SchemaError(
        f"The upgrade of the database {path} from schema version {version} to {code} failed, "
        f"and nothing was changed: {str(cause).removesuffix('; run `memstore check`.')}. Its "
        "version records do not match its tables (edited by hand or by another tool?). Keep "
        "it as it is and restore a verified backup (README, Backup and recovery).",
        database_version=version,
        code_version=code,
    )


def read_only_reason(path: Path) -> str | None:
    """Why this process cannot write the existing database at ``path``, or None when it can
    (SQLite also needs to create its ``-wal``/``-shm`` or journal files in the folder)."""
    folder = path.parent
    if hasattr(os, "statvfs") and os.statvfs(path).f_flag & os.ST_RDONLY:
        return "its file system is mounted read-only"
    if not os.access(path, os.W_OK):
        return "this user may not write the file"
    if not os.access(folder, os.W_OK | os.X_OK):
        return f"this user may not create files in its folder {folder}, as SQLite must"
    return None


def pending(schema: Schema, path: Path, revisions: Mapping[str, int], code: int) -> bool:
    """Whether migrations are pending for a database with these schema records.

    Args:
        schema: What the database records about its schema (:func:`read_schema`).
        path: The database file, for the messages.
        revisions: Every revision id this code ships -> its schema version.
        code: The newest schema version this code ships.

    Returns:
        True for an empty database (or one at Alembic's base) or one at an older version.

    Raises:
        FileError: For another application's database, one without a table that still
            holds pages (:func:`problem_of`), or one in UTF-16 (:func:`not_utf8`).
        SchemaError: If the versions have gaps, are newer than ``code``, or
            ``alembic_version`` is missing, names an unknown revision or disagrees with
            ``schema_migrations``.
    """
    problem = None if schema.at_base else problem_of(schema, path, revisions, code)
    if schema.utf16:
        raise not_utf8(path, schema.encoding)
    if schema.at_base or not schema.is_memstore:
        return True  # empty, or what `alembic downgrade base` leaves of a store
    if problem is not None:
        raise refusal(schema, path, code, *problem)
    return schema.newest < code


def problem_of(
    schema: Schema, path: Path, revisions: Mapping[str, int], code: int
) -> tuple[str, str] | None:
    """The version problem of a store (see :func:`version_problem`), or None, once
    another application's database and one without a table that still holds pages
    (:func:`emptied`) are refused with FileError."""
    problem = version_problem(schema, revisions, code) if schema.is_memstore else None
    # version records not memstore's and none of its tables: another tool's; its own
    # records without its tables: a damaged store, which check reports (found by review)
    foreign = schema.foreign or (not schema.core and problem is not None)
    if foreign or not schema.is_memstore:
        if foreign or schema.objects or schema.marked:
            raise FileError(
                str(path),
                "it is not a memstore database (another application's SQLite database, "
                f"{claims(schema)}); it was left untouched. Check --database or the "
                "configuration's database setting.",
            )
        if not schema.empty:
            raise emptied(path, schema.pages)
    return problem


def emptied(path: Path, pages: int) -> FileError:
    """The refusal of a database without a table that still holds pages: a store whose first
    page lost its list of tables, or another program's emptied database (found by review:
    `remember` set a new store up over a damaged one, and its data was lost for good)."""
    return FileError(
        str(path),
        f"it holds no table, but {pages} pages: a store whose schema was damaged, or another "
        "program's emptied database; it was left untouched. Restore a verified backup "
        "(README, Backup and recovery), or move the file away to start afresh.",
    )


def not_utf8(path: Path, encoding: str) -> FileError:
    """The refusal of a database that stores text in UTF-16, empty, at Alembic's base or a
    store: memstore's stores hold UTF-8, which an import writes as it reads it from a log
    (found by review: SQLite read those bytes as UTF-16, and cut a byte off each message of
    odd length, which ``check`` called ok)."""
    return FileError(
        str(path),
        f"it stores text as {encoding}, and memstore's databases store UTF-8 (an import into "
        "it would cut text); it was left untouched. Move it away to start afresh, or copy a "
        "store an earlier memstore made in it as the README says (`sqlite3 OLD .dump`).",
    )


def claims(schema: Schema) -> str:
    """What shows that another application's database is not memstore's: its schema
    objects, its header's marks, or both."""
    kinds = "table, index or view" if schema.objects == 1 else "tables, indexes or views"
    found = [f"with {schema.objects} {kinds}"] if schema.objects else []
    marked = ["marked by its own application_id or user_version"] if schema.marked else []
    return " and ".join(found + marked)


def version_problem(
    schema: Schema, revisions: Mapping[str, int], code: int
) -> tuple[str, str] | None:
    """What is wrong with the version records of a memstore database, and the advice to give;
    None when this code can use them.

    Args:
        schema: The database's schema records (``schema.is_memstore`` is true).
        revisions: Every revision id this code ships -> its schema version.
        code: The newest schema version this code ships.
    """
    recorded, newest = list(schema.recorded or ()), schema.newest
    if recorded != list(range(1, len(recorded) + 1)):  # not range(newest): 20230101120000
        return (
            f"the schema versions are not contiguous (expected 1..{newest})",
            f"this code is at version {code}. Restore a backup; do not edit schema_migrations.",
        )
    if newest > code:
        return (
            f"database schema version {newest} is newer than this code's version {code}",
            "upgrade memstore to open it.",
        )
    alembic = schema.alembic or ()
    if len(alembic) != 1 or alembic[0] not in revisions:
        known = ", ".join(sorted(revisions))
        return (
            f"alembic_version does not name exactly one revision this code knows ({known})",
            "a newer memstore may have written it, or the tables were edited: restore a backup.",
        )
    if revisions[alembic[0]] != newest:
        return (
            f"alembic_version says schema version {revisions[alembic[0]]} and "
            f"schema_migrations says {newest}",
            "the two records disagree: restore a backup; do not edit either table.",
        )
    return None


def refusal(schema: Schema, path: Path, code: int, problem: str, advice: str) -> SchemaError:
    """The SchemaError for a database whose version records this code cannot use: the
    ``problem``, both records as they are, and the ``advice``."""
    told = f"schema_migrations holds versions {list(schema.recorded or ())} and " + (
        "alembic_version holds no table"
        if schema.alembic is None
        else f"alembic_version holds [{', '.join(map(quoted, schema.alembic))}]"
    )  # each value cut short (found by review: one of 100,000 characters came back whole)
    return SchemaError(
        f"{path}: {problem} ({told}); {advice} Nothing was written.",
        database_version=schema.newest,
        code_version=code,
        alembic_revision=schema.alembic[0] if schema.alembic else None,
    )
