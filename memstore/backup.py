"""Backup copies of the live database, never overwriting anything.

The copy is written with SQLite's online backup API into a private temporary file beside the
destination, in one step: one consistent snapshot of every committed transaction, including
those still in the ``-wal`` file, taken without blocking writers (WAL readers never do). The
copy is then switched to the rollback journal so that it is one self-contained file, and only
then linked into place, which fails if the destination appeared in the meantime: a destination
is never overwritten, not even by a race.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import tempfile
from collections.abc import Iterator
from contextlib import closing, contextmanager, suppress
from pathlib import Path

from memstore.db import BUSY_TIMEOUT_MS
from memstore.errors import BackupExists, InvalidInput, StoreError

COMPANIONS = ("", "-journal", "-wal", "-shm")


def target(destination: str | Path) -> Path:
    """``destination`` as an absolute path (``~`` expanded).

    Raises:
        BackupExists: If anything, even a dangling symbolic link, is already there.
    """
    path = Path(destination).expanduser().absolute()
    if os.path.lexists(path):
        raise BackupExists(str(path))
    return path


@contextmanager
def staging(destination: Path) -> Iterator[Path]:
    """A new empty private file beside ``destination`` (so that it can be hard-linked there);
    it and any SQLite companion files are removed on exit, whatever happens.

    Raises:
        InvalidInput: If the destination folder cannot be created or written.
    """
    try:
        destination.parent.mkdir(parents=True, exist_ok=True)
        handle, name = tempfile.mkstemp(
            dir=destination.parent, prefix=f".{destination.name}.", suffix=".partial"
        )
    except OSError as error:
        raise InvalidInput(
            "destination",
            f"{destination.parent} cannot be written ({error.strerror or error}); choose a "
            "folder you can write to.",
        ) from error
    os.close(handle)
    staged = Path(name)
    try:
        yield staged
    finally:
        for suffix in COMPANIONS:
            with suppress(FileNotFoundError):
                os.unlink(f"{staged}{suffix}")


def copy(source: Path, staged: Path) -> None:
    """Copy the committed state of the database at ``source`` into the empty file ``staged``.

    Raises:
        StoreError: If SQLite fails to read the source or write the copy.
    """
    try:
        with (
            closing(sqlite3.connect(source, timeout=BUSY_TIMEOUT_MS / 1000)) as live,
            closing(sqlite3.connect(staged)) as copied,
        ):
            live.backup(copied)  # pages=-1: the whole database in one step, one snapshot
    except sqlite3.Error as error:
        raise StoreError(
            f"SQLite failed while copying {source}: {error}; nothing was written. Run "
            "`memstore check` on the database, then try again."
        ) from error


def seal(staged: Path) -> None:
    """Switch the copy to the rollback journal (DELETE) mode: one self-contained file that
    needs no ``-wal``; memstore switches it back to WAL when it opens it.

    Raises:
        StoreError: If SQLite cannot change the journal mode.
    """
    with closing(sqlite3.connect(staged)) as copied:
        mode = copied.execute("PRAGMA journal_mode = DELETE").fetchone()[0]
    if mode != "delete":
        raise StoreError(f"the copy stayed in journal mode {mode!r}; nothing was written.")


def place(staged: Path, destination: Path) -> None:
    """Put ``staged`` at ``destination`` only if nothing is there: a hard link, which the
    operating system refuses atomically when the name exists; where the file system has no
    hard links, an exclusively created copy.

    Raises:
        BackupExists: If ``destination`` exists (it is left as it was).
    """
    try:
        os.link(staged, destination)
    except FileExistsError as error:
        raise BackupExists(str(destination)) from error
    except OSError:  # no hard links here (some network and FAT file systems)
        copy_exclusive(staged, destination)


def copy_exclusive(staged: Path, destination: Path) -> None:
    """Copy ``staged`` to a newly created ``destination``, removing it again if that fails.

    Raises:
        BackupExists: If ``destination`` exists (it is left as it was).
    """
    try:
        out = destination.open("xb")
    except FileExistsError as error:
        raise BackupExists(str(destination)) from error
    try:
        with out, staged.open("rb") as source:
            shutil.copyfileobj(source, out)
            out.flush()
            os.fsync(out.fileno())
    except BaseException:
        destination.unlink(missing_ok=True)
        raise
