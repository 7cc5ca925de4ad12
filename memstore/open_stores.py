"""The databases this process has open, known by device and inode, and the files never to be
opened or written as plain files because of them (closing a descriptor drops SQLite's locks)."""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

from memstore.errors import FileError

SQLITE_HEADER = b"SQLite format 3\x00"


STORE_COMPANIONS = ("", "-wal", "-shm", "-journal")  # the database and SQLite's files beside it


OPEN_STORES: dict[tuple[int, int], Path] = {}
"""The databases this process has opened, by device and inode, with the path each was opened
by: a file to be read is checked against them (:func:`not_a_store`) at the cost of a stat or
two, however many there are. Never emptied: a store another object of the process still uses
stays protected; one deleted since no longer matches (:func:`store_of`)."""


def claim_store(path: Path) -> None:
    """Record that this process holds SQLite connections to the database at ``path``."""
    status = os.stat(path)
    OPEN_STORES[(status.st_dev, status.st_ino)] = path.absolute()


def store_of(path: str | Path) -> Path | None:
    """The database this process has opened that the file at ``path`` is (under any name: a
    link, another folder's path) or that SQLite keeps it beside (its ``-wal``, ``-shm`` or
    ``-journal``), or None."""
    text = os.fspath(path)
    bases = [text, *(text[: -len(end)] for end in STORE_COMPANIONS if end and text.endswith(end))]
    for base in bases:
        with contextlib.suppress(OSError):
            status = os.stat(base)
            store = OPEN_STORES.get((status.st_dev, status.st_ino))
            if store is not None and os.path.samestat(os.stat(store), status):
                return store
    return None


def not_a_store(path: str | Path) -> None:
    """Refuse to open, as a file to read, a database this process has open (or a file SQLite
    keeps beside it), under any name.

    Opening and closing any descriptor of the database drops every POSIX lock this process's
    SQLite connections hold on it, so that another process can delete the WAL they still
    write to (found by review: an import or a diary given the database, or a hard link to
    it, lost a later acknowledged write).

    Raises:
        FileError: If ``path`` is that file.
    """
    if store_of(path) is not None:
        raise FileError(
            str(path),
            "is a memory store's own database, not a file to read; give the logs, the export "
            "or the configuration meant.",
        )


def not_a_companion(destination: Path, store: Path) -> None:
    """Refuse to write a new file where SQLite keeps one beside the database ``store``,
    another this process has open, or any other SQLite database: it would take a
    ``-journal`` or ``-wal`` there for its own, and roll it back or delete it (found by
    review: a backup written to it was gone at the next open).

    Raises:
        FileError: If ``destination`` is such a name.
    """
    name = os.fspath(destination)
    for end in STORE_COMPANIONS[1:]:
        base = name[: -len(end)]
        if not name.endswith(end) or not os.path.exists(base):
            continue
        own = os.path.exists(store) and os.path.samefile(base, store)
        if own or store_of(base) is not None or is_sqlite_file(base):
            raise FileError(
                str(destination),
                "is where SQLite keeps a file beside the database; choose another name.",
            )


def is_sqlite_file(path: str) -> bool:
    """Whether the regular file at ``path`` starts as a SQLite database does (another
    process's store, whose companion a new file must not take: found by review, a backup
    written as ``other.db-wal`` was deleted by that store's next opening). Never asked of a
    store this process has open (:func:`store_of` first): its descriptor would drop locks."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):  # a FIFO would block the open (review)
            return False
        with open(path, "rb") as file:
            return file.read(len(SQLITE_HEADER)) == SQLITE_HEADER
    except OSError:
        return False


NAME_MAX_BYTES = 255  # the longest file name of the common file systems
LONGEST_COMPANION = "-journal"  # the longest name SQLite puts after a database's
PATH_MAX_BYTES = 512  # the longest path SQLite's Unix and Windows file layers open


def companions_fit(path: Path) -> None:
    """Refuse a database name too long for the files SQLite keeps beside it (``-journal``,
    ``-wal``): a store could be created and then never written (found by review: a bare
    OSError, and an empty file left behind).

    Raises:
        FileError: If the name and ``-journal`` exceed :data:`NAME_MAX_BYTES` bytes, or the
            absolute path and ``-journal`` :data:`PATH_MAX_BYTES`.
    """
    size = len(os.fsencode(path.name))
    if size + len(LONGEST_COMPANION) > NAME_MAX_BYTES:
        most = NAME_MAX_BYTES - len(LONGEST_COMPANION)
        raise FileError(
            str(path),
            f"its name is {size} bytes; a database's is at most {most}, so that SQLite's "
            f"{LONGEST_COMPANION} and -wal files fit beside it.",
        )
    whole = len(os.fsencode(os.path.realpath(path)))  # SQLite opens it with links followed
    if whole + len(LONGEST_COMPANION) > PATH_MAX_BYTES:  # found by review: a wrong diagnosis
        most = PATH_MAX_BYTES - len(LONGEST_COMPANION)
        raise FileError(
            str(path),
            f"its path is {whole} bytes (links followed); SQLite opens one of at most {most}, "
            f"with its {LONGEST_COMPANION}; use a shorter folder.",
        )


def companions_free(path: Path) -> None:
    """Refuse a new database's name when anything is where SQLite keeps its ``-journal``,
    ``-wal`` or ``-shm`` file (beside a symbolic link's target): SQLite would take it for
    the new file's own (found by review: a backup was written beside a FIFO ``-journal``,
    and every command on it was refused after).

    Raises:
        FileError: Naming what is there.
    """
    for end, beside in companions(path):
        if os.path.lexists(beside):
            raise FileError(
                str(beside),
                f"SQLite would take it for the new database's own {end} file; remove it, or "
                "choose another name.",
            )


def companions(path: Path) -> list[tuple[str, Path]]:
    """Each file SQLite keeps beside the database at ``path`` (``-wal``, ``-shm``,
    ``-journal``) with its path: beside a symbolic link's target, where SQLite keeps them."""
    target = os.path.realpath(path)
    return [(end, Path(f"{target}{end}")) for end in STORE_COMPANIONS[1:]]
