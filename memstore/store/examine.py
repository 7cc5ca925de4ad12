"""What a database file holds, examined without creating or changing anything: for the
commands that must not make a store where there is none."""

from __future__ import annotations

from pathlib import Path

from memstore import files
from memstore.store import migrations, probe
from memstore.store.schema_records import Schema
from memstore.store.sqlite_errors import translate_errors


def read_schema(path: Path) -> Schema | None:
    """:func:`probe.read_schema`, its SQLite errors translated (StoreBusy for a lock held
    past the probe's wait)."""
    with translate_errors(path):
        return probe.read_schema(path)


def holds_store(path: Path) -> bool | None:
    """Whether the file at ``path`` holds a memstore database: False for a missing or empty
    file, one Alembic downgraded to base, or another application's database; None when
    SQLite cannot read it as a database.

    Raises:
        FileError: If the path is not a regular file (a FIFO, a folder, a device).
        StoreBusy: If another process kept the file locked past the probe's wait.
    """
    status = files.store_file(path)
    if status is None or status.st_size == 0:
        return False
    schema = read_schema(path)
    return None if schema is None else schema.is_memstore and not schema.at_base


def unstarted(path: Path) -> bool:
    """Whether the existing file at ``path`` holds nothing yet: empty, or a SQLite database
    of one page without a single schema object or an application's mark. A first import
    killed before its migration committed leaves such a file (found by review: ``check``
    refused it, 5 of 26 kills); a larger one without a schema object lost it (found by
    review: a store whose first page was overwritten was called one that holds nothing). An
    empty one that stores text in UTF-16 is none: memstore refuses it (found by review:
    ``check`` proposed that `remember` set it up, which `remember` then refused).

    Raises:
        FileError: If the path is not a regular file (a FIFO, a folder, a device).
        StoreBusy: If another process kept the file locked past the probe's wait.
    """
    status = files.store_file(path)
    if status is None or status.st_size == 0:
        return status is not None
    if status.st_size < probe.HEADER_BYTES:  # SQLite reads 1 byte as empty; no store does
        return False
    schema = read_schema(path)
    return schema is not None and schema.empty and not schema.utf16


def refuse_foreign(path: Path) -> None:
    """Raise the FileError that names another application's SQLite database at ``path``, and
    what shows it is one (its tables, its marks: see :func:`probe.pending`), or a database
    in UTF-16; nothing for any other file (found by review: ``check`` proposed that
    `remember` set it up, which `remember` then refused; `alembic upgrade` migrated a store
    in UTF-16).

    Raises:
        FileError: For another application's database, or one in UTF-16.
        StoreBusy: If another process kept the file locked past the probe's wait.
    """
    schema = read_schema(path)
    if schema is not None and (schema.at_base or not schema.is_memstore or schema.utf16):
        probe.pending(schema, path, migrations.revisions(), migrations.code_version())


def at_base(path: Path) -> bool:
    """Whether the existing file at ``path`` is one Alembic downgraded to base (its empty
    version table alone): no store yet, which only the commands that store something set
    up, as they do an empty file; one in UTF-16 is none, which every command refuses (found
    by review: the diary showed an empty day of one).

    Raises:
        StoreBusy: If another process kept the file locked past the probe's wait.
    """
    schema = read_schema(path)
    return schema is not None and schema.at_base and not schema.utf16


def older_version(path: Path, location: str | None = None) -> int | None:
    """The schema version of the memstore store at ``path`` when it is older than the code's
    (migrations in ``location``, memstore's by default); None for a missing or empty file,
    one at Alembic's base, one SQLite cannot read, or a store that is up to date.

    Raises:
        FileError: If the path is not a regular file, or holds another application's
            database.
        SchemaError: If the schema records are newer than the code or inconsistent.
        StoreBusy: If another process kept the file locked past the probe's wait.
    """
    status = files.store_file(path)
    if status is None or status.st_size == 0:
        return None
    known, code = migrations.revisions(location), migrations.code_version(location)
    schema = read_schema(path)
    if schema is None or schema.at_base or not probe.pending(schema, path, known, code):
        return None
    return schema.newest
