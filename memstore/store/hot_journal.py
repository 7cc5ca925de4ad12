"""A database whose -journal waits to be rolled back, judged on a rolled-back private copy:
memstore's own store (or an empty one) is opened and rolled back as SQLite does, another
application's refused untouched.

A read-only connection cannot roll a hot journal back. Taken for no database, another
application's file was rolled back and switched to WAL by the write that followed (found by
review); refused outright, memstore's own store, killed while it switched to WAL, was
refused for good (found by a later review).
"""

from __future__ import annotations

import errno
import shutil
import sqlite3
import tempfile
from contextlib import closing
from pathlib import Path

from memstore import files
from memstore.errors import FileError, StoreBusy, StoreError
from memstore.store.probe import read_only_reason
from memstore.store.schema_records import Schema, schema_of


def rolled_back_schema(path: Path) -> Schema:
    """The schema records of the database at ``path`` once its hot journal is rolled back,
    read from a rolled-back private copy in a temporary folder, the file left as it is
    (see the module's note).

    Raises:
        FileError: If the rolled-back database holds another application's tables or marks,
            or this process cannot write the file to roll it back.
        StoreBusy: If the journal or the file changed while they were copied (another
            process rolled it back, or is writing it).
        StoreError: If the temporary folder has no room for the copy.
    """
    reason = read_only_reason(path)
    if reason is not None:
        raise FileError(str(path), f"its -journal waits to be rolled back, and {reason}.")
    target = path.resolve()  # SQLite keeps the journal beside a symbolic link's target
    with tempfile.TemporaryDirectory(prefix="memstore-probe-") as folder:
        copy = Path(folder) / "rolled-back.sqlite3"
        try:
            for source, copied in ((target, copy), (f"{target}-journal", f"{copy}-journal")):
                files.create_private(Path(copied))
                shutil.copyfile(source, copied)
            with closing(sqlite3.connect(copy)) as connection:
                schema = schema_of(connection)
        except OSError as error:
            raise (no_room(path, folder) if error.errno == errno.ENOSPC else busy(path)) from error
        except sqlite3.DatabaseError as error:
            raise busy(path) from error
    if schema.is_memstore or not (schema.objects or schema.marked):
        return schema
    raise FileError(
        str(path),
        "another application's database whose -journal waits to be rolled back (a write "
        "interrupted, or going on now); open it with that application. memstore left it as "
        "it is.",
    )


def no_room(path: Path, folder: str) -> StoreError:
    """The StoreError of a temporary folder with no room for the copy a hot journal is
    judged on."""
    return StoreError(
        f"{path}: its -journal waits to be rolled back, and the temporary folder {folder} has "
        "no room to judge whose it is on a copy; free space there or set TMPDIR."
    )


def busy(path: Path) -> StoreBusy:
    """The StoreBusy of a database that changed while its hot journal was judged."""
    return StoreBusy(
        f"{path} changed while memstore read it beside its -journal (another process rolled "
        "it back, or is writing it); retry in a moment."
    )
